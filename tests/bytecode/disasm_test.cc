// The disassembler keeps one line an instruction, whatever the policy's
// strings and entity ids hold.
#include "bytecode/disasm.h"

#include <string>

#include "charter/compiler.h"
#include "charter/diagnostics.h"
#include "gtest/gtest.h"

namespace charter {
namespace {

std::string Listing(const std::string& text) {
  SourceFile source("p.cedar", text);
  absl::StatusOr<Bundle> bundle = Compile(source, {}, nullptr);
  EXPECT_TRUE(bundle.ok()) << bundle.status();
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

}  // namespace
}  // namespace charter
