// Diagnostics: positions, and rendering with the source line and an underline.
#include "charter/diagnostics.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "absl/strings/cord.h"
#include "common/diagnostic_status.h"
#include "common/strings.h"
#include "common/utf8.h"

namespace charter {

using internal::Cat;
using internal::CatAppend;

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

SourceFile::Position SourceFile::PositionOf(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - line_starts_.begin());
  uint32_t start = line_starts_[line - 1];
  std::string_view before(text_.data() + start, offset - start);
  return {line, static_cast<uint32_t>(internal::CountScalars(before)) + 1};
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

std::string Diagnostics::Render(const SourceFile& source, bool color) const {
  std::string out;
  const char* red = color ? "\x1b[1;31m" : "";
  const char* blue = color ? "\x1b[1;34m" : "";
  const char* reset = color ? "\x1b[0m" : "";
  for (const Diagnostic& d : items_) {
    SourceFile::Position pos = source.PositionOf(d.span.begin);
    std::string_view line = source.Line(pos.line);
    std::string number = Cat(pos.line);
    std::string pad(number.size(), ' ');
    CatAppend(&out, Header(source, d, true), "\n");
    CatAppend(&out, blue, pad, " |", reset, "\n");
    CatAppend(&out, blue, number, " |", reset, " ", line, "\n");
    // The underline covers the span's part on its first line (at least one column).
    SourceFile::Position end = source.PositionOf(d.span.end);
    uint32_t line_len = static_cast<uint32_t>(internal::CountScalars(line));
    uint32_t last = end.line == pos.line ? end.column : line_len + 1;
    uint32_t width = last > pos.column ? last - pos.column : 1;
    std::string lead;
    // Keep tabs so that the underline lines up with the source line.
    uint32_t col = 1;
    for (char c : line) {
      if (col >= pos.column) break;
      if ((static_cast<unsigned char>(c) & 0xC0) == 0x80) continue;
      lead.push_back(c == '\t' ? '\t' : ' ');
      ++col;
    }
    while (col < pos.column) lead.push_back(' '), ++col;
    CatAppend(&out, blue, pad, " |", reset, " ", lead, red, std::string(width, '^'), reset,
                    "\n");
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
