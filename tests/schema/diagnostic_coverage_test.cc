// Every schema (CH04xx) and validation (CH05xx) code the engine emits has a
// test of its code, its exact message and its exact underline: either an
// entry `"CHxxxx", "message", "underline"` in a test under tests/schema/
// (schema_test.cc's table, validator_test.cc's ExpectError, and the like),
// or a ```diagnostic rendering in docs/diagnostics.md, which
// tests/docs/docs_examples_test.cc compares in full. A code emitted anywhere
// in engine/src without either fails here, so a new code cannot land
// untested.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

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

// The codes of `family` ("4" or "5") emitted by engine/src.
std::set<std::string> Emitted(const std::string& family) {
  std::set<std::string> out;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator("engine/src")) {
    if (e.path().extension() != ".cc" && e.path().extension() != ".h") continue;
    for (const std::string& c : Matches(ReadText(e.path()), "\"(CH0" + family + R"re(\d\d)")re")) out.insert(c);
  }
  return out;
}

// Codes with a test entry: the code's literal, then a message literal, then
// the underline (a literal, plain or raw, or a variable holding it).
std::set<std::string> UnitTested() {
  const std::string literal = R"re((?:R"\((?s:.*?)\)"|"(?:[^"\\\n]|\\.)*"))re";
  std::set<std::string> out;
  for (const fs::directory_entry& e : fs::directory_iterator("tests/schema")) {
    if (e.path().extension() != ".cc" || e.path().filename() == "diagnostic_coverage_test.cc") continue;
    for (const std::string& c :
         Matches(ReadText(e.path()), R"re("(CH0[45]\d\d)"\s*,\s*)re" + literal + R"re(\s*,\s*(?:)re" + literal + R"re(|[A-Za-z_][A-Za-z_0-9.]*))re")) {
      out.insert(c);
    }
  }
  return out;
}

// Codes with a rendering in docs/diagnostics.md.
std::set<std::string> Rendered() {
  std::string doc = ReadText("docs/diagnostics.md");
  std::set<std::string> out;
  re2::StringPiece input(doc);
  std::string block;
  RE2 re("(?s)\n```diagnostic\n(.*?)```");
  while (RE2::FindAndConsume(&input, re, &block)) {
    for (const std::string& c : Matches(block, R"((?:error|warning)\[(CH0[45]\d\d)\])")) out.insert(c);
  }
  return out;
}

TEST(DiagnosticCoverage, EverySchemaAndValidationCodeIsTested) {
  std::set<std::string> emitted = Emitted("4");
  for (const std::string& c : Emitted("5")) emitted.insert(c);
  ASSERT_GT(emitted.size(), 20u) << "run from the repository root";
  std::set<std::string> unit = UnitTested();
  std::set<std::string> docs = Rendered();
  for (const std::string& c : emitted) {
    EXPECT_TRUE(unit.count(c) != 0 || docs.count(c) != 0)
        << c << " is emitted in engine/src but no test checks its message and underline: add an entry "
        << "`\"" << c << "\", \"message\", \"underline\"` to a test in tests/schema/, or a ```diagnostic "
        << "rendering under its section of docs/diagnostics.md";
  }
  // And the check itself finds what it should.
  EXPECT_TRUE(unit.count("CH0401") != 0);
  EXPECT_TRUE(docs.count("CH0501") != 0);
}

}  // namespace
