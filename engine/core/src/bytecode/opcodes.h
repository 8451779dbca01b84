// Opcodes and the instruction encoding, generated from opcodes.def.
#ifndef CHARTER_BYTECODE_OPCODES_H_
#define CHARTER_BYTECODE_OPCODES_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace charter::internal {

enum class Op : uint8_t {
#define OP(name, a, b, c, synopsis) k##name,
#include "bytecode/opcodes.def"
#undef OP
};

inline constexpr int kNumOpcodes = 0
#define OP(name, a, b, c, synopsis) +1
#include "bytecode/opcodes.def"
#undef OP
    ;

enum class Operand : uint8_t {
  kNone, kReg, kVar, kFlag, kLong, kStr, kEntity, kTarget, kPattern, kShape, kBuiltin, kCount, kRegs,
  kConstSet
};

struct OpInfo {
  std::string_view name;
  Operand a, b, c;
  std::string_view synopsis;
};

inline constexpr OpInfo kOpInfo[] = {
#define OP(name, a, b, c, synopsis) \
  {#name, Operand::a, Operand::b, Operand::c, synopsis},
#include "bytecode/opcodes.def"
#undef OP
};

// One instruction: opcode in bits 0-7, a in 8-15, b in 16-31, c in 32-63.
struct Insn {
  uint64_t word;
  Op op() const { return static_cast<Op>(word & 0xFF); }
  uint8_t raw_op() const { return static_cast<uint8_t>(word & 0xFF); }
  uint32_t a() const { return static_cast<uint32_t>((word >> 8) & 0xFF); }
  uint32_t b() const { return static_cast<uint32_t>((word >> 16) & 0xFFFF); }
  uint32_t c() const { return static_cast<uint32_t>(word >> 32); }
  static constexpr uint64_t Encode(Op op, uint32_t a, uint32_t b, uint32_t c) {
    return static_cast<uint64_t>(op) | (static_cast<uint64_t>(a & 0xFF) << 8) |
           (static_cast<uint64_t>(b & 0xFFFF) << 16) | (static_cast<uint64_t>(c) << 32);
  }
};

inline constexpr uint32_t kMaxRegisters = 256;
inline constexpr uint32_t kMaxOperandB = 0xFFFF;
// The format version a compiler writes. Version 2 bundles (before the
// scheduling configuration and the source names) read the same way: their
// tables lack the fields added since, which are optional.
inline constexpr uint32_t kFormatVersion = 4;
inline constexpr uint32_t kOldestFormatVersion = 2;

}  // namespace charter::internal

#endif  // CHARTER_BYTECODE_OPCODES_H_
