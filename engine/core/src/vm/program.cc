// Program: a verified bundle decoded into the tables the VM reads.
#include "vm/program.h"

#include <array>
#include <queue>
#include <utility>

#include "bytecode/opcodes.h"
#include "bytecode/operands.h"

namespace charter::internal {

std::vector<uint64_t> FindPendingRecords(const fb::Bundle* root, const uint64_t* code, uint32_t size) {
  std::vector<uint64_t> pending((size_t{size} + 63) / 64, 0);
  // open[r]: the MakeRecord or RecordExtend that last wrote register r when
  // no instruction has named r since, or -1.
  std::array<int64_t, kMaxRegisters> open;
  open.fill(-1);
  // The registers whose open[] is set, so that a long register range costs
  // only its open registers.
  std::array<uint64_t, kMaxRegisters / 64> open_bits{};
  // The jumps seen so far, by their pc, that may land after the current
  // instruction: the one with the largest pc on top (expired ones, whose
  // target is behind, leave when they reach the top).
  struct Jump {
    uint32_t from, to;
    bool operator<(const Jump& o) const { return from < o.from; }
  };
  std::priority_queue<Jump> jumps;
  for (uint32_t q = 0; q < size; ++q) {
    while (!jumps.empty() && jumps.top().to <= q) jumps.pop();
    // The largest pc of a jump that passes over q (from before q to after it).
    int64_t passing = jumps.empty() ? -1 : int64_t{jumps.top().from};
    const Insn insn{code[q]};
    const OpInfo& info = kOpInfo[insn.raw_op()];
    const bool writes_record = insn.op() == Op::kMakeRecord || insn.op() == Op::kRecordExtend;
    const uint32_t range_begin = insn.c();
    const uint32_t range_end = info.c == Operand::kRegs ? range_begin + RegisterRangeLength(root, insn) : range_begin;
    auto named = [&](uint32_t r) {
      int64_t p = open[r];
      if (p < 0) return;
      open[r] = -1;
      open_bits[r / 64] &= ~(uint64_t{1} << (r % 64));
      // Only the extension of r, not reading r as a value, with no jump out
      // of (p, q) past q: once p has run, q is the next instruction to read r.
      if (insn.op() == Op::kRecordExtend && insn.a() == r && !(r >= range_begin && r < range_end) && passing <= p) {
        pending[p / 64] |= uint64_t{1} << (p % 64);
      }
    };
    for (auto [kind, value] : {std::pair{info.a, insn.a()}, std::pair{info.b, insn.b()}, std::pair{info.c, insn.c()}}) {
      if (kind == Operand::kReg) named(value);
    }
    // INVARIANT: verified, so the range lies inside the register file.
    for (uint32_t w = range_begin / 64; range_begin < range_end && w <= (range_end - 1) / 64; ++w) {
      for (uint64_t bits = open_bits[w]; bits != 0; bits &= bits - 1) {
        uint32_t r = w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
        if (r >= range_begin && r < range_end) named(r);
      }
    }
    if (writes_record) {
      open[insn.a()] = q;
      open_bits[insn.a() / 64] |= uint64_t{1} << (insn.a() % 64);
    }
    if (info.c == Operand::kTarget) jumps.push(Jump{q, insn.c()});
  }
  return pending;
}

Program::Program(Bundle bundle, const fb::Bundle* root, const EvalLimits& limits)
    : bundle_(std::move(bundle)), root_(root), limits_(limits) {
  if (root_->strings() != nullptr) {
    for (const flatbuffers::String* s : *root_->strings()) {
      strings_.push_back(Value::String(s->string_view()));
    }
  }
  if (root_->longs() != nullptr) {
    for (int64_t v : *root_->longs()) longs_.push_back(v);
  }
  if (root_->entities() != nullptr) {
    for (const fb::EntityConst* e : *root_->entities()) {
      std::string_view type = e->type()->string_view(), id = e->id()->string_view();
      entities_.push_back(EntityRef{type, id, kNoUid, EntityKeyHash(type, id)});
    }
  }
  if (root_->patterns() != nullptr) {
    for (const fb::Pattern* p : *root_->patterns()) {
      std::vector<PatternPart> parts;
      for (const fb::PatternElem* e : *p->elems()) {
        parts.push_back({e->wildcard(), e->wildcard() ? std::string_view() : e->literal()->string_view()});
      }
      patterns_.push_back(std::move(parts));
    }
  }
  if (root_->record_shapes() != nullptr) {
    for (const fb::RecordShape* shape : *root_->record_shapes()) {
      RecordShapeView view;
      for (uint32_t k : *shape->keys()) view.keys.push_back(strings_[k].string());
      for (uint32_t o : *shape->order()) view.order.push_back(o);
      shapes_.push_back(std::move(view));
    }
  }
  if (root_->const_sets() != nullptr) {
    // INVARIANT: the verifier checked every index and that the elements
    // are unique; entities_ and strings_ no longer move.
    for (const fb::ConstSet* set : *root_->const_sets()) {
      std::vector<Value> elems;
      elems.reserve(set->elems()->size());
      for (const fb::ConstScalar* e : *set->elems()) {
        switch (e->kind()) {
          case fb::ScalarKind::Bool: elems.push_back(Value::Bool(e->index() != 0)); break;
          case fb::ScalarKind::Long: elems.push_back(Value::Long(longs_[e->index()])); break;
          case fb::ScalarKind::String: elems.push_back(strings_[e->index()]); break;
          default: elems.push_back(Value::Entity(&entities_[e->index()])); break;
        }
      }
      const_set_elements_.push_back(std::move(elems));
    }
    for (const std::vector<Value>& elems : const_set_elements_) {
      const_sets_.push_back(Value::Set(elems.data(), static_cast<uint32_t>(elems.size())));
    }
  }
  if (root_->schema_fingerprint() != nullptr) {
    schema_fingerprint_ = root_->schema_fingerprint()->string_view();
  }
  if (root_->policies() != nullptr) {
    pending_records_.reserve(root_->policies()->size());
    for (const fb::Policy* p : *root_->policies()) {
      PolicyCode pc;
      pc.id = p->id()->string_view();
      pc.forbid = p->effect() == fb::Effect::Forbid;
      pc.code = p->code()->data();
      pc.size = p->code()->size();
      pc.num_registers = p->num_registers();
      pc.source = p;
      pending_records_.push_back(FindPendingRecords(root_, pc.code, pc.size));
      pc.pending_records = pending_records_.back().data();
      policies_.push_back(pc);
    }
  }
  scope_index_.Build(*this);
}

}  // namespace charter::internal
