// `charter version`: print the library's version.
#include <string>

#include "charter/charter.h"
#include "command.h"
#include "report.h"

namespace charter::cli {

Command AddVersionCommand(CLI::App& root) {
  CLI::App* app = root.add_subcommand("version", "Print Charter's version");
  return Command{app, [] {
                   std::string out = "charter " + std::string(Version()) + "\n";
                   return WriteStdout(out) ? kOk : kError;
                 }};
}

}  // namespace charter::cli
