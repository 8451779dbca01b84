// Spans of JSON values, and faults in JSON input as statuses that carry
// their Diagnostic.
#include "json/json_diagnostics.h"

#include <algorithm>

#include "common/diagnostic_status.h"
#include "common/strings.h"

namespace charter::internal::json {
namespace {

// One past the closing quote of the string that opens at `begin`.
uint32_t StringEnd(std::string_view text, uint32_t begin) {
  uint32_t i = begin + 1;
  while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
  return std::min<uint32_t>(i + 1, static_cast<uint32_t>(text.size()));
}

// The end of a number or a literal (true, false, null) at `begin`.
uint32_t ScalarEnd(std::string_view text, uint32_t begin) {
  uint32_t end = begin;
  while (end < text.size() &&
         std::string_view("+-.0123456789eEtrufalsn").find(text[end]) != std::string_view::npos) {
    ++end;
  }
  return std::max(end, begin + 1);
}

}  // namespace

Span ValueSpan(std::string_view text, uint32_t offset) {
  if (offset >= text.size()) return {offset, offset};
  char c = text[offset];
  if (c == '"') return {offset, StringEnd(text, offset)};
  if (c != '{' && c != '[') return {offset, std::min<uint32_t>(ScalarEnd(text, offset), text.size())};
  uint32_t depth = 0;
  for (uint32_t i = offset; i < text.size(); ++i) {
    char d = text[i];
    if (d == '"') {
      i = StringEnd(text, i) - 1;
    } else if (d == '{' || d == '[') {
      ++depth;
    } else if ((d == '}' || d == ']') && --depth == 0) {
      return {offset, i + 1};
    }
  }
  return {offset, offset + 1};
}

Span KeySpan(std::string_view text, uint32_t offset) {
  if (offset >= text.size()) return {offset, offset};
  return {offset, StringEnd(text, offset)};
}

Span FaultSpan(std::string_view text, const ParseFault& fault) {
  uint32_t at = std::min<uint32_t>(fault.offset, static_cast<uint32_t>(text.size()));
  return {at, std::min<uint32_t>(at + 1, static_cast<uint32_t>(text.size()))};
}

Extents::Extents(std::string_view text) : text_(text) {
  std::vector<uint32_t> open;
  for (uint32_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      i = StringEnd(text, i) - 1;
    } else if (c == '{' || c == '[') {
      open.push_back(static_cast<uint32_t>(containers_.size()));
      containers_.push_back({i, i + 1});
    } else if ((c == '}' || c == ']') && !open.empty()) {
      containers_[open.back()].second = i + 1;
      open.pop_back();
    }
  }
}

Span Extents::Of(const Value& v) const {
  uint32_t begin = v.offset();
  if (begin >= text_.size()) return {begin, begin};
  char c = text_[begin];
  if (c == '{' || c == '[') {
    auto it = std::lower_bound(containers_.begin(), containers_.end(), begin,
                               [](const std::pair<uint32_t, uint32_t>& p, uint32_t at) {
                                 return p.first < at;
                               });
    if (it != containers_.end() && it->first == begin) return {begin, it->second};
    return {begin, begin + 1};
  }
  if (c == '"') return {begin, StringEnd(text_, begin)};
  return {begin, ScalarEnd(text_, begin)};
}

absl::Status FaultStatus(std::string_view source_name, std::string_view text, const char* code,
                         Span span, std::string_view message, std::string_view help) {
  absl::Status status =
      absl::InvalidArgumentError(Cat(source_name, ":", LineCol(text, span.begin), ": ", message));
  AttachDiagnostic(&status, Diagnostic{Severity::kError, code, span, std::string(message),
                                       std::string(help)});
  return status;
}

absl::Status ParseFaultStatus(std::string_view source_name, std::string_view text,
                              const ParseFault& fault, const char* code, const char* nesting_code) {
  bool nesting = std::string_view(fault.message).rfind("nesting deeper than", 0) == 0;
  return FaultStatus(source_name, text, nesting ? nesting_code : code, FaultSpan(text, fault),
                     fault.message);
}

}  // namespace charter::internal::json
