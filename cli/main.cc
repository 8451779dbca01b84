// The `charter` command: parses the command line with CLI11, runs the chosen
// command, and turns every failure into one "charter: error: ..." line and
// exit status 1. No exception leaves main.
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "command.h"
#include "report.h"

namespace charter::cli {
namespace {

int Main(int argc, char** argv) {
  CLI::App app("Charter: policies for shared compute clusters, in Cedar's language.", "charter");
  app.require_subcommand(0, 1);
  std::vector<Command> commands = {
      AddAuthorizeCommand(app),
      AddBenchCommand(app),
      AddBuildCommand(app),
      AddCheckCommand(app),
      AddDisasmCommand(app),
      AddExplainCommand(app),
      AddFmtCommand(app),
      AddReplCommand(app),
      AddScheduleCommand(app),
      AddSimulateCommand(app),
      AddTestCommand(app),
      AddVersionCommand(app),
  };
  // After the commands, so that they do not inherit it.
  app.footer("Run `charter COMMAND --help` for the options of a command.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help (and friends) exit 0 with the help on stdout; every other
    // parse error is one line and exit 1, whatever CLI11's own code.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      app.exit(e, std::cout, std::cerr);
      return kOk;
    }
    // CLI11 checks required flags before it complains about unknown ones;
    // an unknown flag is the more useful message (it may be a misspelt
    // required one), so it wins.
    std::vector<std::string> unknown = app.remaining(true);
    std::vector<std::string> flags;
    for (const std::string& arg : unknown) {
      if (arg.size() > 1 && arg[0] == '-') flags.push_back(arg);
    }
    if (!flags.empty()) unknown = flags;  // the rest are likely their values
    if (!unknown.empty()) {
      PrintError(OneLine(CLI::ExtrasError(unknown).what()));
    } else {
      PrintError(OneLine(e.what()));
    }
    return kError;
  }
  for (const Command& command : commands) {
    if (command.app->parsed()) return command.run();
  }
  std::cout.flush();
  std::cerr << app.help();
  return kError;
}

}  // namespace
}  // namespace charter::cli

int main(int argc, char** argv) {
  try {
    return charter::cli::Main(argc, argv);
  } catch (const std::bad_alloc&) {
    charter::cli::PrintError("out of memory");
  } catch (const std::exception& e) {
    charter::cli::PrintError(std::string("internal error: ") + e.what());
  } catch (...) {
    charter::cli::PrintError("internal error: unknown exception");
  }
  return charter::cli::kError;
}
