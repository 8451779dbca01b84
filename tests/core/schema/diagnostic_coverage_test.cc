// Keeps the table of diagnostic codes (engine/core/src/common/diagnostics.def),
// the code, the tests and docs/diagnostics.md in step:
//   - the engine's code (engine/{core,schedule,tools}/src) spells no code as a string: each is named through the
//     table (`codes::CH0101`), and every code of the table is named there,
//     no retired one;
//   - docs/diagnostics.md has a `### CODE` section for every code of the
//     table and for no other, and lists every retired code, and only those,
//     under `## Retired codes`;
//   - a test produces every code: the code appears in a test under tests/
//     (an expected code in a unit test, a golden output) or in a
//     ```diagnostic rendering or an `// expect:` example of
//     docs/diagnostics.md, which tests/docs/docs_examples_test.cc checks;
//   - every schema (CH04xx) and validation (CH05xx) code has a test of its
//     code, its exact message and its exact underline: either an entry
//     `"CHxxxx", "message", "underline"` in a test under tests/core/schema/
//     (schema_test.cc's table, validator_test.cc's ExpectError, and the
//     like), or a ```diagnostic rendering in docs/diagnostics.md.
// So a new code cannot land undocumented or untested.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/diagnostic_codes.h"
#include "gtest/gtest.h"
#include "re2/re2.h"

namespace {

namespace fs = std::filesystem;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::set<std::string> Matches(const std::string& text, const std::string& pattern) {
  std::set<std::string> out;
  re2::StringPiece input(text);
  std::string code;
  RE2 re(pattern);
  EXPECT_TRUE(re.ok()) << pattern;
  while (RE2::FindAndConsume(&input, re, &code)) out.insert(code);
  return out;
}

std::set<std::string> Table() {
  std::set<std::string> out;
  for (const charter::internal::DiagnosticInfo& info : charter::internal::kDiagnosticTable) {
    out.insert(std::string(info.code));
  }
  return out;
}

std::set<std::string> Retired() {
  std::set<std::string> out;
  for (std::string_view code : charter::internal::kRetiredDiagnosticCodes) out.insert(std::string(code));
  return out;
}

bool IsSource(const fs::path& path) { return path.extension() == ".cc" || path.extension() == ".h"; }

// Every source file of the engine's three libraries.
std::vector<fs::path> EngineSources() {
  std::vector<fs::path> out;
  for (const char* src : {"engine/core/src", "engine/schedule/src", "engine/tools/src"}) {
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(src)) {
      if (IsSource(e.path())) out.push_back(e.path());
    }
  }
  return out;
}

// The codes the engine names as `codes::CHxxxx`.
std::set<std::string> Named() {
  std::set<std::string> out;
  for (const fs::path& path : EngineSources()) {
    for (const std::string& c : Matches(ReadText(path), R"(codes::(CH\d{4}))")) out.insert(c);
  }
  return out;
}

// The codes of `family` ("4" or "5") that the engine names.
std::set<std::string> Emitted(const std::string& family) {
  std::set<std::string> out;
  for (const std::string& c : Named()) {
    if (c.compare(0, 4, "CH0" + family) == 0) out.insert(c);
  }
  return out;
}

// Codes with a test entry: the code's literal, then a message literal, then
// the underline (a literal, plain or raw, or a variable holding it).
std::set<std::string> UnitTested() {
  const std::string literal = R"re((?:R"\((?s:.*?)\)"|"(?:[^"\\\n]|\\.)*"))re";
  std::set<std::string> out;
  for (const fs::directory_entry& e : fs::directory_iterator("tests/core/schema")) {
    if (e.path().extension() != ".cc" || e.path().filename() == "diagnostic_coverage_test.cc") continue;
    for (const std::string& c :
         Matches(ReadText(e.path()), R"re("(CH0[45]\d\d)"\s*,\s*)re" + literal + R"re(\s*,\s*(?:)re" + literal + R"re(|[A-Za-z_][A-Za-z_0-9.]*))re")) {
      out.insert(c);
    }
  }
  return out;
}

// The ```diagnostic blocks of docs/diagnostics.md.
std::string Renderings() {
  std::string doc = ReadText("docs/diagnostics.md");
  std::string out;
  re2::StringPiece input(doc);
  std::string block;
  RE2 re("(?s)\n```diagnostic\n(.*?)```");
  while (RE2::FindAndConsume(&input, re, &block)) out += block;
  return out;
}

// Codes with a rendering in docs/diagnostics.md.
std::set<std::string> Rendered() {
  return Matches(Renderings(), R"((?:error|warning)\[(CH0[45]\d\d)\])");
}

// Codes that some test produces and checks: named in a file under tests/
// (other than this one), rendered in docs/diagnostics.md, or expected by one
// of its examples.
std::set<std::string> Produced() {
  std::set<std::string> out;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator("tests")) {
    if (!e.is_regular_file() || e.path().filename() == "diagnostic_coverage_test.cc") continue;
    for (const std::string& c : Matches(ReadText(e.path()), R"((CH\d{4}))")) out.insert(c);
  }
  for (const std::string& c : Matches(Renderings(), R"((?:error|warning)\[(CH\d{4})\])")) out.insert(c);
  for (const std::string& c : Matches(ReadText("docs/diagnostics.md"), R"(// expect: (CH\d{4}))")) {
    out.insert(c);
  }
  return out;
}

TEST(DiagnosticCoverage, EngineNamesEveryCodeThroughTheTable) {
  std::set<std::string> table = Table();
  ASSERT_GT(table.size(), 50u);
  for (const fs::path& path : EngineSources()) {
    for (const std::string& c : Matches(ReadText(path), R"re("(CH\d{4})")re")) {
      ADD_FAILURE() << path << " spells the code " << c
                    << " as a string: name it as codes::" << c << " (common/diagnostic_codes.h)";
    }
  }
  std::set<std::string> named = Named();
  for (const std::string& c : table) {
    EXPECT_TRUE(named.count(c) != 0) << c << " has a row in engine/core/src/common/diagnostics.def but "
                                     << "the engine never emits it: retire it there";
  }
  for (const std::string& c : Retired()) {
    EXPECT_FALSE(table.count(c)) << c << " is both live and retired in diagnostics.def";
    EXPECT_FALSE(named.count(c)) << c << " is retired but the engine names it";
  }
}

TEST(DiagnosticCoverage, DocsListExactlyTheTable) {
  std::string doc = ReadText("docs/diagnostics.md");
  ASSERT_FALSE(doc.empty()) << "run from the repository root";
  std::set<std::string> table = Table();
  std::set<std::string> documented = Matches(doc, R"((?m)^### (CH\d{4})$)");
  for (const std::string& c : table) {
    EXPECT_TRUE(documented.count(c) != 0)
        << c << " has a row in engine/core/src/common/diagnostics.def but no `### " << c
        << "` section in docs/diagnostics.md";
  }
  for (const std::string& c : documented) {
    EXPECT_TRUE(table.count(c) != 0) << "docs/diagnostics.md documents " << c
                                     << ", which engine/core/src/common/diagnostics.def does not have";
  }
  size_t at = doc.find("\n## Retired codes\n");
  ASSERT_NE(at, std::string::npos) << "docs/diagnostics.md has no `## Retired codes` section";
  size_t end = doc.find("\n## ", at + 1);
  std::set<std::string> listed =
      Matches(doc.substr(at, end == std::string::npos ? std::string::npos : end - at), R"((CH\d{4}))");
  EXPECT_EQ(listed, Retired()) << "the retired codes of docs/diagnostics.md and of diagnostics.def differ";
}

TEST(DiagnosticCoverage, EveryCodeIsProducedByATest) {
  std::set<std::string> produced = Produced();
  for (const std::string& c : Table()) {
    EXPECT_TRUE(produced.count(c) != 0)
        << c << " has a row in engine/core/src/common/diagnostics.def but no test produces it: expect it "
        << "in a test under tests/ or show it in docs/diagnostics.md";
  }
}

TEST(DiagnosticCoverage, EverySchemaAndValidationCodeIsTested) {
  std::set<std::string> emitted = Emitted("4");
  for (const std::string& c : Emitted("5")) emitted.insert(c);
  ASSERT_GT(emitted.size(), 20u) << "run from the repository root";
  std::set<std::string> unit = UnitTested();
  std::set<std::string> docs = Rendered();
  for (const std::string& c : emitted) {
    EXPECT_TRUE(unit.count(c) != 0 || docs.count(c) != 0)
        << c << " is emitted by the engine but no test checks its message and underline: add an entry "
        << "`\"" << c << "\", \"message\", \"underline\"` to a test in tests/core/schema/, or a ```diagnostic "
        << "rendering under its section of docs/diagnostics.md";
  }
  // And the check itself finds what it should.
  EXPECT_TRUE(unit.count("CH0401") != 0);
  EXPECT_TRUE(docs.count("CH0501") != 0);
}

}  // namespace
