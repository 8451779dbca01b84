// The opcode table (opcodes.def) and the bundle schema's Opcode enum must
// name the same opcodes in the same order.
#include "bytecode/opcodes.h"

#include <string>

#include "charter/bundle_generated.h"
#include "gtest/gtest.h"

namespace charter::internal {
namespace {

TEST(Opcodes, SchemaEnumMatchesTable) {
  const char* const* names = fb::EnumNamesOpcode();
  ASSERT_EQ(static_cast<int>(fb::Opcode::MAX) + 1, kNumOpcodes);
  for (int i = 0; i < kNumOpcodes; ++i) {
    EXPECT_EQ(std::string(names[i]), std::string(kOpInfo[i].name)) << "opcode " << i;
  }
}

TEST(Opcodes, EncodingRoundTrips) {
  Insn insn{Insn::Encode(Op::kAttr, 200, 65535, 0xFFFFFFFFu)};
  EXPECT_EQ(insn.op(), Op::kAttr);
  EXPECT_EQ(insn.a(), 200u);
  EXPECT_EQ(insn.b(), 65535u);
  EXPECT_EQ(insn.c(), 0xFFFFFFFFu);
}

TEST(Opcodes, EveryOpcodeHasASynopsis) {
  for (const OpInfo& info : kOpInfo) EXPECT_FALSE(info.synopsis.empty()) << info.name;
}

}  // namespace
}  // namespace charter::internal
