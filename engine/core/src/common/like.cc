// The linear substring search under `like` (common/like.h).
#include "common/like.h"

#include <cstdint>
#include <cstring>

namespace charter::internal {

namespace {

// Knuth-Morris-Pratt from `from`: linear in the text after `from` and the
// needle.
size_t FindKmp(std::string_view text, size_t from, std::string_view needle) {
  const size_t m = needle.size();
  std::vector<uint32_t> border(m, 0);  // border[k]: the longest proper border of needle[0..k]
  for (size_t k = 1, b = 0; k < m; ++k) {
    while (b > 0 && needle[k] != needle[b]) b = border[b - 1];
    if (needle[k] == needle[b]) ++b;
    border[k] = static_cast<uint32_t>(b);
  }
  for (size_t i = from, q = 0; i < text.size(); ++i) {
    while (q > 0 && text[i] != needle[q]) q = border[q - 1];
    if (text[i] == needle[q]) ++q;
    if (q == m) return i + 1 - m;
  }
  return std::string_view::npos;
}

}  // namespace

size_t FindLiteral(std::string_view text, size_t from, std::string_view needle) {
  const size_t m = needle.size();
  if (from > text.size()) return std::string_view::npos;
  if (m == 0) return from;
  if (text.size() - from < m) return std::string_view::npos;
  const size_t last = text.size() - m;  // the last place the needle may start
  // The plain search: memchr to each candidate first byte, then a compare.
  // Its work is bounded by a few times the text passed plus the needle; a
  // text and needle made to defeat it (`aaa...a` against `aa...ab`) go to
  // KMP from where it stopped, no occurrence being before.
  size_t work = 0;
  size_t p = from;
  while (p <= last) {
    const void* hit = std::memchr(text.data() + p, needle[0], last - p + 1);
    if (hit == nullptr) return std::string_view::npos;
    p = static_cast<size_t>(static_cast<const char*>(hit) - text.data());
    if (std::memcmp(text.data() + p + 1, needle.data() + 1, m - 1) == 0) return p;
    work += m;
    if (work > 4 * (p - from + m)) return FindKmp(text, p, needle);
    ++p;
  }
  return std::string_view::npos;
}

}  // namespace charter::internal
