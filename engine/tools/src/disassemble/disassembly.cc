// charter::Disassemble: verify, then the disassembler (bytecode/disasm.h).
#include "charter/disassembly.h"

#include "disassemble/disasm.h"
#include "verify/verifier.h"

namespace charter {

std::string DisassembledInstruction::ToText(bool with_synopsis) const {
  return internal::InstructionLine(*this, with_synopsis);
}
std::string DisassembledPolicy::Header() const { return internal::PolicyHeader(*this); }
std::string Disassembly::ToText(bool with_synopsis) const {
  return internal::ListingText(*this, with_synopsis);
}

absl::StatusOr<Disassembly> Disassemble(const Bundle& bundle, const VerifyOptions& options) {
  absl::StatusOr<const internal::fb::Bundle*> root = internal::VerifyBundle(bundle.bytes(), options);
  if (!root.ok()) return root.status();
  return internal::DisassembleBundle(*root);
}

}  // namespace charter
