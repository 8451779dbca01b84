// String concatenation over std::string_view, for the engine and for the
// tools built beside it (the CLI), which share these header-only helpers
// but not the engine's internals. Debian's abseil is built with its own
// absl::string_view (ABSL_OPTION_USE_STD_STRING_VIEW 0), so absl::StrCat
// does not take std::string_view; Cat converts on the way in.
#ifndef CHARTER_SUPPORT_STRINGS_H_
#define CHARTER_SUPPORT_STRINGS_H_

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace charter::support {

template <typename T>
const T& ForCat(const T& v) {
  return v;
}
inline absl::string_view ForCat(std::string_view s) { return absl::string_view(s.data(), s.size()); }

template <typename... Args>
std::string Cat(const Args&... args) {
  return absl::StrCat(ForCat(args)...);
}

template <typename... Args>
void CatAppend(std::string* out, const Args&... args) {
  absl::StrAppend(out, ForCat(args)...);
}

inline std::string_view ToStd(absl::string_view s) { return std::string_view(s.data(), s.size()); }

// A std::string from any of the string types a caller meets here: std's and
// abseil's views (distinct types in Debian's abseil), strings, C strings.
inline std::string S(std::string_view s) { return std::string(s); }
inline std::string S(absl::string_view s) { return std::string(s); }
inline std::string S(const std::string& s) { return s; }
inline std::string S(const char* s) { return s; }

// `text` on one line, for a log line or a message that must be one: line
// breaks at the end dropped, those inside made spaces.
inline std::string OneLine(std::string_view text) {
  std::string out(text);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}
inline std::string OneLine(absl::string_view text) { return OneLine(ToStd(text)); }
inline std::string OneLine(const std::string& text) { return OneLine(std::string_view(text)); }
inline std::string OneLine(const char* text) { return OneLine(std::string_view(text)); }

}  // namespace charter::support

#endif  // CHARTER_SUPPORT_STRINGS_H_
