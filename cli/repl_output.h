// What the REPL prints: results on stdout at once (a session is
// interactive), errors as `error: ...` lines, never exiting on one.
#ifndef CHARTER_CLI_REPL_OUTPUT_H_
#define CHARTER_CLI_REPL_OUTPUT_H_

#include <string>

#include "absl/status/status.h"

namespace charter::cli {

void Out(const std::string& s);
// "error: MESSAGE" on one line.
void Error(const std::string& message);
// Each line of the status's message as an error; nothing when it is OK.
void Report(const absl::Status& s);
// Whether stdout is a terminal that takes colour (and NO_COLOR is unset).
bool ColorOnStdout();

}  // namespace charter::cli

#endif  // CHARTER_CLI_REPL_OUTPUT_H_
