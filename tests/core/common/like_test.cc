// common/like.h: the `like` matcher and its substring search against plain
// reference versions, on small random inputs over a two-letter alphabet
// (where the shortcuts of a search matter most), on the shapes that defeat
// a plain search, and on patterns a bundle may hold (adjacent literals,
// empty literals, adjacent stars).
#include "common/like.h"

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"

namespace charter::internal {
namespace {

struct Part {
  bool wildcard;
  std::string literal;
};

// The reference: backtracking over the flattened pattern.
bool Reference(std::string_view s, const std::vector<Part>& parts) {
  std::string p;
  std::vector<bool> star;
  for (const Part& part : parts) {
    if (part.wildcard) {
      p.push_back('\0');
      star.push_back(true);
    } else {
      for (char c : part.literal) {
        p.push_back(c);
        star.push_back(false);
      }
    }
  }
  std::vector<std::vector<int8_t>> memo(s.size() + 1, std::vector<int8_t>(p.size() + 1, -1));
  auto match = [&](auto&& self, size_t i, size_t j) -> bool {
    if (memo[i][j] >= 0) return memo[i][j] != 0;
    bool r;
    if (j == p.size()) {
      r = i == s.size();
    } else if (star[j]) {
      r = self(self, i, j + 1) || (i < s.size() && self(self, i + 1, j));
    } else {
      r = i < s.size() && s[i] == p[j] && self(self, i + 1, j + 1);
    }
    memo[i][j] = r ? 1 : 0;
    return r;
  };
  return match(match, 0, 0);
}

TEST(Like, AgreesWithBacktrackingOnRandomInputs) {
  std::mt19937 rng(20261206);
  auto text = [&](size_t max) {
    std::string t(rng() % (max + 1), 'a');
    for (char& c : t) c = "ab"[rng() % 2];
    return t;
  };
  for (int round = 0; round < 20000; ++round) {
    std::vector<Part> parts(rng() % 6);
    for (Part& part : parts) {
      part.wildcard = rng() % 3 == 0;
      if (!part.wildcard) part.literal = text(3);  // possibly empty
    }
    std::string s = text(12);
    ASSERT_EQ(MatchLike(s, parts), Reference(s, parts)) << "text " << s << ", round " << round;
  }
}

TEST(Like, Anchors) {
  std::vector<Part> star_b = {{true, ""}, {false, "b"}};
  EXPECT_TRUE(MatchLike("ab", star_b));
  EXPECT_FALSE(MatchLike("ba", star_b));
  std::vector<Part> a_star_a = {{false, "a"}, {true, ""}, {false, "a"}};
  EXPECT_FALSE(MatchLike("a", a_star_a));  // the head and the tail may not overlap
  EXPECT_TRUE(MatchLike("aa", a_star_a));
  std::vector<Part> none;
  EXPECT_TRUE(MatchLike("", none));
  EXPECT_FALSE(MatchLike("x", none));
  std::vector<Part> adjacent = {{false, "ab"}, {false, "c"}, {true, ""}, {false, "x"}, {false, "y"}, {true, ""}};
  EXPECT_TRUE(MatchLike("abc-xy-", adjacent));
  EXPECT_FALSE(MatchLike("abc-x-y", adjacent));
}

TEST(FindLiteral, AgreesWithFindOnRandomInputs) {
  std::mt19937 rng(7);
  for (int round = 0; round < 20000; ++round) {
    std::string text(rng() % 40, 'a'), needle(rng() % 8, 'a');
    for (char& c : text) c = "ab"[rng() % 8 == 0 ? 1 : 0];
    for (char& c : needle) c = "ab"[rng() % 8 == 0 ? 1 : 0];
    size_t from = rng() % (text.size() + 2);
    ASSERT_EQ(FindLiteral(text, from, needle), std::string_view(text).find(needle, from))
        << text << " / " << needle << " from " << from;
  }
}

// `aaa...a` against `aa...ab` at the end and in the middle: the plain search
// would compare the whole needle at each place; the answers are those of
// std::string_view::find (on sizes where it still finishes).
TEST(FindLiteral, NeedlesThatDefeatAPlainSearch) {
  std::string needle = std::string(3000, 'a') + "b";
  std::string text(200000, 'a');
  EXPECT_EQ(FindLiteral(text, 0, needle), std::string_view::npos);
  text[150000] = 'b';
  EXPECT_EQ(FindLiteral(text, 0, needle), 150000u - 3000u);
  EXPECT_EQ(FindLiteral(text, 147001, needle), std::string_view::npos);
  EXPECT_EQ(FindLiteral(text, 147000, needle), 147000u);
  std::vector<Part> parts = {{true, ""}, {false, needle}, {true, ""}};
  EXPECT_TRUE(MatchLike(text, parts));
  text[150000] = 'a';
  EXPECT_FALSE(MatchLike(text, parts));
}

}  // namespace
}  // namespace charter::internal
