// Disassembly: a bundle's bytecode, readable, with each instruction's place
// in the policy text. What `charter disasm` prints; the instruction set is
// described in docs/bundle.md.
//
//   absl::StatusOr<charter::Disassembly> d = charter::Disassemble(bundle);
//   for (const charter::DisassembledPolicy& p : d->policies)
//     for (const charter::DisassembledInstruction& i : p.code)
//       if (i.has_span) show(p.id, i.pc, i.span);
//   std::cout << d->ToText();
//
//   policy ml-submit (permit, 2 registers)
//     0  Var          r0, principal               ; R[a] = the request variable b
//     1  Entity       r1, Team::"ml"              ; R[a] = entities[c]
#ifndef CHARTER_DISASSEMBLY_H_
#define CHARTER_DISASSEMBLY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "charter/bundle.h"
#include "charter/diagnostics.h"
#include "charter/engine.h"
#include "charter/export.h"

namespace charter {

struct CHARTER_API DisassembledInstruction {
  uint32_t pc = 0;
  std::string opcode;    // "JumpIfFalse"
  std::string operands;  // "r0, -> 18", each as its kind reads (docs/bundle.md)
  std::string synopsis;  // what the opcode does, one line
  // The source of the expression the instruction computes, from the
  // bundle's pc-to-span table; a bundle may have none.
  bool has_span = false;
  Span span;

  // Its line of the listing, without the newline.
  std::string ToText(bool with_synopsis = true) const;
};

struct CHARTER_API DisassembledPolicy {
  std::string id;
  bool permit = true;  // else forbid
  uint32_t registers = 0;
  std::vector<DisassembledInstruction> code;

  // The line that starts its block, "policy ID (permit, 2 registers)".
  std::string Header() const;
};

struct CHARTER_API Disassembly {
  std::vector<DisassembledPolicy> policies;

  // The listing: each policy's Header() line, then a line for each of its
  // instructions (pc, opcode, operands, and with `with_synopsis` the
  // opcode's synopsis after `;`).
  std::string ToText(bool with_synopsis = true) const;
};

// Verifies the bundle (as Engine::Create does) and disassembles it. A
// corrupt or hostile bundle is the InvalidArgument error Engine::Create
// would give.
CHARTER_API absl::StatusOr<Disassembly> Disassemble(const Bundle& bundle, const VerifyOptions& options = {});

}  // namespace charter

#endif  // CHARTER_DISASSEMBLY_H_
