// The fast reader of scheduling declarations (engine/core/src/syntax/
// declarations.h) against the full parser: in every group of .charter text
// it reads, the same declarations, field for field and span for span, and
// no diagnostic the parser would report; what needs the full parser, it
// declines.
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

TEST(DeclarationsTest, ReadsWhatTheParserReadsTheSameWay) {
  const std::vector<std::string> texts = {
      "queue \"team-a\" { cohort: \"ml\"; resources cpu, memory { flavor \"default\" { cpu: 8 borrow 2; memory: "
      "64Gi; } } }",
      "flavor gpu;",
      "flavor \"a\", \"b\", c;",
      "queue q { resources cpu { flavor f { cpu: 8 borrow 2 lend 1; } } }",
      "x: 64Gi;",
      "x: 64 Gi;",
      "x: -5;",
      "x: - 5 Gi;",
      "x: 1.5;",
      "x: 1 . 5m;",
      "x: 1e3;",
      "x: 8 borrow -2;",
      "x: 8 borrow 2 lend 1.5Gi;",
      "x: 8 borrow principal;",
      "x: [1 Gi, 2, 3Mi];",
      "x: [1, 2,];",
      "x: [];",
      "x: [[a], [\"b\", true]];",
      "x: true; y: false;",
      "x: 8 borrow;",  // a quantity `8 borrow`, which the declarations' reader refuses later
      "x: StrictFIFO;",
      "x: a::b::c;",
      "x: Governance::Allocation::\"gpu-a\";",
      "x: principal::\"p\";",
      "x: \"\";",
      "x: \"caf\xC3\xA9\";",
      "x { }",
      "x { y { z; } w: 1; }",
      "// a comment\nqueue q { // another\n  cohort: \"ml\"; }\n",
      "queue q { cohort: \"ml\"; }\nqueue r { cohort: \"ml\"; }\n",
  };
  for (const std::string& text : texts) {
    size_t read = 0;
    std::optional<std::string> difference = DeclarationParseDifference(text, &read);
    ASSERT_TRUE(difference.has_value()) << "declined: " << text;
    EXPECT_EQ(*difference, "") << text;
    EXPECT_GT(read, 0u) << text;
  }
}

TEST(DeclarationsTest, DeclinesWhatNeedsTheFullParser) {
  const std::vector<std::string> texts = {
      "permit(principal, action, resource);",
      "@id(\"a\") permit(principal, action, resource);",
      "x: \"a\\nb\";",           // an escape
      "x: __cedar::\"a\";",      // CH0127
      "x: 8 Gi borrow 2;",      // a quantity's suffix that ANTLR decides further ahead
      "x: 8",                   // a syntax error
      "x { y: 1; ",
      "x: \"unterminated;",
      "x: 1 # 2;",
      "x: 1.a;",
      "permit: 1;",
      "x: [1 Gi 2];",
  };
  for (const std::string& text : texts) {
    EXPECT_EQ(DeclarationParseDifference(text), std::nullopt) << text;
  }
}

// Every .charter file the repository ships, and the formatter's fuzz
// corpus: the groups the fast reader reads, it reads as the parser does.
TEST(DeclarationsTest, AgreesOnEveryShippedFile) {
  const fs::path root(CHARTER_SOURCE_DIR);
  size_t groups = 0;
  for (const char* dir : {"examples", "stdlib", "tests", "docs", "bench", "fuzz/corpus/format"}) {
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(root / dir)) {
      if (!e.is_regular_file()) continue;
      if (dir != std::string("fuzz/corpus/format") && e.path().extension() != ".charter") continue;
      if (e.path().string().find("node_modules") != std::string::npos) continue;
      std::ifstream in(e.path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      size_t read = 0;
      std::optional<std::string> difference = DeclarationParseDifference(text.str(), &read);
      if (difference.has_value()) {
        EXPECT_EQ(*difference, "") << e.path();
      }
      groups += read;
    }
  }
  EXPECT_GT(groups, 10u);
}

// Declarations made at random from the grammar's declaration rules, with
// random spacing and comments, and each also with one token dropped or
// doubled: wherever the fast reader reads one, it reads it as the parser.
class Generator {
 public:
  explicit Generator(uint32_t seed) : state_(seed * 2654435761u + 1) {}

  std::string Text() {
    std::string out;
    const int n = 1 + Below(3);
    for (int i = 0; i < n; ++i) Entry(0, &out);
    return out;
  }

  uint32_t Below(uint32_t n) {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return state_ % n;
  }

 private:
  void Space(std::string* out) {
    switch (Below(8)) {
      case 0: *out += ""; break;
      case 1: *out += "\n  "; break;
      case 2: *out += " // note\n"; break;
      default: *out += " "; break;
    }
  }
  std::string Ident() {
    static constexpr const char* kWords[] = {"cpu", "memory", "borrow", "lend", "Gi", "m", "queue", "flavor",
                                             "a", "principal", "resource", "x_1", "e3"};
    return kWords[Below(13)];
  }
  void Word(std::string* out) { *out += Below(3) == 0 ? "\"w" + std::to_string(Below(9)) + "\"" : Ident(); }
  void Value(int depth, std::string* out) {
    switch (Below(depth > 2 ? 6 : 7)) {
      case 0:
      case 1: {  // quantity
        if (Below(4) == 0) *out += "-";
        if (Below(6) == 0) Space(out);
        *out += std::to_string(Below(100));
        if (Below(4) == 0) {
          *out += ".";
          *out += std::to_string(Below(10));
        }
        if (Below(2) == 0) {
          if (Below(4) == 0) Space(out);
          *out += Ident();
        }
        break;
      }
      case 2: *out += "\"s" + std::to_string(Below(5)) + "\""; break;
      case 3: *out += Below(2) ? "true" : "false"; break;
      case 4: {
        *out += Ident();
        while (Below(3) == 0) *out += "::" + Ident();
        if (Below(3) == 0) *out += "::\"id\"";
        break;
      }
      case 5: *out += Ident(); break;
      default: {
        *out += "[";
        const int n = static_cast<int>(Below(4));
        for (int i = 0; i < n; ++i) {
          if (i > 0) *out += ", ";
          Value(depth + 1, out);
        }
        if (n > 0 && Below(3) == 0) *out += ",";
        *out += "]";
        break;
      }
    }
  }
  void Entry(int depth, std::string* out) {
    Word(out);
    if (Below(2) == 0) {
      *out += " ";
      Word(out);
      while (Below(3) == 0) {
        *out += ", ";
        Word(out);
      }
    }
    Space(out);
    switch (depth > 2 ? 0 : Below(3)) {
      case 0: {
        *out += ": ";
        Value(0, out);
        while (Below(2) == 0) {
          *out += " ";
          *out += Ident();
          *out += " ";
          Value(0, out);
        }
        *out += ";";
        break;
      }
      case 1: {
        *out += "{";
        const int n = static_cast<int>(Below(4));
        for (int i = 0; i < n; ++i) {
          Space(out);
          Entry(depth + 1, out);
        }
        *out += "}";
        break;
      }
      default: *out += ";"; break;
    }
    Space(out);
  }

  uint32_t state_;
};

TEST(DeclarationsTest, AgreesOnGeneratedDeclarations) {
  size_t read = 0, declined = 0;
  for (uint32_t seed = 0; seed < 3000; ++seed) {
    Generator g(seed);
    std::string text = g.Text();
    std::vector<std::string> variants = {text};
    // One character dropped or doubled, at a random place.
    if (!text.empty()) {
      const size_t at = g.Below(static_cast<uint32_t>(text.size()));
      variants.push_back(text.substr(0, at) + text.substr(at + 1));
      variants.push_back(text.substr(0, at + 1) + text.substr(at));
    }
    for (const std::string& v : variants) {
      size_t groups = 0;
      std::optional<std::string> difference = DeclarationParseDifference(v, &groups);
      if (!difference.has_value()) {
        ++declined;
        continue;
      }
      ++read;
      EXPECT_EQ(*difference, "") << v;
    }
  }
  // Both sides exercised: most texts read fast, some left to the parser.
  EXPECT_GT(read, 3000u);
  EXPECT_GT(declined, 500u);
}

}  // namespace
}  // namespace charter::internal
