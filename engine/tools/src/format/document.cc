// The layout engine and the comment scan of the formatters (document.h).
#include "format/document.h"

#include <string>
#include <string_view>
#include <vector>

namespace charter::internal {

std::string Document::Render(int root, int line_width, int indent_width, size_t start) {
  std::string out(start, ' ');
  size_t column = start;
  bool line_has_content = false;
  // A line break to `indent`. Right after another break it only moves the
  // indentation, so that breaks never make empty lines.
  auto new_line = [&](size_t indent) {
    while (!out.empty() && out.back() == ' ') out.pop_back();
    if (line_has_content) out.push_back('\n');
    out.append(indent, ' ');
    column = indent;
    line_has_content = false;
  };
  struct Frame {
    int node;
    size_t indent;
    bool flat;
  };
  std::vector<Frame> stack{{root, start, false}};
  while (!stack.empty()) {
    Frame f = stack.back();
    stack.pop_back();
    const DocNode& n = nodes_[static_cast<size_t>(f.node)];
    switch (n.kind) {
      case DocKind::kText:
        if (n.text.empty()) break;
        out += n.text;
        column += widths_[static_cast<size_t>(f.node)];
        line_has_content = true;
        break;
      case DocKind::kLine:
      case DocKind::kSoftLine:
        if (!f.flat) {
          new_line(f.indent);
        } else if (n.kind == DocKind::kLine && line_has_content) {
          out.push_back(' ');
          ++column;
        }
        break;
      case DocKind::kHardLine:
        new_line(f.indent);
        break;
      case DocKind::kIfBreak:
        if (!f.flat && !n.text.empty()) {
          out += n.text;
          column += n.text.size();
          line_has_content = true;
        }
        break;
      case DocKind::kComment:
        if (line_has_content) {
          if (n.trailing) {
            while (!out.empty() && out.back() == ' ') out.pop_back();
            out.push_back(' ');
          } else {
            new_line(f.indent);
          }
        }
        out += n.text;
        line_has_content = true;
        new_line(f.indent);
        break;
      case DocKind::kGroup:
      case DocKind::kIndent:
      case DocKind::kConcat: {
        bool flat = f.flat;
        size_t indent = f.indent;
        if (n.kind == DocKind::kGroup && !flat) {
          size_t w = widths_[static_cast<size_t>(f.node)];
          flat = w != kUnbounded && column + w <= static_cast<size_t>(line_width);
        }
        if (n.kind == DocKind::kIndent) indent += static_cast<size_t>(indent_width);
        for (size_t i = n.kids.size(); i-- > 0;) stack.push_back({n.kids[i], indent, flat});
        break;
      }
    }
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  return out;
}

// The `//` comments of text that parsed, in order (the lexer skips them).
std::vector<SourceComment> FindComments(std::string_view text) {
  std::vector<SourceComment> comments;
  bool line_has_code = false;
  int newlines = 0;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '"') {
      ++i;
      while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
      ++i;
      line_has_code = true;
      newlines = 0;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      size_t end = text.find_first_of("\r\n", i);
      if (end == std::string_view::npos) end = text.size();
      SourceComment sc;
      sc.begin = static_cast<uint32_t>(i);
      sc.end = static_cast<uint32_t>(end);
      sc.trailing = line_has_code;
      sc.blank_before = newlines >= 2;
      comments.push_back(sc);
      i = end;
      newlines = 0;
    } else {
      if (c == '\n') {
        ++newlines;
        line_has_code = false;
      } else if (c != ' ' && c != '\t' && c != '\r' && c != '\f') {
        line_has_code = true;
        newlines = 0;
      }
      ++i;
    }
  }
  return comments;
}
bool BlankBefore(std::string_view text, uint32_t pos) {
  int newlines = 0;
  for (size_t i = std::min<size_t>(pos, text.size()); i-- > 0;) {
    char c = text[i];
    if (c == '\n') {
      if (++newlines >= 2) return true;
    } else if (c != ' ' && c != '\t' && c != '\r' && c != '\f') {
      return false;
    }
  }
  return false;
}

uint32_t NextCode(std::string_view text, uint32_t pos, bool closers) {
  size_t i = pos;
  while (i < text.size()) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || (closers && c == ')')) {
      ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      size_t end = text.find('\n', i);
      i = end == std::string_view::npos ? text.size() : end;
    } else {
      break;
    }
  }
  return static_cast<uint32_t>(i);
}

std::string TrimmedComment(std::string_view text, const SourceComment& c) {
  std::string_view t = text.substr(c.begin, c.end - c.begin);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\f')) t.remove_suffix(1);
  return std::string(t);
}

std::pair<Span, std::string> CommentDifference(std::string_view input, std::string_view formatted) {
  std::vector<SourceComment> before = FindComments(input);
  std::vector<SourceComment> after = FindComments(formatted);
  for (size_t i = 0; i < before.size(); ++i) {
    if (i >= after.size() || TrimmedComment(input, before[i]) != TrimmedComment(formatted, after[i])) {
      return {Span{before[i].begin, before[i].end}, "the formatted text would not keep this comment"};
    }
  }
  if (after.size() != before.size()) return {Span{}, "the formatted text would hold more comments than the input"};
  return {Span{}, ""};
}

}  // namespace charter::internal
