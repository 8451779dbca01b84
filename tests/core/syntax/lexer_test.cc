// The syntax layer's lexer (engine/core/src/syntax/lexer.h) against the one
// ANTLR generates from Charter.g4, which stays its definition: every token
// the same in type, indices, line, column and text, over every policy,
// declaration and schema file of the repository, the fuzz corpora and the
// corners of each token rule.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "syntax/parser.h"

namespace charter::internal {
namespace {

namespace fs = std::filesystem;

TEST(LexerTest, AgreesOnTheCornersOfEveryRule) {
  const std::vector<std::string> texts = {
      "",
      " ",
      "\xEF\xBB\xBF" "permit",
      "permit forbid when unless principal action resource context true false if then else in has like is",
      "permits forbidden whenever _ a1 A_b9 __ x_if iff in2",
      "( ) ; @ , [ ] { } . : :: ::: :::: == != <= >= < > && || ! + - * / %",
      "= & | ? ?a ?_9 ?9 ?? ==== !== <== >== &&& ||| !! ++ -- // x",
      "a==b a!=b a<=b a>=b a<b a>b a&&b a||b !a -1 1-1 1--1 a.b a::b a:b",
      "0 00 123 1abc 1_ 99999999999999999999999",
      "\"\" \"a\" \"a\\\"b\" \"a\\\\\" \"\\n\\t\\u{1F600}\" \"line\nbreak\" \"\\\"",
      "\"unterminated",
      "\"unterminated with escape \\\"",
      "\"ends in a backslash\\",
      "\"",
      "\\",
      "// comment\nx // another\r\ny //\r//\n",
      "/ /* not a comment */",
      "\t\r\n\f x \v y",
      "\xC3\xA9t\xC3\xA9 \"\xE2\x9C\x93\" \xF0\x9F\x98\x80 \xE2\x80\x8B",
      "a\n\nb\r\nc\rd",
      "queue \"team-a\" { cohort: \"ml\"; resources cpu, memory { flavor \"default\" { cpu: 8 borrow 2; memory: 64Gi; "
      "} } }",
      "1.5 500m -5 1e3 0.25Gi",
      "@id(\"x\") permit(principal == User::\"a\", action in [Action::\"r\", Action::\"w\"], resource is T in ?resource)"
      " when { context.x has y && resource[\"k\"] like \"a*b\" } unless { if a then b else c };",
      "\x01\x02\x7F#$^`~'",
  };
  for (const std::string& text : texts) {
    EXPECT_EQ(LexerDifference(text), "") << "text: " << text;
  }
}

// Every policy, declaration and schema file the repository ships, and the
// fuzz corpora of the parser and the formatter.
TEST(LexerTest, AgreesOnEveryShippedFile) {
  const fs::path root(CHARTER_SOURCE_DIR);
  size_t files = 0;
  for (const char* dir : {"examples", "stdlib", "tests", "docs", "bench", "fuzz/corpus/policy_parser",
                          "fuzz/corpus/format", "fuzz/corpus/schema"}) {
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(root / dir)) {
      if (!e.is_regular_file()) continue;
      const std::string ext = e.path().extension().string();
      const bool corpus = std::string(dir).rfind("fuzz/", 0) == 0;
      if (!corpus && ext != ".cedar" && ext != ".charter" && ext != ".cedarschema") continue;
      if (e.path().string().find("node_modules") != std::string::npos) continue;
      std::ifstream in(e.path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      ++files;
      EXPECT_EQ(LexerDifference(text.str()), "") << e.path();
    }
  }
  EXPECT_GT(files, 100u);
}

}  // namespace
}  // namespace charter::internal
