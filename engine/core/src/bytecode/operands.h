// The operand rules that need more than one field of an instruction, written
// once for the verifier, the disassembler and anything else that reads
// bytecode.
#ifndef CHARTER_BYTECODE_OPERANDS_H_
#define CHARTER_BYTECODE_OPERANDS_H_

#include <cstdint>

#include "builtins/builtins.h"
#include "bytecode/opcodes.h"
#include "charter/bundle_generated.h"

namespace charter::internal {

// Every opcode with a register range (kRegs in c) says its length in b: a
// count, a record shape or a builtin.
constexpr bool RangesHaveALength() {
  for (const OpInfo& info : kOpInfo) {
    if (info.c == Operand::kRegs && info.b != Operand::kCount && info.b != Operand::kShape &&
        info.b != Operand::kBuiltin) {
      return false;
    }
  }
  return true;
}
static_assert(RangesHaveALength(), "an opcode in opcodes.def has a kRegs range without a length in b");

// How many registers the kRegs range of `insn` covers, from R[c]: what its b
// operand says by its kind, the count itself (MakeSet, SetExtend), the
// shape's number of keys (MakeRecord, RecordExtend) or the builtin's arity
// (Call). 0 for an opcode without a range.
// INVARIANT: b is in range for its kind (the verifier checks the operands
// one by one before it checks the range they make).
inline uint32_t RegisterRangeLength(const fb::Bundle* bundle, Insn insn) {
  const OpInfo& info = kOpInfo[insn.raw_op()];
  if (info.c != Operand::kRegs) return 0;
  switch (info.b) {
    case Operand::kCount: return insn.b();
    case Operand::kShape: return bundle->record_shapes()->Get(insn.b())->keys()->size();
    case Operand::kBuiltin: return kBuiltins[insn.b()].arity;
    default: return 0;  // ruled out by RangesHaveALength
  }
}

}  // namespace charter::internal

#endif  // CHARTER_BYTECODE_OPERANDS_H_
