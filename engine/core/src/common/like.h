// Cedar's `like`, written once for the VM, the reference interpreter and
// explain: `*` matches any run of characters, the match is anchored at both
// ends, and the cost is linear in the text and the pattern, whatever they
// hold (the classic star-backtracking match is O(text x pattern)).
#ifndef CHARTER_COMMON_LIKE_H_
#define CHARTER_COMMON_LIKE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace charter::internal {

// The first occurrence of `needle` in `text` at or after `from`, or npos.
// Linear in the text searched and the needle: a plain search while its work
// stays within a few times that, then Knuth-Morris-Pratt (which allocates
// its table only then).
size_t FindLiteral(std::string_view text, size_t from, std::string_view needle);

// Whether `s` matches `parts`, a sequence of elements each with `bool
// wildcard` and a `literal` (std::string or std::string_view) that counts
// when it is not a wildcard. Adjacent literals match as their concatenation
// and adjacent wildcards as one, so that a pattern from any source (text,
// JSON, a bundle) means what it says. Bytewise, which is exact for UTF-8: a
// literal (valid UTF-8) can only match where a character starts.
//
// The literals before the first `*` must start `s` and those after the
// last end it; each run between stars is then found left to right, in the
// text between, by FindLiteral: taking the leftmost occurrence of each run
// never loses a match.
template <typename Part>
bool MatchLike(std::string_view s, const std::vector<Part>& parts) {
  const size_t n = parts.size();
  std::string joined;  // used only for adjacent literals
  // The literals of parts [b, e), which hold no wildcard, as one string.
  auto run = [&](size_t b, size_t e) -> std::string_view {
    if (e - b == 1) return parts[b].literal;
    joined.clear();
    for (size_t k = b; k < e; ++k) joined.append(parts[k].literal);
    return joined;
  };
  size_t first_star = 0;
  while (first_star < n && !parts[first_star].wildcard) ++first_star;
  if (first_star == n) return n == 0 ? s.empty() : s == run(0, n);
  size_t last_star = n - 1;
  while (!parts[last_star].wildcard) --last_star;
  if (first_star > 0) {
    std::string_view head = run(0, first_star);
    if (s.substr(0, head.size()) != head) return false;
    s.remove_prefix(head.size());
  }
  if (last_star + 1 < n) {
    std::string_view tail = run(last_star + 1, n);
    if (s.size() < tail.size() || s.substr(s.size() - tail.size()) != tail) return false;
    s.remove_suffix(tail.size());
  }
  size_t pos = 0;
  size_t i = first_star + 1;
  while (i < last_star) {
    size_t e = i;
    while (!parts[e].wildcard) ++e;  // INVARIANT: parts[last_star] is a wildcard
    if (e > i) {
      std::string_view literal = run(i, e);
      size_t at = FindLiteral(s, pos, literal);
      if (at == std::string_view::npos) return false;
      pos = at + literal.size();
    }
    i = e + 1;
  }
  return true;
}

}  // namespace charter::internal

#endif  // CHARTER_COMMON_LIKE_H_
