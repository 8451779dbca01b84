// The `charter` command: parses the command line with CLI11, runs the chosen
// command, and turns every failure into one "charter: error: ..." line and
// exit status 1. No exception leaves main.
#include <sys/prctl.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "charter/charter.h"
#include "charter_support/nearest.h"
#include "command.h"
#include "files.h"
#include "pictures.h"
#include "report.h"

namespace charter::cli {
namespace {

// The servers (`lsp`, `serve`) live long and keep what they read: the huge
// pages that make a batch command faster (malloc_conf below) would only
// round their memory up, by about 15 MB for `charter lsp` over the
// governance world (docs/performance.md). The kernel then backs none of
// the process's new memory with them.
void KeepOffHugePages() {
#ifdef CHARTER_JEMALLOC_HUGE_PAGES
  prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
#endif
}

// What a user most likely meant by `word`, with `hint` when nothing is close
// enough to be a slip: "; did you mean `--policies`?" or " (HINT)".
std::string DidYouMean(const std::string& word, const std::vector<std::string>& names,
                       const std::string& hint) {
  std::string best = support::NearestName(word, names);
  return best.empty() ? " (" + hint + ")" : "; did you mean `" + best + "`?";
}

// One line for a command-line error, in words a user can act on.
std::string ParseErrorMessage(CLI::App& app, const CLI::ParseError& e) {
  CLI::App* command = &app;
  std::string name = "charter";
  for (CLI::App* sub : app.get_subcommands()) {
    command = sub;
    name = "charter " + sub->get_name();
  }
  // CLI11 checks required flags before it complains about unknown ones;
  // an unknown flag is the more useful message (it may be a misspelt
  // required one), so it wins.
  std::vector<std::string> unknown = app.remaining(true);
  std::vector<std::string> flags;
  for (const std::string& arg : unknown) {
    if (arg.size() > 1 && arg[0] == '-') flags.push_back(arg.substr(0, arg.find('=')));
  }
  if (!flags.empty()) {
    std::vector<std::string> names;
    for (const CLI::Option* o : command->get_options()) {
      for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
      for (const std::string& s : o->get_snames()) names.push_back("-" + s);
    }
    return "unknown flag `" + flags[0] + "`" + DidYouMean(flags[0], names, "`" + name + " --help` lists the flags");
  }
  if (!unknown.empty()) {
    if (command == &app) {
      std::vector<std::string> names;
      for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
      return "unknown command `" + unknown[0] + "`" +
             DidYouMean(unknown[0], names, "`charter --help` lists the commands");
    }
    return "unexpected argument `" + unknown[0] + "` (`" + name + " --help` says what it takes)";
  }
  std::string message = OneLine(e.what());
  // "--request-json: 1 required FILE missing": a flag without its value.
  size_t colon = message.find(": ");
  if (message.size() > 2 && message[0] == '-' && colon != std::string::npos &&
      message.find(" required ", colon) != std::string::npos &&
      message.size() > 8 && message.compare(message.size() - 8, 8, " missing") == 0) {
    return message.substr(0, colon) + " needs a value";
  }
  // "--policies: At Most 1 required but received 2": a flag given twice.
  if (message.size() > 2 && message[0] == '-' && colon != std::string::npos &&
      message.compare(colon, 27, ": At Most 1 required but re") == 0) {
    return message.substr(0, colon) + " is given more than once; it takes one value";
  }
  return message;
}

int Main(int argc, char** argv) {
  CLI::App app("Charter: policies for shared compute clusters, in Cedar's language.", "charter");
  app.require_subcommand(0, 1);
  std::vector<Command> commands = {
      AddAccessCommand(app),
      AddAdmitCommand(app),
      AddAuditCommand(app),
      AddAuthorizeCommand(app),
      AddBenchCommand(app),
      AddBuildCommand(app),
      AddCheckCommand(app),
      AddDiffCommand(app),
      AddDisasmCommand(app),
      AddExplainCommand(app),
      AddExportCommand(app),
      AddFmtCommand(app),
      AddImportCommand(app),
      AddLspCommand(app),
      AddProveCommand(app),
      AddQueryCommand(app),
      AddReplCommand(app),
      AddReportCommand(app),
      AddScheduleCommand(app),
      AddServeCommand(app),
      AddSimulateCommand(app),
      AddTestCommand(app),
      AddVersionCommand(app),
  };
  // After the commands, so that they do not inherit them.
  app.footer("Run `charter COMMAND --help` for the options of a command.");
  app.set_version_flag("--version", "charter " + std::string(Version()), "Print Charter's version and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help (and friends) exit 0 with the help on stdout; every other
    // parse error is one line and exit 1, whatever CLI11's own code.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      app.exit(e, std::cout, std::cerr);
      return kOk;
    }
    PrintError(ParseErrorMessage(app, e));
    return kError;
  }
  for (const Command& command : commands) {
    if (!command.app->parsed()) continue;
    const std::string& name = command.app->get_name();
    if (name == "lsp" || name == "serve") KeepOffHugePages();
    return command.run();
  }
  std::cout.flush();
  std::cerr << app.help();
  return kError;
}

}  // namespace
}  // namespace charter::cli

#ifdef CHARTER_JEMALLOC_HUGE_PAGES
// jemalloc's options for the command, which it reads before main (and a
// MALLOC_CONF in the environment overrides): its arenas and metadata on
// transparent huge pages, where the kernel allows them (`madvise` or
// `always` in /sys/kernel/mm/transparent_hugepage/enabled). A command that
// reads a large input touches tens of megabytes once; each 4 KB page cost a
// fault, most of the system time of `charter fmt` (cli/CMakeLists.txt).
extern "C" {
// NOLINTNEXTLINE: the name and type are jemalloc's.
const char* malloc_conf = "thp:always,metadata_thp:always";
}
#endif

int main(int argc, char** argv) {
  // Passing `ulimit -f` then fails a write with EFBIG, which the file
  // writers report and clean up after, instead of killing the process with
  // a temporary file left behind.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    return charter::cli::Main(argc, argv);
  } catch (const std::bad_alloc&) {
    charter::cli::PrintError(charter::cli::InputStage::OutOfMemoryMessage());
  } catch (const std::exception& e) {
    charter::cli::PrintError(std::string("internal error: ") + e.what());
  } catch (...) {
    charter::cli::PrintError("internal error: unknown exception");
  }
  return charter::cli::kError;
}
