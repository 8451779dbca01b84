// How a name is written in .charter and Cedar text, shared by the printers
// (language/print.cc, format/format.cc, the query's residuals, the schema
// printer) and the JSON policy reader, so that what one writes the others
// leave as it is.
#ifndef CHARTER_COMMON_NAMES_H_
#define CHARTER_COMMON_NAMES_H_

#include <string_view>

namespace charter::internal {

// Whether `s` has an identifier's shape: a letter or `_`, then letters,
// digits and `_`.
inline bool IsIdentifierShaped(std::string_view s) {
  auto start = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (s.empty() || !start(s[0])) return false;
  for (char c : s) {
    if (!start(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

// Whether `s` may stand bare as a name in .charter text (a scheduling
// declaration's name): an identifier that the lexer does not read as one of
// its keywords. Any other name is written as a string.
inline bool IsBareCharterName(std::string_view s) {
  for (std::string_view k : {"permit", "forbid", "when", "unless", "principal", "action", "resource", "context",
                             "true", "false", "if", "then", "else", "in", "has", "like", "is"}) {
    if (s == k) return false;
  }
  return IsIdentifierShaped(s);
}

// Whether `s` may stand bare as an attribute name or record key in Cedar
// text: an identifier that is not one of Cedar's reserved words. Any other
// name is written as a string (`["b c"]`, `{"if": 1}`).
inline bool IsBareCedarName(std::string_view s) {
  for (std::string_view r : {"true", "false", "if", "then", "else", "in", "is", "like", "has", "__cedar"}) {
    if (s == r) return false;
  }
  return IsIdentifierShaped(s);
}

}  // namespace charter::internal

#endif  // CHARTER_COMMON_NAMES_H_
