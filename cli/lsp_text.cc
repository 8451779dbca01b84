// Positions in UTF-16 code units over UTF-8 text (lsp_text.h).
#include "lsp_text.h"

#include <algorithm>

namespace charter::cli::lsp {
namespace {

// The bytes and UTF-16 code units of the character that starts at `at`,
// which ends no later than `end`.
struct Char {
  size_t bytes;
  uint32_t units;
};

Char CharAt(std::string_view text, size_t at, size_t end) {
  unsigned char c = static_cast<unsigned char>(text[at]);
  size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
  if (at + n > end) return {1, 1};
  for (size_t i = 1; i < n; ++i) {
    if ((static_cast<unsigned char>(text[at + i]) & 0xC0) != 0x80) return {1, 1};
  }
  return {n, n == 4 ? 2u : 1u};
}

}  // namespace

LineIndex::LineIndex(std::string_view text) : text_(text) {
  starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      starts_.push_back(i + 1);
    } else if (text[i] == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
      starts_.push_back(i + 1);
    }
  }
}

size_t LineIndex::OffsetOf(Position p) const {
  if (p.line >= starts_.size()) return text_.size();
  size_t at = starts_[p.line];
  size_t end = p.line + 1 < starts_.size() ? starts_[p.line + 1] : text_.size();
  // Not into the line's terminator.
  while (end > at && (text_[end - 1] == '\n' || text_[end - 1] == '\r')) --end;
  uint32_t units = 0;
  while (at < end && units < p.character) {
    Char c = CharAt(text_, at, end);
    if (units + c.units > p.character) break;
    units += c.units;
    at += c.bytes;
  }
  return at;
}

Position LineIndex::PositionOf(size_t offset) const {
  offset = std::min(offset, text_.size());
  size_t line = static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), offset) - starts_.begin()) - 1;
  size_t at = starts_[line];
  uint32_t units = 0;
  while (at < offset) {
    Char c = CharAt(text_, at, text_.size());
    if (at + c.bytes > offset) break;  // an offset inside a character: its start
    units += c.units;
    at += c.bytes;
  }
  return Position{static_cast<uint32_t>(line), units};
}

void ApplyEdit(std::string* text, Position start, Position end, std::string_view with) {
  LineIndex index(*text);
  size_t b = index.OffsetOf(start);
  size_t e = index.OffsetOf(end);
  if (e < b) e = b;
  text->replace(b, e - b, with);
}

}  // namespace charter::cli::lsp
