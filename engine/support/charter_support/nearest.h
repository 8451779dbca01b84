// "Did you mean": the name nearest a misspelt word, for the engine's
// diagnostics and the CLI's errors alike (header-only, as strings.h).
#ifndef CHARTER_SUPPORT_NEAREST_H_
#define CHARTER_SUPPORT_NEAREST_H_

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace charter::support {

// Edits (insertions, deletions, substitutions) between two words.
inline size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t next = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = row[j];
      row[j] = next;
    }
  }
  return row[b.size()];
}

// The first of `names` fewest edits from `word`, if fewer than `limit` edits
// away; empty otherwise. The default limit, a quarter of the word's length
// and at least 2 edits, takes slips and not other words.
template <typename Names>
std::string NearestName(std::string_view word, const Names& names, size_t limit = 0) {
  if (limit == 0) limit = std::max<size_t>(2, word.size() / 4) + 1;
  std::string best;
  for (const auto& name : names) {
    size_t d = EditDistance(word, name);
    if (d < limit) best = std::string(name), limit = d;
  }
  return best;
}

}  // namespace charter::support

#endif  // CHARTER_SUPPORT_NEAREST_H_
