// UTF-8 helpers shared by the parsers and the diagnostics renderer.
#ifndef CHARTER_COMMON_UTF8_H_
#define CHARTER_COMMON_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace charter::internal {

// Returns the byte offset of the first invalid UTF-8 sequence, or npos.
size_t FindInvalidUtf8(std::string_view s);

// Appends the UTF-8 encoding of a Unicode scalar value.
void AppendUtf8(std::string* out, uint32_t code_point);

// Number of Unicode scalar values in valid UTF-8 text.
size_t CountScalars(std::string_view s);

// `text` with every control character (C0 but tab, DEL, and C1 written in
// UTF-8) escaped as Cedar escapes it in a string (\n, \r, \0, \u{1b}), so
// that a name from the input (a policy id, an attribute) can neither split
// a line of output nor send escape sequences to a terminal. With
// keep_newlines, line breaks stay (those of a multi-line message). (The
// CLI, which uses only the public API, has its own: Printable, cli/report.h.)
std::string EscapeControls(std::string_view text, bool keep_newlines = false);

}  // namespace charter::internal

#endif  // CHARTER_COMMON_UTF8_H_
