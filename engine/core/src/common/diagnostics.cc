// Diagnostics: positions, and rendering with the source line and an underline.
#include "charter/diagnostics.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "absl/strings/cord.h"
#include "common/diagnostic_status.h"
#include "common/snippet.h"
#include "common/strings.h"
#include "common/utf8.h"

namespace charter {

using internal::Cat;
using internal::CatAppend;

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  uint32_t scalars = 0;
  for (uint32_t i = 0; i < text_.size(); ++i) {
    if (i % kBlock == 0) block_scalars_.push_back(scalars);
    if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++scalars;
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

// The scalar values of the text before byte `offset`.
uint32_t SourceFile::ScalarsBefore(uint32_t offset) const {
  uint32_t block = offset / kBlock;
  if (block >= block_scalars_.size()) block = block_scalars_.empty() ? 0 : block_scalars_.size() - 1;
  uint32_t from = block * kBlock;
  uint32_t base = block_scalars_.empty() ? 0 : block_scalars_[block];
  return base + static_cast<uint32_t>(internal::CountScalars(std::string_view(text_.data() + from, offset - from)));
}

SourceFile::Position SourceFile::PositionOf(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - line_starts_.begin());
  uint32_t start = line_starts_[line - 1];
  return {line, ScalarsBefore(offset) - ScalarsBefore(start) + 1};
}

std::string_view SourceFile::Line(uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  uint32_t start = line_starts_[line - 1];
  uint32_t end = line < line_starts_.size() ? line_starts_[line] - 1
                                            : static_cast<uint32_t>(text_.size());
  std::string_view s(text_.data() + start, end - start);
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

void Diagnostics::Error(std::string code, Span span, std::string message, std::string help) {
  items_.push_back(Diagnostic{Severity::kError, std::move(code), span, std::move(message),
                              std::move(help)});
}

bool Diagnostics::has_errors() const {
  return std::any_of(items_.begin(), items_.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::kError; });
}

namespace {

std::string Header(const SourceFile& source, const Diagnostic& d, bool with_code) {
  SourceFile::Position pos = source.PositionOf(d.span.begin);
  const char* kind = d.severity == Severity::kError ? "error" : "warning";
  if (with_code) {
    return Cat(source.name(), ":", pos.line, ":", pos.column, ": ", kind, "[", d.code,
                        "]: ", d.message);
  }
  return Cat(source.name(), ":", pos.line, ":", pos.column, ": ", d.message);
}

}  // namespace

namespace internal {

namespace {

// Lines longer than this (in Unicode scalars) are shown as a window of this
// many, starting this many before the span.
constexpr uint32_t kMaxShownColumns = 160;
constexpr uint32_t kColumnsBeforeSpan = 40;

// The byte offset of 1-based column `column` (in scalars) of `line`; its
// size for a column past the end.
size_t ByteOfColumn(std::string_view line, uint32_t column) {
  uint32_t col = 1;
  for (size_t i = 0; i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) continue;
    if (col == column) return i;
    ++col;
  }
  return line.size();
}

}  // namespace

size_t AppendSnippet(std::string* out, const SourceFile& source, Span span,
                     const SnippetStyle& style) {
  const char* gutter = style.gutter;
  const char* reset = style.reset;
  SourceFile::Position pos = source.PositionOf(span.begin);
  SourceFile::Position end = source.PositionOf(span.end);
  uint32_t last_line = std::max(pos.line, std::min(end.line, pos.line + style.max_lines - 1));
  std::string pad(Cat(last_line).size(), ' ');
  auto bar = [&] {
    if (style.colour_blanks) {
      CatAppend(out, gutter, pad, " |", reset);
    } else {
      CatAppend(out, pad, " ", gutter, "|", reset);
    }
  };
  if (style.location) {
    CatAppend(out, pad, gutter, "--> ", reset, source.name(), ":", pos.line, ":", pos.column, "\n");
  }
  bar();
  out->push_back('\n');
  for (uint32_t n = pos.line; n <= last_line; ++n) {
    std::string_view line = source.Line(n);
    uint32_t line_len = static_cast<uint32_t>(CountScalars(line));
    // Columns [from, to) of this line are in the span; the first and the
    // last line only in part, lines between from their first non-blank.
    uint32_t from = n == pos.line
                        ? pos.column
                        : static_cast<uint32_t>(CountScalars(line.substr(
                              0, std::min(line.find_first_not_of(" \t"), line.size())))) + 1;
    uint32_t to = n == end.line ? end.column : line_len + 1;
    if (to <= from) to = from + 1;
    // A long line is shown as a window of it, from a little before the
    // span: columns [first, last), with `…` where it is cut, so that a
    // diagnostic on a huge one-line file stays a few lines long.
    uint32_t first = 1, last = line_len + 1;
    if (line_len > kMaxShownColumns) {
      first = from > kColumnsBeforeSpan ? from - kColumnsBeforeSpan : 1;
      last = std::min(line_len + 1, first + kMaxShownColumns);
    }
    size_t first_byte = ByteOfColumn(line, first), last_byte = ByteOfColumn(line, last);
    // Control bytes of the source (but tabs) are shown as their Unicode
    // pictures (ESC as U+241B, DEL as U+2421), one column each, so that a
    // policy file cannot send escape sequences to the terminal of whoever
    // checks it, and the underline still lines up.
    std::string shown = first > 1 ? "…" : "";
    for (char c : line.substr(first_byte, last_byte - first_byte)) {
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\t') || u == 0x7F) {
        AppendUtf8(&shown, u == 0x7F ? 0x2421 : 0x2400 + u);
      } else {
        shown.push_back(c);
      }
    }
    if (last <= line_len) shown += "…";
    // Keep tabs so that the underline lines up with the source line.
    std::string lead(first > 1 ? 1 : 0, ' ');
    uint32_t col = first;
    for (char c : line.substr(first_byte)) {
      if (col >= from) break;
      if ((static_cast<unsigned char>(c) & 0xC0) == 0x80) continue;
      lead.push_back(c == '\t' ? '\t' : ' ');
      ++col;
    }
    while (col < from) lead.push_back(' '), ++col;
    std::string number = Cat(n);
    number.resize(pad.size(), ' ');
    CatAppend(out, gutter, number, " |", reset, " ", shown, "\n");
    bar();
    CatAppend(out, " ", lead, style.mark, std::string(std::min(to, std::max(last, from + 1)) - from, '^'));
    if (n == last_line && style.label.has_value()) CatAppend(out, " ", *style.label);
    CatAppend(out, reset, "\n");
  }
  return pad.size();
}

}  // namespace internal

std::string Diagnostics::Render(const SourceFile& source, bool color) const {
  std::string out;
  const char* blue = color ? "\x1b[1;34m" : "";
  const char* reset = color ? "\x1b[0m" : "";
  internal::SnippetStyle style;
  style.gutter = blue;
  style.mark = color ? "\x1b[1;31m" : "";
  style.reset = reset;
  for (const Diagnostic& d : items_) {
    CatAppend(&out, Header(source, d, true), "\n");
    // The underline covers the span's part on its first line (at least one column).
    std::string pad(internal::AppendSnippet(&out, source, d.span, style), ' ');
    if (!d.help.empty()) CatAppend(&out, blue, pad, " = ", reset, "help: ", d.help, "\n");
  }
  return out;
}

std::string Diagnostics::RenderShort(const SourceFile& source) const {
  std::string out;
  for (const Diagnostic& d : items_) CatAppend(&out, Header(source, d, false), "\n");
  return out;
}

std::string Diagnostics::FirstErrorLine(const SourceFile& source, size_t from) const {
  for (size_t i = from; i < items_.size(); ++i) {
    if (items_[i].severity == Severity::kError) return Header(source, items_[i], false);
  }
  return "";
}

namespace {

// The payload of a status that carries a Diagnostic: "CODE SEVERITY BEGIN END
// MESSAGE_SIZE HELP_SIZE\n" and then the message and the help, which may hold
// any byte.
constexpr char kDiagnosticPayload[] = "charter/Diagnostic";

}  // namespace

namespace internal {

void AttachDiagnostic(absl::Status* status, const Diagnostic& d) {
  if (status->ok()) return;
  status->SetPayload(kDiagnosticPayload,
                     absl::Cord(Cat(d.code, " ", d.severity == Severity::kError ? 0 : 1, " ",
                                    d.span.begin, " ", d.span.end, " ", d.message.size(), " ",
                                    d.help.size(), "\n", d.message, d.help)));
}

}  // namespace internal

std::optional<Diagnostic> DiagnosticOf(const absl::Status& status) {
  auto payload = status.GetPayload(kDiagnosticPayload);
  if (!payload.has_value()) return std::nullopt;
  std::string text(*payload);
  size_t newline = text.find('\n');
  if (newline == std::string::npos) return std::nullopt;
  char code[16] = {};
  int severity = 0;
  unsigned long begin = 0, end = 0, message_size = 0, help_size = 0;
  std::string head = text.substr(0, newline);
  if (std::sscanf(head.c_str(), "%15s %d %lu %lu %lu %lu", code, &severity, &begin, &end,
                  &message_size, &help_size) != 6 ||
      message_size + help_size != text.size() - newline - 1) {
    return std::nullopt;
  }
  Diagnostic d;
  d.severity = severity == 0 ? Severity::kError : Severity::kWarning;
  d.code = code;
  d.span = Span{static_cast<uint32_t>(begin), static_cast<uint32_t>(end)};
  d.message = text.substr(newline + 1, message_size);
  d.help = text.substr(newline + 1 + message_size, help_size);
  return d;
}

}  // namespace charter
