// The disassembler: a verified bundle as readable bytecode, one line an
// instruction, every operand printed as its kind in opcodes.def says:
//
//   policy ml-submit (permit, 2 registers)
//     0  Var          r0, principal
//     1  Entity       r1, Team::"ml"
//     3  JumpIfFalse  r0, -> 18
//
// and, with the synopsis column (what `charter disasm` prints), each line
// followed by its opcode's synopsis from opcodes.def. Behind
// charter::Disassemble (charter/disassembly.h); the docs test compares
// ```bytecode listings with the listing without synopses.
#ifndef CHARTER_BYTECODE_DISASM_H_
#define CHARTER_BYTECODE_DISASM_H_

#include <string>

#include "charter/bundle_generated.h"
#include "charter/disassembly.h"

namespace charter::internal {

// INVARIANT: `bundle` has passed VerifyBundle (operands index its pools).
Disassembly DisassembleBundle(const fb::Bundle* bundle);

// The lines of the listing (charter::Disassembly's ToText and its parts').
std::string PolicyHeader(const DisassembledPolicy& p);
std::string InstructionLine(const DisassembledInstruction& i, bool synopsis);
std::string ListingText(const Disassembly& d, bool synopsis);

// ListingText(DisassembleBundle(bundle), false).
std::string Disassemble(const fb::Bundle* bundle);

}  // namespace charter::internal

#endif  // CHARTER_BYTECODE_DISASM_H_
