// What the REPL prints: results on stdout at once (a session is
// interactive), errors as `error: ...` lines, never exiting on one.
#ifndef CHARTER_CLI_REPL_OUTPUT_H_
#define CHARTER_CLI_REPL_OUTPUT_H_

#include <csignal>
#include <string>

#include "absl/status/status.h"

namespace charter::cli {

void Out(const std::string& s);
// Long output: through the pager ($PAGER, else `less -FRX`) when stdin and
// stdout are terminals and `s` has more lines than the screen; else Out.
void Page(const std::string& s);
// "error: MESSAGE" on one line.
void Error(const std::string& message);
// Each line of the status's message as an error; nothing when it is OK.
void Report(const absl::Status& s);
// Whether stdout is a terminal that takes colour (and NO_COLOR is unset).
bool ColorOnStdout();

// Set by Ctrl-C on a terminal (repl.cc's handler), cleared before each
// line is read and each entry runs: what runs long checks Interrupted()
// between its steps and stops.
volatile std::sig_atomic_t& InterruptFlag();
inline bool Interrupted() { return InterruptFlag() != 0; }
// "1 policy", "3 policies".
std::string Count(size_t n, const char* one, const char* many);

}  // namespace charter::cli

#endif  // CHARTER_CLI_REPL_OUTPUT_H_
