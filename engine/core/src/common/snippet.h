// Source lines with a span underlined: the one renderer behind
// Diagnostics::Render and Explanation::ToText (defined in diagnostics.cc).
//
//      --> policies.cedar:38:8        (with `location`)
//      |
//   38 | when { resource.owner == principal };
//      |        ^^^^^^^^^^^^^^ false    (with a `label`)
#ifndef CHARTER_COMMON_SNIPPET_H_
#define CHARTER_COMMON_SNIPPET_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "charter/diagnostics.h"

namespace charter::internal {

struct SnippetStyle {
  // Lines of the span shown, from its first; each has its part underlined
  // (lines after the first from their first non-blank column).
  uint32_t max_lines = 1;
  // Begin with a "--> name:line:col" line.
  bool location = false;
  // Written after the last underline.
  std::optional<std::string_view> label;
  // ANSI colours, or empty: of the gutter (line numbers and bars), of the
  // underline and its label, and the reset after each.
  const char* gutter = "";
  const char* mark = "";
  const char* reset = "";
  // Whether the gutter's colour covers the blanks before its bar too
  // (diagnostics) or only the bar (explain).
  bool colour_blanks = true;
};

// Appends the snippet of `span` in `source`, every line ending in '\n'.
// Returns the width of the line-number column, for the lines a caller adds
// below in the same gutter ("  = help: ...").
size_t AppendSnippet(std::string* out, const SourceFile& source, Span span,
                     const SnippetStyle& style);

}  // namespace charter::internal

#endif  // CHARTER_COMMON_SNIPPET_H_
