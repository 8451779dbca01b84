// Places in the policy text, as explain reports them.
#include "explain/source_text.h"

namespace charter::internal {

SourceRange RangeOf(const SourceFile& source, Span span) {
  SourceFile::Position p = source.PositionOf(span.begin);
  return SourceRange{span, p.line, p.column};
}

std::string TextOf(const SourceFile& source, Span span) {
  std::string_view text = source.text();
  if (span.begin > span.end || span.end > text.size()) return "";
  std::string out;
  bool space = false;
  for (char c : text.substr(span.begin, span.end - span.begin)) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace charter::internal
