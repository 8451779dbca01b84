// The formatter: exact layout on hand-written cases, and on a corpus (the
// oracle generator's policy sets, its saved reproducers, examples/) three
// properties: the output parses to the same AST as the input (spans aside),
// formatting the output again changes nothing, and comments inserted
// between any two tokens all survive, with the same two properties.
#include "charter/format.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ast/ast.h"
#include "common/strings.h"
#include "gtest/gtest.h"
#include "syntax/parser.h"

namespace charter {
namespace {

namespace ast = internal::ast;

std::string Entity(const ast::EntityRef& e) { return internal::Cat(e.type, "::", e.id.size(), ":", e.id); }

void DumpExpr(const ast::Expr& e, std::string* out) {
  internal::CatAppend(out, "(", static_cast<int>(e.kind), " b", e.b, " i", e.i, " s", e.str.size(), ":",
                      e.str, " e", Entity(e.entity), " v", static_cast<int>(e.var), " o",
                      static_cast<int>(e.bop), " u", static_cast<int>(e.uop));
  for (const std::string& k : e.keys) internal::CatAppend(out, " k", k.size(), ":", k);
  for (const ast::PatternElem& p : e.pattern) {
    internal::CatAppend(out, p.wildcard ? " *" : " p", p.literal.size(), ":", p.literal);
  }
  for (const auto& a : e.args) DumpExpr(*a, out);
  out->append(")");
}

void DumpScope(const ast::ScopeConstraint& s, std::string* out) {
  internal::CatAppend(out, " scope", static_cast<int>(s.kind), s.slot, Entity(s.entity), s.type);
}

// The policy set without spans.
std::string Dump(const ast::PolicySet& set) {
  std::string out;
  for (const ast::Policy& p : set.policies) {
    internal::CatAppend(&out, "policy ", p.id, " ", static_cast<int>(p.effect));
    for (const ast::Annotation& a : p.annotations) internal::CatAppend(&out, " @", a.key, "=", a.value);
    DumpScope(p.principal, &out);
    internal::CatAppend(&out, " action", static_cast<int>(p.action.kind));
    for (const ast::EntityRef& e : p.action.entities) internal::CatAppend(&out, " ", Entity(e));
    DumpScope(p.resource, &out);
    for (const ast::Condition& c : p.conditions) {
      internal::CatAppend(&out, c.when ? " when " : " unless ");
      DumpExpr(*c.body, &out);
    }
    out.append("\n");
  }
  return out;
}

struct Parsed {
  std::string dump;
  std::string errors;
};

Parsed Parse(const std::string& name, const std::string& text) {
  SourceFile source(name, text);
  Diagnostics diagnostics;
  ast::PolicySet set = internal::ParsePolicySet(source, {}, &diagnostics);
  return {Dump(set), diagnostics.RenderShort(source)};
}

std::string Format(const std::string& text, std::string* error = nullptr) {
  SourceFile source("in.cedar", text);
  absl::StatusOr<std::string> out = FormatPolicies(source, {}, nullptr);
  if (!out.ok()) {
    if (error != nullptr) *error = std::string(out.status().message());
    return "";
  }
  return *out;
}

// Formats `text` and checks the three properties; returns the output.
std::string CheckFormats(const std::string& name, const std::string& text) {
  std::string error;
  std::string once = Format(text, &error);
  EXPECT_TRUE(error.empty()) << name << ": " << error;
  Parsed before = Parse(name, text);
  Parsed after = Parse(name + " (formatted)", once);
  EXPECT_EQ(after.errors, "") << name << " formatted:\n" << once;
  EXPECT_EQ(before.dump, after.dump) << name << " formatted:\n" << once;
  // CHARTER_FORMAT_DEBUG=FILE keeps an output that is not a fixed point.
  if (std::getenv("CHARTER_FORMAT_DEBUG") != nullptr && Format(once) != once) {
    std::ofstream(std::getenv("CHARTER_FORMAT_DEBUG")) << once;
  }
  EXPECT_EQ(Format(once), once) << name << " is not a fixed point; input:\n" << text;
  return once;
}

TEST(Format, Layout) {
  EXPECT_EQ(Format("permit(principal,action,resource);"), "permit (principal, action, resource);\n");
  EXPECT_EQ(Format("@id(\"a\")@advice forbid(principal==User::\"a\",action in [Action::\"x\",Action::\"y\"],"
                   "resource is Task in ?resource)unless{principal.x};"),
            "@id(\"a\")\n"
            "@advice\n"
            "forbid (\n"
            "  principal == User::\"a\",\n"
            "  action in [Action::\"x\", Action::\"y\"],\n"
            "  resource is Task in ?resource\n"
            ")\n"
            "unless { principal.x };\n");
  EXPECT_EQ(Format("permit(principal,action,resource) when { context.aaaaaaaaaaaaaaaaaaaaaaa && "
                   "context.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb && context.ccccccccccccccccccccccccc };"),
            "permit (principal, action, resource)\n"
            "when\n"
            "{\n"
            "  context.aaaaaaaaaaaaaaaaaaaaaaa &&\n"
            "  context.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb &&\n"
            "  context.ccccccccccccccccccccccccc\n"
            "};\n");
}

TEST(Format, CanonicalSpellingsAndParentheses) {
  EXPECT_EQ(Format("permit(principal,action,resource) when { ((principal[\"a\"])) == (-(5)) && "
                   "!(!(!context.b)) && (1 + 2) * 3 == 9 && context[\"x y\"] like \"a\\*b*\" && "
                   "{\"k\": \"\\u{0}\\\"\", \"if\": 1}.k has \"sp ace\" };"),
            "permit (principal, action, resource)\n"
            "when\n"
            "{\n"
            "  principal.a == -(5) &&\n"
            "  !!!context.b &&\n"
            "  (1 + 2) * 3 == 9 &&\n"
            "  context[\"x y\"] like \"a\\*b*\" &&\n"
            "  { k: \"\\0\\\"\", \"if\": 1 }.k has \"sp ace\"\n"
            "};\n");
  CheckFormats("negatives", "permit(principal,action,resource) when { ----5 == - - - -5 && "
                            "!(!!!!true) && (-5).lessThan(1) && -(-(-(-(-context.x))) ) == 1 && 1 - (2 - 3) == 2 };");
}

TEST(Format, KeepsComments) {
  std::string text =
      "// header\n"
      "\n"
      "// about a\n"
      "@id(\"a\") // trailing the annotation\n"
      "permit ( // after the paren\n"
      "  principal, // p\n"
      "  action,\n"
      "  // before resource\n"
      "  resource\n"
      ") when { // after the brace\n"
      "  context.a && // after a\n"
      "  [1, // one\n"
      "   2].contains( // arg\n"
      "   context.b) // before the brace\n"
      "}; // after the policy\n"
      "// at the end\n";
  std::string out = CheckFormats("comments", text);
  EXPECT_EQ(out,
            "// header\n"
            "\n"
            "// about a\n"
            "@id(\"a\") // trailing the annotation\n"
            "permit ( // after the paren\n"
            "  principal, // p\n"
            "  action,\n"
            "  // before resource\n"
            "  resource\n"
            ")\n"
            "when\n"
            "{ // after the brace\n"
            "  context.a && // after a\n"
            "  [\n"
            "    1, // one\n"
            "    2\n"
            "  ].contains( // arg\n"
            "    context.b\n"
            "  ) // before the brace\n"
            "}; // after the policy\n"
            "\n"
            "// at the end\n");
}

TEST(Format, RefusesWhatDoesNotParse) {
  std::string error;
  EXPECT_EQ(Format("permit(principal, action, resource) when { && };", &error), "");
  EXPECT_EQ(error, "in.cedar:1:44: unexpected `&&`");
  Format("{\"effect\": \"permit\"}", &error);
  EXPECT_EQ(error, "in.cedar: Cedar's JSON policy format is not formatted");
  EXPECT_EQ(Format(""), "");
  EXPECT_EQ(Format("// only a comment"), "// only a comment\n");
}

std::vector<std::filesystem::path> CorpusFiles() {
  std::vector<std::filesystem::path> files;
  const char* dir = std::getenv("CHARTER_FORMAT_CORPUS");
  if (dir != nullptr) {
    for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path());
  }
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(std::string(CHARTER_SOURCE_DIR) + "/examples")) {
    if (e.path().extension() == ".cedar") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Offsets of the spaces and line breaks outside strings and comments.
std::vector<size_t> Gaps(const std::string& text) {
  std::vector<size_t> gaps;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == ' ' || c == '\n') {
      gaps.push_back(i);
    }
  }
  return gaps;
}

TEST(Format, Corpus) {
  std::vector<std::filesystem::path> files = CorpusFiles();
  if (std::getenv("CHARTER_FORMAT_CORPUS") != nullptr) {
    EXPECT_GT(files.size(), 150u);
  }
  size_t formatted = 0;
  uint64_t rng = 0x9e3779b97f4a7c15u;
  for (const auto& path : files) {
    std::string text = ReadAll(path);
    if (!Parse(path.string(), text).errors.empty()) {
      std::string error;
      EXPECT_EQ(Format(text, &error), "") << path;
      EXPECT_FALSE(error.empty()) << path;
      continue;
    }
    CheckFormats(path.string(), text);
    ++formatted;
    // The same text with a comment in some of its gaps (a line comment
    // needs a line break after it).
    std::vector<size_t> gaps = Gaps(text);
    std::string commented;
    size_t last = 0;
    int n = 0;
    for (size_t g : gaps) {
      rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
      if (rng % 5 != 0) continue;
      commented.append(text, last, g - last);
      internal::CatAppend(&commented, rng % 3 == 0 ? "\n" : " ", "// c", n++, "\n");
      last = g;
    }
    commented.append(text, last, std::string::npos);
    std::string out = CheckFormats(path.string() + " with comments", commented);
    for (int i = 0; i < n; ++i) {
      std::string mark = internal::Cat("// c", i, "\n");
      EXPECT_NE(out.find(mark), std::string::npos) << path << ": lost " << mark << " from\n" << commented;
    }
    if (testing::Test::HasFailure()) break;
  }
  EXPECT_GT(formatted, 0u);
}

}  // namespace
}  // namespace charter
