// Commands of the `charter` tool. Each command lives in its own file and
// registers itself on the root CLI11 app: it adds a subcommand with its flags
// and returns the function that runs it once the command line has parsed.
// main.cc owns parsing, dispatch and the exception barrier.
#ifndef CHARTER_CLI_COMMAND_H_
#define CHARTER_CLI_COMMAND_H_

#include <functional>
#include <vector>

#include "CLI/CLI.hpp"

namespace charter::cli {

// A registered command: its CLI11 subcommand and what runs it. `run` returns
// the process exit code (see report.h).
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command AddAuthorizeCommand(CLI::App& root);
Command AddBenchCommand(CLI::App& root);
Command AddBuildCommand(CLI::App& root);
Command AddCheckCommand(CLI::App& root);
Command AddFmtCommand(CLI::App& root);
Command AddTestCommand(CLI::App& root);
Command AddReplCommand(CLI::App& root);
Command AddVersionCommand(CLI::App& root);
Command AddExplainCommand(CLI::App& root);
Command AddDisasmCommand(CLI::App& root);
Command AddScheduleCommand(CLI::App& root);
Command AddSimulateCommand(CLI::App& root);

}  // namespace charter::cli

#endif  // CHARTER_CLI_COMMAND_H_
