// Keeps the documentation true: every example in README.md and docs/*.md is
// checked against the code. Fenced blocks (fences start in column 0) are
// recognised by their info string:
//
//   ```cedar              compiles with charter::Compile
//   ```cedar-error        does not compile; a first line `// expect: CH0xxx`
//                         names the code of the first diagnostic
//   (either may carry `// options: max_nesting=N max_source_bytes=N
//   max_errors=N max_expression_depth=N` on one of its first lines, for the
//   CompileOptions)
//   ```LANG file=NAME     is also written to NAME in the document's session
//                         directory, for its console blocks
//   ```console            `$ COMMAND` lines run in that directory by sh, with
//                         the `charter` tool first on PATH; the lines up to
//                         the next `$ ` are the command's exact output
//                         (stdout and stderr together). The repository's
//                         stdlib/ and examples/ are reachable there as
//                         `stdlib/` and `examples/`
//   ```bytecode           the disassembly of the nearest cedar block above it
//   ```diagnostic         Diagnostics::Render() of the nearest cedar-error
//                         block above it, compiled as `policy.cedar` (or of
//                         a ```charter-core-error file=NAME block, compiled as
//                         NAME by the core alone: no declarations compiler)
//
// docs/diagnostics.md must have an example for every code of the syntax,
// compile, schema and check stages that a policy text can show.
// The complete programs of docs/embedding.md (```cpp blocks whose first line
// is `// example: NAME`) are built and run by tests/docs/CMakeLists.txt.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "builtins/builtins.h"
#include "bytecode/opcodes.h"
#include "charter/bundle_generated.h"
#include "charter/charter.h"
#include "charter/schema.h"
#include "gtest/gtest.h"
#include "re2/re2.h"

namespace charter {
namespace {

namespace fs = std::filesystem;

// (absl::string_view is not std::string_view in Debian's abseil, so these
// helpers stay with the standard library.)
std::vector<std::string> Split(std::string_view s, char sep, bool skip_empty = false) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t end = s.find(sep, start);
    std::string_view piece = s.substr(start, end == std::string_view::npos ? end : end - start);
    if (!skip_empty || !piece.empty()) out.emplace_back(piece);
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

template <typename... Args>
std::string Cat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

struct Block {
  std::string file;  // relative to the repository root
  int line = 0;      // of the opening fence, 1-based
  std::string lang;  // the first word of the info string
  std::map<std::string, std::string> attrs;  // key=value words after it
  std::string text;  // the lines between the fences, each ending in '\n'

  std::string where() const { return Cat(file, ":", line); }
};

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<Block> ParseBlocks(const std::string& file, const std::string& text) {
  std::vector<Block> blocks;
  std::vector<std::string> lines = Split(text, '\n');
  Block* open = nullptr;
  Block current;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (open == nullptr) {
      // As in CommonMark, a backtick fence's info string has no backticks.
      if (line.substr(0, 3) != "```" || line.find('`', 3) != std::string_view::npos) continue;
      current = Block{};
      current.file = file;
      current.line = static_cast<int>(i + 1);
      std::vector<std::string> words = Split(line.substr(3), ' ', true);
      if (!words.empty()) current.lang = words[0];
      for (size_t w = 1; w < words.size(); ++w) {
        size_t eq = words[w].find('=');
        if (eq != std::string::npos) current.attrs[words[w].substr(0, eq)] = words[w].substr(eq + 1);
      }
      open = &current;
    } else if (line == "```") {
      blocks.push_back(std::move(current));
      open = nullptr;
    } else {
      open->text.append(line).append("\n");
    }
  }
  EXPECT_EQ(open, nullptr) << file << ":" << current.line << ": unclosed code fence";
  return blocks;
}

// The documents: README.md and docs/*.md, in name order.
std::vector<std::string> DocumentFiles() {
  std::vector<std::string> files = {"README.md"};
  std::vector<std::string> docs;
  if (fs::is_directory("docs")) {
    for (const fs::directory_entry& e : fs::directory_iterator("docs")) {
      if (e.path().extension() == ".md") docs.push_back(e.path().generic_string());
    }
  }
  std::sort(docs.begin(), docs.end());
  files.insert(files.end(), docs.begin(), docs.end());
  return files;
}

const std::map<std::string, std::vector<Block>>& AllBlocks() {
  static const auto* all = [] {
    auto* m = new std::map<std::string, std::vector<Block>>;
    for (const std::string& f : DocumentFiles()) (*m)[f] = ParseBlocks(f, ReadText(f));
    return m;
  }();
  return *all;
}

std::vector<const Block*> BlocksOf(std::string_view lang) {
  std::vector<const Block*> out;
  for (const auto& [file, blocks] : AllBlocks()) {
    for (const Block& b : blocks) {
      if (b.lang == lang) out.push_back(&b);
    }
  }
  return out;
}

// `// options: k=v ...` on any of the block's leading comment lines.
CompileOptions OptionsOf(const Block& b) {
  CompileOptions options;
  options.declarations = &schedule::Declarations();
  for (const std::string& line : Split(b.text, '\n')) {
    if (line.substr(0, 2) != "//") break;
    std::string rest;
    if (!RE2::PartialMatch(line, R"(^// options:\s*(.*)$)", &rest)) continue;
    for (const std::string& kv : Split(rest, ' ', true)) {
      std::string key;
      size_t value = 0;
      if (!RE2::FullMatch(kv, R"((\w+)=(\d+))", &key, &value)) {
        ADD_FAILURE() << b.where() << ": bad option `" << kv << "`";
      } else if (key == "max_nesting") {
        options.max_nesting = static_cast<int>(value);
      } else if (key == "max_source_bytes") {
        options.max_source_bytes = value;
      } else if (key == "max_errors") {
        options.max_errors = value;
      } else if (key == "max_policy_tokens") {
        options.max_policy_tokens = value;
      } else if (key == "max_tokens") {
        options.max_tokens = value;
      } else if (key == "max_expression_depth") {
        options.max_expression_depth = static_cast<int>(value);
      } else if (key == "max_code_words") {
        options.max_code_words = value;
      } else if (key == "max_policies") {
        options.max_policies = value;
      } else if (key == "max_bundle_bytes") {
        options.max_bundle_bytes = value;
      } else if (key == "max_bundle_tables") {
        options.max_bundle_tables = value;
      } else {
        ADD_FAILURE() << b.where() << ": unknown option `" << key << "`";
      }
    }
  }
  return options;
}

std::string ExpectedCode(const Block& b) {
  std::string code;
  RE2::PartialMatch(b.text, R"(^// expect: (CH\d{4})\n)", &code);
  return code;
}

TEST(DocsExamples, DocumentsArePresent) {
  for (const char* f : {"README.md", "docs/README.md", "docs/language.md", "docs/diagnostics.md",
                        "docs/entities.md", "docs/cli.md", "docs/embedding.md", "docs/bundle.md",
                        "docs/architecture.md", "docs/roadmap.md"}) {
    EXPECT_TRUE(fs::is_regular_file(f)) << f << " is missing (is the working directory the "
                                        << "repository root?)";
  }
  EXPECT_GE(BlocksOf("cedar").size(), 10u);
  EXPECT_GE(BlocksOf("cedar-error").size(), 20u);
  EXPECT_GE(BlocksOf("console").size(), 2u);
}

// docs/architecture.md's stage table is engine/CMakeLists.txt's (each row a
// stage and the stages it may include, in the same order), and every stage
// directory has a row in its table of stages.
TEST(DocsExamples, ArchitectureShowsTheStageTable) {
  std::vector<const Block*> tables;
  for (const Block* b : BlocksOf("stages")) {
    if (b->file == "docs/architecture.md") tables.push_back(b);
  }
  ASSERT_EQ(tables.size(), 1u) << "docs/architecture.md has no ```stages block";
  std::vector<std::string> documented;
  for (const std::string& line : Split(tables[0]->text, '\n', true)) {
    std::string row;
    for (const std::string& word : Split(line, ' ', true)) row += (row.empty() ? "" : " ") + word;
    documented.push_back(row);
  }
  // charter_library(LIBRARY USES...) rows, written `library LIBRARY
  // USES...`, and charter_stage(STAGE DEP...) rows, which may continue on
  // the next lines.
  std::string cmake = ReadText("engine/CMakeLists.txt");
  std::vector<std::string> declared;
  re2::StringPiece input(cmake);
  std::string function;
  std::string args;
  while (RE2::FindAndConsume(&input, R"((?m)^charter_(library|stage)\(([^)]*)\))", &function, &args)) {
    std::string row = function == "library" ? "library" : "";
    for (const std::string& line : Split(args, '\n')) {
      for (const std::string& word : Split(line, ' ', true)) row += (row.empty() ? "" : " ") + word;
    }
    declared.push_back(row);
  }
  ASSERT_GE(declared.size(), 10u) << "no charter_stage rows found in engine/CMakeLists.txt";
  EXPECT_EQ(documented, declared) << tables[0]->where()
                                  << ": the stage table differs from engine/CMakeLists.txt's";
  std::string architecture = ReadText("docs/architecture.md");
  for (const char* library : {"core", "schedule", "tools"}) {
    const std::string src = std::string("engine/") + library + "/src/";
    for (const fs::directory_entry& e : fs::directory_iterator(src)) {
      if (!e.is_directory()) continue;
      std::string dir = e.path().filename().string();
      EXPECT_NE(architecture.find("| `" + src + dir + "/` |"), std::string::npos)
          << "docs/architecture.md's table of stages has no row for " << src << dir << "/";
    }
  }
}

TEST(DocsExamples, CedarBlocksCompile) {
  for (const Block* b : BlocksOf("cedar")) {
    SourceFile source(b->where(), b->text);
    Diagnostics diagnostics;
    absl::StatusOr<Bundle> bundle = Compile(source, OptionsOf(*b), &diagnostics);
    EXPECT_TRUE(bundle.ok()) << b->where() << ": this ```cedar block does not compile:\n"
                             << diagnostics.Render(source);
    if (!bundle.ok()) continue;
    absl::StatusOr<Engine> engine = Engine::Create(*bundle);
    EXPECT_TRUE(engine.ok()) << b->where() << ": " << engine.status();
  }
}

TEST(DocsExamples, CedarErrorBlocksFailWithTheirCode) {
  for (const Block* b : BlocksOf("cedar-error")) {
    SourceFile source(b->where(), b->text);
    Diagnostics diagnostics;
    absl::StatusOr<Bundle> bundle = Compile(source, OptionsOf(*b), &diagnostics);
    EXPECT_FALSE(bundle.ok()) << b->where() << ": this ```cedar-error block compiles";
    if (bundle.ok()) continue;
    ASSERT_FALSE(diagnostics.empty()) << b->where();
    std::string want = ExpectedCode(*b);
    if (!want.empty()) {
      EXPECT_EQ(diagnostics.items()[0].code, want)
          << b->where() << ": expected " << want << ", got:\n" << diagnostics.Render(source);
    }
  }
}

// ```cedarschema blocks are schemas that read cleanly; ```cedarschema-error
// blocks start with `// expect: CH04xx` and fail with that code.
TEST(DocsExamples, SchemaBlocks) {
  for (const Block* b : BlocksOf("cedarschema")) {
    SourceFile source(b->where(), b->text);
    Diagnostics d;
    EXPECT_TRUE(Schema::Parse(source, {}, &d).ok()) << b->where() << ":\n" << d.Render(source);
  }
  for (const Block* b : BlocksOf("cedarschema-error")) {
    SourceFile source(b->where(), b->text);
    Diagnostics d;
    EXPECT_FALSE(Schema::Parse(source, {}, &d).ok()) << b->where() << ": this schema reads";
    ASSERT_FALSE(d.empty()) << b->where();
    EXPECT_EQ(d.items()[0].code, ExpectedCode(*b)) << b->where() << ":\n" << d.Render(source);
  }
}

// ```cedar-invalid schema=NAME blocks start with `// expect: CH05xx`: the
// first diagnostic of validating them against the ```cedarschema file=NAME
// block of the same document has that code.
TEST(DocsExamples, ValidationBlocks) {
  for (const auto& [file, blocks] : AllBlocks()) {
    for (const Block& b : blocks) {
      if (b.lang != "cedar-invalid") continue;
      auto it = b.attrs.find("schema");
      ASSERT_NE(it, b.attrs.end()) << b.where() << ": needs schema=NAME";
      const Block* schema_block = nullptr;
      for (const Block& s : blocks) {
        auto f = s.attrs.find("file");
        if (s.lang == "cedarschema" && f != s.attrs.end() && f->second == it->second) schema_block = &s;
      }
      ASSERT_NE(schema_block, nullptr) << b.where() << ": no ```cedarschema file=" << it->second;
      absl::StatusOr<Schema> schema =
          Schema::Parse(SourceFile(schema_block->where(), schema_block->text), {}, nullptr);
      ASSERT_TRUE(schema.ok()) << schema.status();
      SourceFile source(b.where(), b.text);
      Diagnostics d;
      (void)Validate(*schema, source, {}, &d);
      ASSERT_FALSE(d.empty()) << b.where() << ": validates cleanly";
      EXPECT_EQ(d.items()[0].code, ExpectedCode(b)) << b.where() << ":\n" << d.Render(source);
    }
  }
}

// A ```diagnostic block is exactly what Diagnostics::Render() prints for the
// nearest failing block above it: a ```cedar-error block compiled as a file
// named policy.cedar, a ```cedarschema-error block read as
// schema.cedarschema, or a ```cedar-invalid block validated as policy.cedar
// against its schema.
TEST(DocsExamples, DiagnosticRenderings) {
  int renderings = 0;
  for (const auto& [file, blocks] : AllBlocks()) {
    const Block* source_block = nullptr;
    for (const Block& b : blocks) {
      if (b.lang == "cedar-error" || b.lang == "cedarschema-error" || b.lang == "cedar-invalid" ||
          b.lang == "charter-core-error") {
        source_block = &b;
      }
      if (b.lang != "diagnostic") continue;
      ++renderings;
      ASSERT_NE(source_block, nullptr) << b.where() << ": no failing block above it";
      Diagnostics diagnostics;
      if (source_block->lang == "cedarschema-error") {
        SourceFile source("schema.cedarschema", source_block->text);
        EXPECT_FALSE(Schema::Parse(source, {}, &diagnostics).ok());
        EXPECT_EQ(b.text, diagnostics.Render(source)) << b.where() << ": the rendering differs";
        continue;
      }
      if (source_block->lang == "charter-core-error") {
        auto name = source_block->attrs.find("file");
        ASSERT_NE(name, source_block->attrs.end()) << source_block->where() << ": needs file=NAME";
        SourceFile source(name->second, source_block->text);
        CompileOptions core = OptionsOf(*source_block);
        core.declarations = nullptr;
        EXPECT_FALSE(Compile(source, core, &diagnostics).ok()) << source_block->where();
        EXPECT_EQ(b.text, diagnostics.Render(source)) << b.where() << ": the rendering differs";
        continue;
      }
      SourceFile source("policy.cedar", source_block->text);
      if (source_block->lang == "cedar-invalid") {
        const Block* schema_block = nullptr;
        auto want = source_block->attrs.find("schema");
        ASSERT_NE(want, source_block->attrs.end()) << source_block->where() << ": needs schema=NAME";
        for (const Block& s : blocks) {
          auto f = s.attrs.find("file");
          if (s.lang == "cedarschema" && f != s.attrs.end() && f->second == want->second) schema_block = &s;
        }
        ASSERT_NE(schema_block, nullptr) << b.where();
        absl::StatusOr<Schema> schema =
            Schema::Parse(SourceFile(schema_block->where(), schema_block->text), {}, nullptr);
        ASSERT_TRUE(schema.ok()) << schema.status();
        (void)Validate(*schema, source, {}, &diagnostics);
        EXPECT_FALSE(diagnostics.empty()) << source_block->where();
      } else {
        EXPECT_FALSE(Compile(source, OptionsOf(*source_block), &diagnostics).ok());
      }
      EXPECT_EQ(b.text, diagnostics.Render(source)) << b.where() << ": the rendering differs";
    }
  }
  EXPECT_GE(renderings, 1);
}

// The stages that compile policy text (and schema text, for validation):
// each code they emit has an example in docs/diagnostics.md. (That every
// code of engine/core/src/common/diagnostics.def has a section, and no other,
// tests/core/schema/diagnostic_coverage_test.cc checks.)
constexpr const char* kDiagnosticSources[] = {"engine/core/src/syntax", "engine/core/src/compile",
                                              "engine/core/src/schema", "engine/core/src/check"};

// Every code those stages emit has a section in docs/diagnostics.md with an
// example, unless no policy text in a document can show it (those are
// checked below, one by one).
TEST(DocsExamples, EveryDiagnosticIsDocumented) {
  std::set<std::string> emitted;
  std::vector<fs::path> sources;
  for (const char* dir : kDiagnosticSources) {
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
      sources.push_back(e.path());
    }
  }
  for (const fs::path& path : sources) {
    if (path.extension() != ".cc") continue;
    std::string text = ReadText(path);
    re2::StringPiece input(text);
    std::string code;
    while (RE2::FindAndConsume(&input, R"re(codes::(CH\d{4}))re", &code)) emitted.insert(code);
  }
  ASSERT_FALSE(emitted.empty());

  std::string doc = ReadText("docs/diagnostics.md");
  std::set<std::string> documented;
  re2::StringPiece input(doc);
  std::string code;
  while (RE2::FindAndConsume(&input, R"((?m)^### (CH\d{4}))", &code)) documented.insert(code);

  std::set<std::string> examples;
  for (const Block* b : BlocksOf("cedar-error")) examples.insert(ExpectedCode(*b));
  for (const Block* b : BlocksOf("cedarschema-error")) examples.insert(ExpectedCode(*b));
  for (const Block* b : BlocksOf("cedar-invalid")) examples.insert(ExpectedCode(*b));
  // Schema codes without a block: JSON cannot carry the `// expect:` line,
  // and CH0412, CH0519 need input no example shows (tests/core/schema/ checks
  // them, and tests/core/schema/diagnostic_coverage_test.cc that it does).
  // CH0521 needs template links, which a block cannot carry (its rendering
  // is pinned by tests/core/schema/validator_test.cc and the CLI's goldens).
  // CH0007 needs a process short of memory (tests/cli/parse_memory_test.sh
  // runs one under `ulimit -v`).
  const std::set<std::string> without_example = {"CH0001", "CH0007", "CH0100", "CH0201", "CH0204", "CH0410",
                                                 "CH0411", "CH0412", "CH0519", "CH0521"};

  for (const std::string& c : emitted) {
    EXPECT_TRUE(documented.count(c)) << c << " is emitted but has no `### " << c
                                     << "` section in docs/diagnostics.md";
    if (!without_example.count(c)) {
      EXPECT_TRUE(examples.count(c)) << c << " has no ```cedar-error example with `// expect: "
                                     << c << "`";
    }
  }
  for (const std::string& c : without_example) {
    EXPECT_TRUE(emitted.count(c)) << c << " is listed as without an example but is not emitted";
  }
}

// The codes that cannot be shown as a block, checked as the text describes.
TEST(DocsExamples, DiagnosticsWithoutABlock) {
  {  // CH0001: a byte that is not UTF-8.
    SourceFile source("bad.cedar", "permit(principal, action, resource) when { \"\xff\" };");
    Diagnostics d;
    EXPECT_FALSE(Compile(source, {}, &d).ok());
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d.items()[0].code, "CH0001");
  }
  {  // CH0201: 300 nested `==` with max_nesting raised to 1000.
    std::string e = "true";
    for (int i = 0; i < 300; ++i) e = Cat("(true == ", e, ")");
    SourceFile source("deep.cedar",
                      Cat("permit(principal, action, resource) when { ", e, " };"));
    CompileOptions options;
    options.max_nesting = 1000;
    Diagnostics d;
    EXPECT_FALSE(Compile(source, options, &d).ok());
    ASSERT_FALSE(d.empty());
    EXPECT_EQ(d.items()[0].code, "CH0201");
  }
  {  // CH0204: 65,537 record literals with different keys, over four
     // policies (one would be past the 262,144 tokens of CH0005).
    std::string text;
    for (int p = 0; p < 4; ++p) {
      std::string e = "[";
      for (int i = p * 16384; i < (p + 1) * 16384 + (p == 3 ? 1 : 0); ++i) {
        e += Cat(e.size() == 1 ? "" : ", ", "{k", i, ": context.n}");
      }
      text += Cat("permit(principal, action, resource) when { ", e, "].isEmpty() };\n");
    }
    SourceFile source("shapes.cedar", text);
    Diagnostics d;
    EXPECT_FALSE(Compile(source, {}, &d).ok());
    ASSERT_FALSE(d.empty());
    EXPECT_EQ(d.items()[0].code, "CH0204");
  }
  {  // No CH0201 for long literals: a set of 10,000 computed elements compiles.
    std::string e = "[context.a";
    for (int i = 1; i < 10000; ++i) e += Cat(", context.a + ", i);
    SourceFile source("set.cedar", Cat("permit(principal, action, resource) when { ", e, "].isEmpty() };"));
    EXPECT_TRUE(Compile(source, {}, nullptr).ok());
  }
  {  // CH0004 with the default options: a chain of 1000 method calls.
    std::string e = "context.start";
    for (int i = 0; i < 1000; ++i) e += ".offset(duration(\"1s\"))";
    SourceFile source("chain.cedar",
                      Cat("permit(principal, action, resource) when { ", e, " < context.now };"));
    Diagnostics d;
    EXPECT_FALSE(Compile(source, {}, &d).ok());
    ASSERT_FALSE(d.empty());
    EXPECT_EQ(d.items()[0].code, "CH0004");
  }
  {  // Long flat chains add no depth: 5,000 `||` compile with the defaults.
    std::string e = "context.a";
    for (int i = 0; i < 5000; ++i) e += " || context.a";
    SourceFile source("flat.cedar", Cat("permit(principal, action, resource) when { ", e, " };"));
    EXPECT_TRUE(Compile(source, {}, nullptr).ok());
  }
}

// --- tables that restate a source of truth -----------------------------------

std::string KindName(internal::Operand kind) {
  using internal::Operand;
  switch (kind) {
    case Operand::kNone: return "—";
    case Operand::kReg: return "reg";
    case Operand::kVar: return "var";
    case Operand::kFlag: return "flag";
    case Operand::kLong: return "long";
    case Operand::kStr: return "str";
    case Operand::kEntity: return "entity";
    case Operand::kTarget: return "target";
    case Operand::kPattern: return "pattern";
    case Operand::kShape: return "shape";
    case Operand::kBuiltin: return "builtin";
    case Operand::kCount: return "count";
    case Operand::kRegs: return "regs";
    case Operand::kConstSet: return "constset";
  }
  return "?";
}

// docs/bundle.md's instruction table has a row for each entry of
// opcodes.def, in order, with its operand kinds.
TEST(DocsExamples, OpcodeTableFollowsOpcodesDef) {
  std::string doc = ReadText("docs/bundle.md");
  re2::StringPiece input(doc);
  int number = 0;
  std::string name, a, b, c;
  std::vector<std::string> rows;
  constexpr char kRow[] = R"((?m)^\| (\d+) \| `(\w+)` \| (\S+) \| (\S+) \| (\S+) \| )";
  while (RE2::FindAndConsume(&input, kRow, &number, &name, &a, &b, &c)) {
    rows.push_back(Cat(number, " ", name, " ", a, " ", b, " ", c));
  }
  std::vector<std::string> want;
  for (int op = 0; op < internal::kNumOpcodes; ++op) {
    const internal::OpInfo& info = internal::kOpInfo[op];
    want.push_back(Cat(op, " ", info.name, " ", KindName(info.a), " ", KindName(info.b), " ",
                       KindName(info.c)));
  }
  EXPECT_EQ(rows, want) << "docs/bundle.md's opcode table differs from opcodes.def";
}

// docs/bundle.md states the format version the engine writes and the ones it
// reads, in the Layout table and in the verifier's list, and its example of
// the message for another version is the verifier's.
TEST(DocsExamples, BundleDocStatesTheFormatVersion) {
  std::string doc = ReadText("docs/bundle.md");
  int written = 0, oldest = 0, newest = 0;
  ASSERT_TRUE(RE2::PartialMatch(
      doc, R"((?m)^\| `format_version` \| `(\d+)`, the version this engine writes; it reads versions `(\d+)` to `(\d+)`)",
      &written, &oldest, &newest))
      << "docs/bundle.md has no `format_version` row in the expected words";
  EXPECT_EQ(written, static_cast<int>(internal::kFormatVersion));
  EXPECT_EQ(oldest, static_cast<int>(internal::kOldestFormatVersion));
  EXPECT_EQ(newest, static_cast<int>(internal::kFormatVersion));
  int listed_oldest = 0, listed_newest = 0;
  ASSERT_TRUE(RE2::PartialMatch(doc, R"((?m)^4\. the format version is one the engine reads \((\d+) to (\d+)\))",
                                &listed_oldest, &listed_newest));
  EXPECT_EQ(listed_oldest, static_cast<int>(internal::kOldestFormatVersion));
  EXPECT_EQ(listed_newest, static_cast<int>(internal::kFormatVersion));
  // A bundle of version 1: the message is the documented example's.
  flatbuffers::FlatBufferBuilder fbb;
  auto root = internal::fb::CreateBundle(fbb, 1);
  internal::fb::FinishBundleBuffer(fbb, root);
  absl::StatusOr<Engine> engine = Engine::Create(
      Bundle::FromBytes(std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize())));
  ASSERT_FALSE(engine.ok());
  std::string message(engine.status().message());
  EXPECT_NE(message.find("format version 1"), std::string::npos) << message;
  EXPECT_NE(doc.find("\n" + message + "\n"), std::string::npos)
      << "docs/bundle.md's examples of messages lack the verifier's `" << message << "`";
}

// docs/bundle.md's builtin table (the `Call` operand) follows builtins.def,
// and docs/language.md names every builtin.
TEST(DocsExamples, BuiltinTableFollowsBuiltinsDef) {
  std::string doc = ReadText("docs/bundle.md");
  re2::StringPiece input(doc);
  int number = 0, arity = 0;
  std::string name, style;
  std::vector<std::string> rows;
  constexpr char kRow[] = R"((?m)^\| (\d+) \| `(\w+)` \| (method|function|internal) \| (\d+) \|$)";
  while (RE2::FindAndConsume(&input, kRow, &number, &name, &style, &arity)) {
    rows.push_back(Cat(number, " ", name, " ", style, " ", arity));
  }
  std::vector<std::string> want;
  std::string language = ReadText("docs/language.md");
  for (uint32_t i = 0; i < internal::kNumBuiltins; ++i) {
    const internal::BuiltinInfo& info = internal::kBuiltins[i];
    bool method = info.style == internal::CallStyle::kMethod;
    bool internal_only = info.style == internal::CallStyle::kInternal;
    want.push_back(Cat(i, " ", info.name, " ",
                       method ? "method" : internal_only ? "internal" : "function", " ",
                       static_cast<int>(info.arity)));
    if (internal_only) continue;
    std::string written = Cat(method ? "." : "", info.name, "(");
    EXPECT_NE(language.find(written), std::string::npos)
        << "docs/language.md does not show `" << written << "`";
  }
  EXPECT_EQ(rows, want) << "docs/bundle.md's builtin table differs from builtins.def";
}

// --- console sessions --------------------------------------------------------

struct Step {
  std::string command;
  std::string expected;
};

std::vector<Step> ParseSession(const Block& b) {
  std::vector<Step> steps;
  for (const std::string& line : Split(b.text, '\n')) {
    if (line.substr(0, 2) == "$ ") {
      steps.push_back(Step{line.substr(2), ""});
    } else if (!steps.empty()) {
      steps.back().expected.append(line).append("\n");
    } else if (!line.empty()) {
      ADD_FAILURE() << b.where() << ": a console block must start with `$ `";
    }
  }
  // StrSplit leaves one empty piece after the block's last newline.
  for (Step& s : steps) {
    while (s.expected.size() >= 2 && s.expected.substr(s.expected.size() - 2) == "\n\n") {
      s.expected.pop_back();
    }
    if (s.expected == "\n") s.expected.clear();
  }
  return steps;
}

std::string ShellQuote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  out += "'";
  return out;
}

// With CHARTER_UPDATE_DOCS=1, ConsoleSessions writes what each session
// printed back into its document (the test still fails, so that the change
// is seen and reviewed: run it again, then read the diff).
struct Rewrite {
  int line;          // of the block's opening fence
  std::string old_text, new_text;
};

void RewriteBlocks(const std::string& file, std::vector<Rewrite> rewrites) {
  std::vector<std::string> lines = Split(ReadText(file), '\n');
  std::sort(rewrites.begin(), rewrites.end(), [](const Rewrite& a, const Rewrite& b) { return a.line > b.line; });
  for (const Rewrite& r : rewrites) {
    std::vector<std::string> old_lines = Split(r.old_text, '\n');
    old_lines.pop_back();  // the piece after the last newline
    std::vector<std::string> new_lines = Split(r.new_text, '\n');
    new_lines.pop_back();
    const size_t begin = static_cast<size_t>(r.line);  // the line after the fence, 0-based
    ASSERT_LE(begin + old_lines.size(), lines.size()) << file << ":" << r.line;
    ASSERT_TRUE(std::equal(old_lines.begin(), old_lines.end(), lines.begin() + begin)) << file << ":" << r.line;
    lines.erase(lines.begin() + begin, lines.begin() + begin + old_lines.size());
    lines.insert(lines.begin() + begin, new_lines.begin(), new_lines.end());
  }
  std::string text;
  for (size_t i = 0; i < lines.size(); ++i) text += i + 1 < lines.size() ? lines[i] + "\n" : lines[i];
  std::ofstream(file, std::ios::binary) << text;
}

TEST(DocsExamples, ConsoleSessions) {
  const bool update = getenv("CHARTER_UPDATE_DOCS") != nullptr && std::string(getenv("CHARTER_UPDATE_DOCS")) == "1";
#ifndef CHARTER_CLI_PATH
  (void)update;
  GTEST_SKIP() << "the charter tool is not part of this build";
#else
  const fs::path cli = fs::absolute(CHARTER_CLI_PATH);
  ASSERT_TRUE(fs::exists(cli)) << cli;
  for (const auto& [file, blocks] : AllBlocks()) {
    bool has_console = std::any_of(blocks.begin(), blocks.end(),
                                   [](const Block& b) { return b.lang == "console"; });
    if (!has_console) continue;
    std::string name = file.substr(0, file.size() - 3);  // without ".md"
    std::replace(name.begin(), name.end(), '/', '-');
    fs::path dir = fs::path(CHARTER_BINARY_DIR) / "tests/docs/sessions" / name;
    std::vector<Rewrite> rewrites;
    fs::remove_all(dir);
    fs::create_directories(dir);
    // The standard library (stdlib/*.cedar, *.cedarschema) and the
    // examples, as a user of a checkout reaches them.
    fs::create_directory_symlink(fs::absolute("stdlib"), dir / "stdlib");
    fs::create_directory_symlink(fs::absolute("examples"), dir / "examples");
    for (const Block& b : blocks) {
      auto it = b.attrs.find("file");
      if (it == b.attrs.end()) continue;
      std::ofstream(dir / it->second, std::ios::binary) << b.text;
    }
    for (const Block& b : blocks) {
      if (b.lang != "console") continue;
      std::vector<Step> steps = ParseSession(b);
      // One shell for the block, so that `$?` and files carry over; a
      // separator byte before each command splits the output.
      std::string script = Cat("cd ", ShellQuote(dir.string()), " || exit 99\nPATH=",
                                        ShellQuote(cli.parent_path().string()), ":$PATH\n_s=0\n");
      for (const Step& s : steps) {
        script += Cat("printf '\\036'; (exit $_s); { ", s.command, "\n} 2>&1; _s=$?\n");
      }
      fs::path script_path = dir / Cat("session-", b.line, ".sh");
      std::ofstream(script_path, std::ios::binary) << script;
      FILE* pipe = popen(Cat("sh ", ShellQuote(script_path.string())).c_str(), "r");
      ASSERT_NE(pipe, nullptr);
      std::string out;
      char buffer[4096];
      size_t n;
      while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
      pclose(pipe);
      std::vector<std::string> outputs = Split(out, '\036');
      ASSERT_EQ(outputs.size(), steps.size() + 1) << b.where() << ": the session stopped early:\n"
                                                  << out;
      std::string updated;
      for (size_t i = 0; i < steps.size(); ++i) {
        EXPECT_EQ(outputs[i + 1], steps[i].expected)
            << b.where() << ": `" << steps[i].command << "` printed something else";
        updated += Cat("$ ", steps[i].command, "\n", outputs[i + 1]);
        if (!updated.empty() && updated.back() != '\n') updated += '\n';
      }
      if (update && updated != b.text) rewrites.push_back({b.line, b.text, updated});
    }
    if (!rewrites.empty()) RewriteBlocks(file, rewrites);
  }
#endif
}

// --- bytecode listings -------------------------------------------------------

// The listing without synopses (charter disasm prints them too; the
// documents' ```bytecode blocks stay narrow).
std::string Listing(const Bundle& bundle) {
  absl::StatusOr<Disassembly> d = Disassemble(bundle);
  return d.ok() ? d->ToText(/*with_synopsis=*/false) : std::string(d.status().message());
}

TEST(DocsExamples, BytecodeListings) {
  int listings = 0;
  for (const auto& [file, blocks] : AllBlocks()) {
    const Block* source_block = nullptr;
    for (const Block& b : blocks) {
      if (b.lang == "cedar") source_block = &b;
      if (b.lang != "bytecode") continue;
      ++listings;
      ASSERT_NE(source_block, nullptr) << b.where() << ": no ```cedar block above this listing";
      SourceFile source(source_block->where(), source_block->text);
      absl::StatusOr<Bundle> bundle = Compile(source, OptionsOf(*source_block), nullptr);
      ASSERT_TRUE(bundle.ok()) << bundle.status();
      EXPECT_EQ(b.text, Listing(*bundle)) << b.where() << ": the listing differs";
    }
  }
  EXPECT_GE(listings, 1);
}

// tests/docs/CMakeLists.txt found the same programs in docs/embedding.md as
// this reading of it (else the build directory needs reconfiguring).
TEST(DocsExamples, EmbeddingProgramsAreBuilt) {
  int programs = 0;
  for (const auto& [file, blocks] : AllBlocks()) {
    for (const Block& b : blocks) {
      if (b.lang == "cpp" && b.text.rfind("// example: ", 0) == 0) {
        EXPECT_EQ(file, "docs/embedding.md") << b.where() << ": only docs/embedding.md programs are built";
        ++programs;
      }
    }
  }
  EXPECT_GE(programs, 1);
#ifdef CHARTER_DOCS_PROGRAMS
  EXPECT_EQ(programs, CHARTER_DOCS_PROGRAMS) << "re-run cmake: docs/embedding.md changed";
#endif
}

}  // namespace
}  // namespace charter
