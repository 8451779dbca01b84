// The formatters' layout engine: a Wadler-style document (text, line
// breaks, groups that break as a whole, indentation) laid out to a line
// width, and the scan that finds the `//` comments a lexer skips. Shared by
// the policy formatter (format.cc) and the schema formatter
// (schema_format.cc).
#ifndef CHARTER_FORMAT_DOCUMENT_H_
#define CHARTER_FORMAT_DOCUMENT_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "charter/diagnostics.h"
#include "common/utf8.h"

namespace charter::internal {

// ---- the document ----------------------------------------------------------

enum class DocKind : uint8_t {
  kText,      // text, on one line
  kLine,      // a space, or a line break when its group breaks
  kSoftLine,  // nothing, or a line break when its group breaks
  kComment,   // a `//` comment, always followed by a line break
  kGroup,     // kids laid out flat if they fit, else broken
  kIndent,    // kids with the indentation one step deeper
  kConcat,    // kids
  kIfBreak,   // text written only when its group breaks (a trailing comma)
  kHardLine,  // always a line break; the groups around it break
};

struct DocNode {
  DocKind kind = DocKind::kConcat;
  std::string text;
  bool trailing = false;  // a comment that followed code on its line
  std::vector<int> kids;
};

constexpr size_t kUnbounded = std::numeric_limits<size_t>::max() / 4;

class Document {
 public:
  int Text(std::string s) { return Add(DocKind::kText, std::move(s), {}); }
  int Line() { return Add(DocKind::kLine, "", {}); }
  int SoftLine() { return Add(DocKind::kSoftLine, "", {}); }
  int Comment(std::string text, bool trailing) {
    int id = Add(DocKind::kComment, std::move(text), {});
    nodes_[id].trailing = trailing;
    return id;
  }
  int Group(std::vector<int> kids) { return Add(DocKind::kGroup, "", std::move(kids)); }
  int Indent(std::vector<int> kids) { return Add(DocKind::kIndent, "", std::move(kids)); }
  int Concat(std::vector<int> kids) { return Add(DocKind::kConcat, "", std::move(kids)); }
  int HardLine() { return Add(DocKind::kHardLine, "", {}); }
  int IfBreak(std::string s) { return Add(DocKind::kIfBreak, std::move(s), {}); }

  // Lays out `root` starting at column `indent` (the caller writes nothing
  // before it: the indentation is part of the result).
  std::string Render(int root, int line_width, int indent_width, size_t indent = 0);

 private:
  int Add(DocKind kind, std::string text, std::vector<int> kids) {
    DocNode n;
    n.kind = kind;
    n.text = std::move(text);
    n.kids = std::move(kids);
    // INVARIANT: kids are created before their parent, so widths can be
    // computed in one pass in creation order.
    size_t w = 0;
    switch (kind) {
      case DocKind::kText: w = CountScalars(n.text); break;
      case DocKind::kLine: w = 1; break;
      case DocKind::kSoftLine:
      case DocKind::kIfBreak: w = 0; break;
      case DocKind::kComment:
      case DocKind::kHardLine: w = kUnbounded; break;
      default:
        for (int k : n.kids) w = std::min(kUnbounded, w + widths_[static_cast<size_t>(k)]);
        break;
    }
    nodes_.push_back(std::move(n));
    widths_.push_back(w);
    return static_cast<int>(nodes_.size() - 1);
  }

  std::vector<DocNode> nodes_;
  std::vector<size_t> widths_;  // flat width; kUnbounded if it holds a comment
};

// ---- comments --------------------------------------------------------------

struct SourceComment {
  uint32_t begin = 0;
  uint32_t end = 0;
  bool trailing = false;      // code before it on its line
  bool blank_before = false;  // an empty line between it and what precedes it
};

// The `//` comments of text that parsed, in order (the lexer skips them).
std::vector<SourceComment> FindComments(std::string_view text);

// Whether an empty line precedes the code at `pos` of `text`.
bool BlankBefore(std::string_view text, uint32_t pos);

// The offset of the first character at or after `pos` of `text` that is
// neither white space nor in a `//` comment (nor, with `closers`, a `)`).
uint32_t NextCode(std::string_view text, uint32_t pos, bool closers = false);

// A comment's text without the blanks at its end.
std::string TrimmedComment(std::string_view text, const SourceComment& c);

// Where the comments of `formatted` differ from those of `input` (the same
// texts, in the same order): a span of the input and a message, or an empty
// message when they agree. Each formatter checks its output with it.
std::pair<Span, std::string> CommentDifference(std::string_view input, std::string_view formatted);

}  // namespace charter::internal

#endif  // CHARTER_FORMAT_DOCUMENT_H_
