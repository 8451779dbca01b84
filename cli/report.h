// How the `charter` tool talks back: exit codes, one-line error and warning
// messages on stderr, and all-or-nothing writes of results to stdout.
#ifndef CHARTER_CLI_REPORT_H_
#define CHARTER_CLI_REPORT_H_

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "charter/entity_uid.h"

namespace charter::cli {

// Exit codes. `authorize` on one request exits kAllow or kDeny; everything
// else exits kOk or kError.
inline constexpr int kOk = 0;
inline constexpr int kAllow = 0;
inline constexpr int kError = 1;
inline constexpr int kDeny = 2;

// `text` with every line break replaced by a space, so that one fault is one
// line of output.
std::string OneLine(absl::string_view text);

// `text` with every control character (C0 but tab, DEL, and C1 written in
// UTF-8) escaped as Cedar escapes it in a string (\n, \r, \0, \u{1b}), so
// that a name from the input (a policy id, an entity id) can neither split
// a line of output nor send escape sequences to the terminal. With
// keep_newlines, newlines stay (the line breaks of a multi-line message).
std::string Printable(absl::string_view text, bool keep_newlines = false);

// "path: message", unless the message already starts with "path:".
std::string WithPath(absl::string_view path, absl::string_view message);

// Prints each line of `message` as "charter: error: LINE" on stderr. A
// message of several lines reports several faults (see load.h).
void PrintError(absl::string_view message);
void PrintWarning(absl::string_view message);
void PrintNote(absl::string_view message);

// Prints the status's message as errors (see PrintError) and returns kError.
int Fail(const absl::Status& status);

// Writes `text` to stdout in one piece and flushes it. On failure reports
// "charter: error: cannot write to stdout: ..." and returns false.
bool WriteStdout(absl::string_view text);

// Appends `uid` in Cedar's JSON form, {"type": ..., "id": ...}: how every
// `--format json` output writes a uid that is a field of its own.
void AppendUidJson(std::string* out, const EntityUid& uid);

}  // namespace charter::cli

#endif  // CHARTER_CLI_REPORT_H_
