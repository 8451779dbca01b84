// The disassembler keeps one line an instruction, whatever the policy's
// strings and entity ids hold; the public Disassemble gives it structured,
// with spans and synopses, and refuses a bundle that does not verify.
#include "disassemble/disasm.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "charter/compiler.h"
#include "charter/diagnostics.h"
#include "charter/disassembly.h"
#include "charter/schema.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::StatusIs;

std::string Listing(const std::string& text) {
  SourceFile source("p.cedar", text);
  absl::StatusOr<Bundle> bundle = Compile(source, {}, nullptr);
  EXPECT_THAT(bundle, IsOk());
  if (!bundle.ok()) return "";
  return internal::Disassemble(internal::fb::GetBundle(bundle->bytes().data()));
}

TEST(Disassemble, EscapesControlCharactersInStringsAndEntityIds) {
  std::string out = Listing(
      "permit (principal == User::\"a\\nb\", action, resource)\n"
      "when { context.note == \"line\\none\\ttab\\\"q\\\"\" };\n");
  EXPECT_NE(out.find("User::\"a\\nb\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"line\\none\\ttab\\\"q\\\"\""), std::string::npos) << out;
  // Every line is the policy header or an instruction: none starts with
  // the rest of a string.
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    std::string line = out.substr(start, end - start);
    EXPECT_TRUE(line.rfind("policy ", 0) == 0 || line.rfind("  ", 0) == 0) << "stray line: " << line;
    start = end + 1;
  }
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Golden listings: for each tests/tools/disassemble/golden/NAME.cedar, NAME.disasm is
// its code compiled without a schema and, when NAME.cedarschema exists,
// NAME.typed.disasm its code compiled with it. CHARTER_UPDATE_GOLDEN=1
// rewrites them.
void CheckGolden(const std::filesystem::path& golden, const std::string& listing) {
  if (std::getenv("CHARTER_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden, std::ios::binary) << listing;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(golden)) << golden << " is missing; run with CHARTER_UPDATE_GOLDEN=1";
  EXPECT_EQ(ReadAll(golden), listing) << "the listing differs from " << golden;
}

TEST(Disassemble, Goldens) {
  std::filesystem::path dir = std::filesystem::path(CHARTER_SOURCE_DIR) / "tests/tools/disassemble/golden";
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".cedar") continue;
    ++cases;
    std::filesystem::path base = entry.path();
    base.replace_extension();
    SourceFile source(entry.path().filename().string(), ReadAll(entry.path()));
    Diagnostics diagnostics;
    absl::StatusOr<Bundle> untyped = Compile(source, {}, &diagnostics);
    ASSERT_THAT(untyped, IsOk()) << diagnostics.Render(source);
    const auto* root = internal::fb::GetBundle(untyped->bytes().data());
    EXPECT_EQ(root->schema_fingerprint(), nullptr);
    CheckGolden(base.string() + ".disasm", internal::Disassemble(root));

    std::filesystem::path schema_path = base.string() + ".cedarschema";
    if (!std::filesystem::exists(schema_path)) continue;
    SourceFile schema_source(schema_path.filename().string(), ReadAll(schema_path));
    absl::StatusOr<Schema> schema = Schema::Parse(schema_source, {}, &diagnostics);
    ASSERT_THAT(schema, IsOk()) << diagnostics.Render(schema_source);
    CompileOptions options;
    options.schema = &*schema;
    absl::StatusOr<Bundle> typed = Compile(source, options, &diagnostics);
    ASSERT_THAT(typed, IsOk()) << diagnostics.Render(source);
    root = internal::fb::GetBundle(typed->bytes().data());
    ASSERT_NE(root->schema_fingerprint(), nullptr);
    EXPECT_EQ(root->schema_fingerprint()->str(), schema->Fingerprint());
    std::string listing = internal::Disassemble(root);
    CheckGolden(base.string() + ".typed.disasm", listing);
    // What typing removes, whatever the goldens say.
    for (const char* checked : {"CheckBool", " JumpIfFalse", " JumpIfTrue", " Not ", " Neg ",
                                " Add ", " Sub ", " Mul ", " Lt ", " Le ", " Gt ", " Ge "}) {
      EXPECT_EQ(listing.find(checked), std::string::npos) << checked << " in\n" << listing;
    }
  }
  EXPECT_GT(cases, 0);
}

// A constant set is one instruction however long; a long one is shortened
// in listings.
TEST(Disassemble, ConstantSets) {
  std::string e = "[0";
  for (int i = 1; i < 40; ++i) e += ", " + std::to_string(i);
  std::string out = Listing("permit (principal, action, resource) when { " + e + "].contains(3) };");
  EXPECT_NE(out.find("ConstSet     r0, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, … 24 more]"),
            std::string::npos)
      << out;
}

TEST(Disassembly, StructuredWithSpansAndSynopses) {
  std::string text = "@id(\"p\")\npermit (principal, action, resource)\nwhen { context.urgent };\n";
  SourceFile source("p.cedar", text);
  absl::StatusOr<Bundle> bundle = Compile(source, {}, nullptr);
  ASSERT_THAT(bundle, IsOk());
  absl::StatusOr<Disassembly> d = Disassemble(*bundle);
  ASSERT_THAT(d, IsOk());
  ASSERT_EQ(d->policies.size(), 1u);
  const DisassembledPolicy& p = d->policies[0];
  EXPECT_TRUE(p.permit);
  EXPECT_EQ(p.Header(), "policy p (permit, " + std::to_string(p.registers) + " registers)");
  ASSERT_FALSE(p.code.empty());
  bool spanned = false;
  for (size_t pc = 0; pc < p.code.size(); ++pc) {
    const DisassembledInstruction& i = p.code[pc];
    EXPECT_EQ(i.pc, pc);
    EXPECT_FALSE(i.opcode.empty());
    EXPECT_FALSE(i.synopsis.empty());
    // The line without the synopsis is the line with it, cut before `;`.
    std::string with = i.ToText(true), without = i.ToText(false);
    EXPECT_EQ(with.rfind(without, 0), 0u) << with;
    EXPECT_NE(with.find("; " + i.synopsis), std::string::npos) << with;
    if (i.has_span) {
      spanned = true;
      EXPECT_LE(i.span.end, text.size());
      EXPECT_LT(i.span.begin, i.span.end);
    }
  }
  EXPECT_TRUE(spanned) << "no instruction has a source span";
  std::string listing = d->ToText(false);
  EXPECT_EQ(listing.rfind(p.Header() + "\n", 0), 0u) << listing;
}

TEST(Disassembly, RefusesABundleThatDoesNotVerify) {
  absl::StatusOr<Disassembly> d = Disassemble(Bundle::FromBytes("not a bundle"));
  ASSERT_THAT(d, StatusIs(absl::StatusCode::kInvalidArgument, testing::HasSubstr("invalid bundle")));
}

}  // namespace
}  // namespace charter
