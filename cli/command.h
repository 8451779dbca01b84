// Commands of the `charter` tool. Each command lives in its own file and
// registers itself on the root CLI11 app: it adds a subcommand with its flags
// and returns the function that runs it once the command line has parsed.
// main.cc owns parsing, dispatch and the exception barrier.
#ifndef CHARTER_CLI_COMMAND_H_
#define CHARTER_CLI_COMMAND_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"

namespace charter {
class Schema;
}

namespace charter::cli {

// Shared by the review commands (access.cc): today's date in UTC
// (YYYY-MM-DD), and the standard model's schema built into the library.
std::string TodayUtc();
absl::StatusOr<Schema> StandardSchema();

// A registered command: its CLI11 subcommand and what runs it. `run` returns
// the process exit code (see report.h).
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// Option checks whose messages say what is wrong with the value, for
// `->check(...)`; CLI11 puts the flag in front ("--iterations: ...").

// A whole number from `lo` to `hi`: "`many` is not a whole number from 1 to 100".
inline CLI::Validator WholeNumber(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& value) -> std::string {
        size_t digits = value.size() > 0 && (value[0] == '-' || value[0] == '+') ? 1 : 0;
        bool number = value.size() > digits && value.size() <= digits + 18 &&
                      value.find_first_not_of("0123456789", digits) == std::string::npos;
        if (number) {
          int64_t n = std::stoll(value);
          if (n >= lo && n <= hi) return "";
        }
        return "`" + value + "` is not a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
      },
      "INT in [" + std::to_string(lo) + " - " + std::to_string(hi) + "]");
}

// One of `words`: "`yaml` is not one of text, json, jsonl".
inline CLI::Validator OneOf(std::vector<std::string> words) {
  std::string list, brief;
  for (const std::string& w : words) {
    list += (list.empty() ? "" : ", ") + w;
    brief += (brief.empty() ? "" : ",") + w;
  }
  return CLI::Validator(
      [words, list](std::string& value) -> std::string {
        for (const std::string& w : words) {
          if (value == w) return "";
        }
        return "`" + value + "` is not one of " + list;
      },
      "{" + brief + "}");
}

Command AddAccessCommand(CLI::App& root);
Command AddAdmitCommand(CLI::App& root);
Command AddAuditCommand(CLI::App& root);
Command AddAuthorizeCommand(CLI::App& root);
Command AddBenchCommand(CLI::App& root);
Command AddBuildCommand(CLI::App& root);
Command AddCheckCommand(CLI::App& root);
Command AddFmtCommand(CLI::App& root);
Command AddLspCommand(CLI::App& root);
Command AddTestCommand(CLI::App& root);
Command AddProveCommand(CLI::App& root);
Command AddReplCommand(CLI::App& root);
Command AddVersionCommand(CLI::App& root);
Command AddExplainCommand(CLI::App& root);
Command AddDisasmCommand(CLI::App& root);
Command AddScheduleCommand(CLI::App& root);
Command AddSimulateCommand(CLI::App& root);
Command AddServeCommand(CLI::App& root);
Command AddImportCommand(CLI::App& root);
Command AddExportCommand(CLI::App& root);
Command AddQueryCommand(CLI::App& root);
Command AddDiffCommand(CLI::App& root);

}  // namespace charter::cli

#endif  // CHARTER_CLI_COMMAND_H_
