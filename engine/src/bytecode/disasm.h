// The disassembler: a verified bundle as readable bytecode, one line an
// instruction, every operand printed as its kind in opcodes.def says:
//
//   policy ml-submit (permit, 2 registers)
//     0  Var          r0, principal
//     1  Entity       r1, Team::"ml"
//     3  JumpIfFalse  r0, -> 18
//
// Used by `charter disasm` and by the docs test (```bytecode listings).
#ifndef CHARTER_BYTECODE_DISASM_H_
#define CHARTER_BYTECODE_DISASM_H_

#include <string>

#include "charter/bundle_generated.h"

namespace charter::internal {

// INVARIANT: `bundle` has passed VerifyBundle (operands index its pools).
std::string Disassemble(const fb::Bundle* bundle);

}  // namespace charter::internal

#endif  // CHARTER_BYTECODE_DISASM_H_
