// Verifies untrusted bundles: structure first (FlatBuffers), then meaning
// (known opcodes, operands in range, forward jumps on instruction
// boundaries, a terminator at the end, unique policy ids, valid UTF-8).
//
// The FlatBuffers Verifier tracks the furthest byte it verified, so that a
// buffer with bytes after the bundle's end is refused. The macro that turns
// that on (FLATBUFFERS_TRACK_VERIFIER_BUFFER_SIZE) is defined for every file
// of the engine and of what links it internally (engine/CMakeLists.txt):
// the Verifier's inline members differ with it, and the scheduling
// library's section reader uses a Verifier too, so one file without it
// could give the linker a copy that does not track.
#ifndef FLATBUFFERS_TRACK_VERIFIER_BUFFER_SIZE
#error "FLATBUFFERS_TRACK_VERIFIER_BUFFER_SIZE must be defined for every file of the engine"
#endif
#include "verify/verifier.h"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "builtins/builtins.h"
#include "bytecode/opcodes.h"
#include "bytecode/operands.h"
#include "common/utf8.h"
#include "flatbuffers/flatbuffers.h"

namespace charter::internal {
namespace {

absl::Status Bad(std::string_view what) {
  return absl::InvalidArgumentError(Cat("invalid bundle: ", what));
}

// FlatBuffers' Verifier checks a vector's length prefix for alignment, not
// its elements: a hostile bundle can place a vector of 8-byte scalars at an
// address that is 4 mod 8, and reading it would be undefined behaviour. (The
// bundle's bytes start 8-byte aligned: mapped, or copied by Bundle.) An
// empty vector has nothing to read, and FlatBuffers does not align it.
template <typename T>
bool ElementsAligned(const flatbuffers::Vector<T>* v) {
  return v == nullptr || v->size() == 0 ||
         reinterpret_cast<uintptr_t>(v->data()) % alignof(T) == 0;
}

bool ValidString(const flatbuffers::String* s) {
  return s != nullptr && FindInvalidUtf8(s->string_view()) == std::string_view::npos;
}

absl::Status CheckOperand(Operand kind, uint32_t value, uint32_t pc, uint32_t size,
                          uint32_t num_registers, const fb::Bundle* b) {
  auto count = [](const auto* v) -> uint32_t { return v == nullptr ? 0 : v->size(); };
  switch (kind) {
    case Operand::kNone:
      return value == 0 ? absl::OkStatus() : Bad("unused operand is not zero");
    case Operand::kReg:
      return value < num_registers ? absl::OkStatus() : Bad("register out of range");
    case Operand::kVar:
      return value < 4 ? absl::OkStatus() : Bad("unknown request variable");
    case Operand::kFlag:
      return value <= 1 ? absl::OkStatus() : Bad("flag is not 0 or 1");
    case Operand::kLong:
      return value < count(b->longs()) ? absl::OkStatus() : Bad("long constant out of range");
    case Operand::kStr:
      return value < count(b->strings()) ? absl::OkStatus() : Bad("string constant out of range");
    case Operand::kEntity:
      return value < count(b->entities()) ? absl::OkStatus() : Bad("entity constant out of range");
    case Operand::kTarget:
      // Forward only, so that evaluation always ends.
      return value > pc && value < size ? absl::OkStatus() : Bad("jump target out of range");
    case Operand::kPattern:
      return value < count(b->patterns()) ? absl::OkStatus() : Bad("pattern out of range");
    case Operand::kShape:
      return value < count(b->record_shapes()) ? absl::OkStatus() : Bad("record shape out of range");
    case Operand::kBuiltin:
      return value < kNumBuiltins ? absl::OkStatus() : Bad("unknown builtin");
    case Operand::kConstSet:
      return value < count(b->const_sets()) ? absl::OkStatus() : Bad("constant set out of range");
    case Operand::kCount:
    case Operand::kRegs:
      return absl::OkStatus();  // checked with the whole instruction
  }
  return Bad("unknown operand kind");
}

// Each element names a constant of its kind, and no two elements are equal
// (the VM's sets hold unique elements): compared by value, since a hostile
// bundle may repeat a constant in a pool.
absl::Status VerifyConstSets(const fb::Bundle* b) {
  auto count = [](const auto* v) -> uint32_t { return v == nullptr ? 0 : v->size(); };
  for (const fb::ConstSet* set : *b->const_sets()) {
    if (set->elems() == nullptr) return Bad("constant set without elements");
    absl::flat_hash_set<std::tuple<uint8_t, int64_t, std::string_view, std::string_view>> seen;
    for (const fb::ConstScalar* e : *set->elems()) {
      uint32_t i = e->index();
      std::tuple<uint8_t, int64_t, std::string_view, std::string_view> key;
      switch (e->kind()) {
        case fb::ScalarKind::Bool:
          if (i > 1) return Bad("constant set: boolean is not 0 or 1");
          key = {0, i, {}, {}};
          break;
        case fb::ScalarKind::Long:
          if (i >= count(b->longs())) return Bad("constant set: long constant out of range");
          key = {1, b->longs()->Get(i), {}, {}};
          break;
        case fb::ScalarKind::String:
          if (i >= count(b->strings())) return Bad("constant set: string constant out of range");
          key = {2, 0, b->strings()->Get(i)->string_view(), {}};
          break;
        case fb::ScalarKind::Entity: {
          if (i >= count(b->entities())) return Bad("constant set: entity constant out of range");
          const fb::EntityConst* entity = b->entities()->Get(i);
          key = {3, 0, entity->type()->string_view(), entity->id()->string_view()};
          break;
        }
        default:
          return Bad("constant set: unknown element kind");
      }
      if (!seen.insert(key).second) return Bad("constant set has two equal elements");
    }
  }
  return absl::OkStatus();
}

absl::Status VerifyPolicy(const fb::Policy* p, size_t index, const fb::Bundle* b,
                          const VerifyOptions& options) {
  std::string where = Cat("policy ", index);
  auto bad = [&](std::string_view what) { return Bad(Cat(where, ": ", what)); };
  if (!ValidString(p->id())) return bad("id is not valid UTF-8");
  where = Cat("policy `", p->id()->string_view(), "`");
  if (p->effect() != fb::Effect::Permit && p->effect() != fb::Effect::Forbid) {
    return bad("unknown effect");
  }
  if (p->annotations() != nullptr) {
    for (const fb::Annotation* a : *p->annotations()) {
      if (!ValidString(a->key()) || !ValidString(a->value())) {
        return bad("annotation is not valid UTF-8");
      }
    }
  }
  uint32_t regs = p->num_registers();
  if (regs == 0 || regs > kMaxRegisters) return bad("register count out of range");
  const auto* code = p->code();
  if (code == nullptr || code->size() == 0) return bad("no code");
  if (!ElementsAligned(code)) return bad("code is not 8-byte aligned");
  if (code->size() > options.max_code_words) return bad("code is longer than the limit");
  uint32_t size = code->size();
  for (uint32_t pc = 0; pc < size; ++pc) {
    Insn insn{code->Get(pc)};
    if (insn.raw_op() >= kNumOpcodes) {
      return bad(Cat("unknown opcode ", insn.raw_op(), " at pc ", pc));
    }
    const OpInfo& info = kOpInfo[insn.raw_op()];
    for (auto [kind, value] : {std::pair{info.a, insn.a()}, std::pair{info.b, insn.b()},
                               std::pair{info.c, insn.c()}}) {
      absl::Status s = CheckOperand(kind, value, pc, size, regs, b);
      if (!s.ok()) return bad(Cat(info.name, " at pc ", pc, ": ", s.message().substr(16)));
    }
    if (info.c == Operand::kRegs) {
      // INVARIANT: the b operand (count, shape or builtin) was checked above.
      if (uint64_t{insn.c()} + RegisterRangeLength(b, insn) > regs) {
        return bad(Cat(info.name, " at pc ", pc, ": register range out of range"));
      }
    }
  }
  Op last = Insn{code->Get(size - 1)}.op();
  if (last != Op::kRet && last != Op::kRetBool) {
    return bad("code does not end with a return");
  }
  if (p->pc_spans() != nullptr) {
    for (const fb::PcSpan* s : *p->pc_spans()) {
      if (s->pc() >= size || s->begin() > s->end()) return bad("source span out of range");
    }
  }
  return absl::OkStatus();
}

}  // namespace

// Where version 3 kept its scheduling table (field 12 of Bundle, deprecated
// since version 4 moved it to a section).
constexpr flatbuffers::voffset_t kVersion3Scheduling = 4 + 2 * 12;
static_assert(fb::Bundle::VT_SECTIONS == kVersion3Scheduling + 2);

absl::StatusOr<const fb::Bundle*> VerifyBundle(std::string_view bytes, const VerifyOptions& options) {
  if (bytes.size() > options.max_bundle_bytes) return Bad("larger than the size limit");
  if (bytes.size() < 8 || bytes.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    return Bad("too small to be a bundle");
  }
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  if (!fb::BundleBufferHasIdentifier(data)) return Bad("not a Charter bundle (wrong file identifier)");
  flatbuffers::Verifier::Options vo;
  vo.max_depth = static_cast<flatbuffers::uoffset_t>(options.max_depth);
  vo.max_tables = static_cast<flatbuffers::uoffset_t>(options.max_tables);
  vo.check_alignment = true;
  vo.check_nested_flatbuffers = true;
  flatbuffers::Verifier verifier(data, bytes.size(), vo);
  if (!fb::VerifyBundleBuffer(verifier)) return Bad("corrupt structure");
  // The furthest byte any table, vector or string of the bundle reaches
  // (rounded up to 4): anything after it is not the bundle's.
  if (size_t end = verifier.GetComputedSize(); end < bytes.size()) {
    return Bad(Cat(bytes.size() - end, " bytes after the end of the bundle (", end, " bytes)"));
  }
  const fb::Bundle* b = fb::GetBundle(data);
  if (!ElementsAligned(b->longs())) return Bad("long constants are not 8-byte aligned");
  if (b->format_version() < kOldestFormatVersion || b->format_version() > kFormatVersion) {
    return Bad(Cat("format version ", b->format_version(), ", this engine reads ", kOldestFormatVersion, " to ",
                   kFormatVersion,
                   b->format_version() > kFormatVersion ? " (the bundle is newer: use the charter that built it)"
                                                        : " (the bundle is older: rebuild it from its sources)"));
  }
  const uint32_t num_sources = b->sources() == nullptr ? 0 : b->sources()->size();
  if (b->sources() != nullptr) {
    for (const flatbuffers::String* s : *b->sources()) {
      if (!ValidString(s)) return Bad("source name is not valid UTF-8");
    }
  }
  if (b->strings() != nullptr) {
    for (const flatbuffers::String* s : *b->strings()) {
      if (!ValidString(s)) return Bad("string constant is not valid UTF-8");
    }
  }
  if (b->entities() != nullptr) {
    for (const fb::EntityConst* e : *b->entities()) {
      if (!ValidString(e->type()) || !ValidString(e->id())) {
        return Bad("entity constant is not valid UTF-8");
      }
    }
  }
  uint32_t num_strings = b->strings() == nullptr ? 0 : b->strings()->size();
  if (b->patterns() != nullptr) {
    for (const fb::Pattern* p : *b->patterns()) {
      if (p->elems() == nullptr) return Bad("pattern without elements");
      for (const fb::PatternElem* e : *p->elems()) {
        if (!e->wildcard() && !ValidString(e->literal())) return Bad("pattern literal is not valid UTF-8");
      }
    }
  }
  if (b->record_shapes() != nullptr) {
    for (const fb::RecordShape* shape : *b->record_shapes()) {
      const auto* keys = shape->keys();
      const auto* order = shape->order();
      if (keys == nullptr || order == nullptr || keys->size() != order->size()) {
        return Bad("record shape is malformed");
      }
      std::vector<bool> seen(order->size(), false);
      for (uint32_t i = 0; i < keys->size(); ++i) {
        if (keys->Get(i) >= num_strings) return Bad("record shape key out of range");
        if (order->Get(i) >= order->size() || seen[order->Get(i)]) {
          return Bad("record shape order is not a permutation");
        }
        seen[order->Get(i)] = true;
        // Sorted, unique keys: the VM finds fields by binary search.
        if (i > 0 && !(b->strings()->Get(keys->Get(i - 1))->string_view() <
                       b->strings()->Get(keys->Get(i))->string_view())) {
          return Bad("record shape keys are not sorted and unique");
        }
      }
    }
  }
  if (b->schema_fingerprint() != nullptr && !ValidString(b->schema_fingerprint())) {
    return Bad("schema fingerprint is not valid UTF-8");
  }
  if (b->const_sets() != nullptr) {
    RETURN_IF_ERROR(VerifyConstSets(b));
  }
  const auto* policies = b->policies();
  if (policies != nullptr) {
    if (policies->size() > options.max_policies) return Bad("more policies than the limit");
    absl::flat_hash_set<std::string_view> ids;
    for (uint32_t i = 0; i < policies->size(); ++i) {
      absl::Status s = VerifyPolicy(policies->Get(i), i, b, options);
      if (!s.ok()) return s;
      if (policies->Get(i)->source() > 0 && policies->Get(i)->source() >= num_sources) {
        return Bad(Cat("policy `", policies->Get(i)->id()->string_view(), "`: source out of range"));
      }
      if (!ids.insert(policies->Get(i)->id()->string_view()).second) {
        return Bad(Cat("duplicate policy id `", policies->Get(i)->id()->string_view(), "`"));
      }
    }
  }
  // (A generated table derives from flatbuffers::Table privately; the
  // field has no accessor since it was deprecated.)
  if (b->format_version() < 4 && reinterpret_cast<const flatbuffers::Table*>(b)->CheckField(kVersion3Scheduling)) {
    return Bad(Cat("format version ", b->format_version(),
                   " with a scheduling configuration, which this engine reads from a section "
                   "(rebuild it from its sources)"));
  }
  if (b->sections() != nullptr) {
    const flatbuffers::String* previous = nullptr;
    for (const fb::Section* section : *b->sections()) {
      if (section->name() == nullptr || !ValidString(section->name()) || section->name()->size() == 0) {
        return Bad("section without a name, or its name is not valid UTF-8");
      }
      // Sorted and unique: an owner finds its section by binary search.
      if (previous != nullptr && !(previous->string_view() < section->name()->string_view())) {
        return Bad(Cat("sections are not sorted and unique (`", section->name()->string_view(), "`)"));
      }
      previous = section->name();
    }
  }
  return b;
}

}  // namespace charter::internal
