// Lowering: each policy becomes straight-line register code with forward
// jumps. The scope and the `when`/`unless` clauses form one conjunction
// (Cedar: P && A && R && c1 && ...), lowered to jumps to a shared
// `return false`; `&&`, `||` and `if` lower to jump lists.
#include "compile/lower.h"

#include <array>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "common/strings.h"
#include "bytecode/opcodes.h"
#include "charter/bundle_generated.h"
#include "charter/version.h"
#include "flatbuffers/flatbuffers.h"

namespace charter::internal {
namespace {

class Pools {
 public:
  uint32_t String(const std::string& s) {
    auto [it, inserted] = strings_.try_emplace(s, static_cast<uint32_t>(string_list_.size()));
    if (inserted) string_list_.push_back(s);
    return it->second;
  }
  uint32_t Long(int64_t v) {
    auto [it, inserted] = longs_.try_emplace(v, static_cast<uint32_t>(long_list_.size()));
    if (inserted) long_list_.push_back(v);
    return it->second;
  }
  uint32_t Entity(const ast::EntityRef& e) {
    std::string key = Cat(e.type.size(), ":", e.type, e.id);
    auto [it, inserted] = entities_.try_emplace(key, static_cast<uint32_t>(entity_list_.size()));
    if (inserted) entity_list_.push_back({e.type, e.id});
    return it->second;
  }
  const std::vector<std::string>& strings() const { return string_list_; }
  const std::vector<int64_t>& longs() const { return long_list_; }
  const std::vector<std::pair<std::string, std::string>>& entities() const { return entity_list_; }

 private:
  absl::flat_hash_map<std::string, uint32_t> strings_;
  std::vector<std::string> string_list_;
  absl::flat_hash_map<int64_t, uint32_t> longs_;
  std::vector<int64_t> long_list_;
  absl::flat_hash_map<std::string, uint32_t> entities_;
  std::vector<std::pair<std::string, std::string>> entity_list_;
};

class PolicyLowerer {
 public:
  PolicyLowerer(Pools* pools, Diagnostics* diagnostics) : pools_(pools), diags_(diagnostics) {}

  bool Lower(const ast::Policy& p) {
    size_t errors = diags_->size();
    if (p.is_template()) {
      Unsupported(p.span, "templates (`?principal`, `?resource`)");
      return false;
    }
    Scope(p.principal, ast::Var::kPrincipal);
    Action(p.action);
    Scope(p.resource, ast::Var::kResource);
    for (const ast::Condition& c : p.conditions) {
      Expr(*c.body, 0);
      false_jumps_.push_back(Emit(c.when ? Op::kJumpIfFalse : Op::kJumpIfTrue, 0, 0, 0, c.body->span));
    }
    Emit(Op::kRetBool, 0, 1, 0, {});
    uint32_t ret_false = Here();
    for (uint32_t j : false_jumps_) Patch(j, ret_false);
    Emit(Op::kRetBool, 0, 0, 0, {});
    if (max_reg_ >= kMaxRegisters) {
      diags_->Error("CH0201", p.span, "policy is too complex: it needs more than 256 registers",
                    "split deeply nested conditions into several `when` clauses");
    }
    return diags_->size() == errors;
  }

  const std::vector<uint64_t>& code() const { return code_; }
  const std::vector<std::array<uint32_t, 3>>& spans() const { return spans_; }
  uint32_t num_registers() const { return max_reg_ + 1; }

 private:
  uint32_t Here() const { return static_cast<uint32_t>(code_.size()); }

  uint32_t Emit(Op op, uint32_t a, uint32_t b, uint32_t c, Span span) {
    if (a > max_reg_ && kOpInfo[static_cast<int>(op)].a == Operand::kReg) max_reg_ = a;
    code_.push_back(Insn::Encode(op, a, b, c));
    if (span.end > span.begin) spans_.push_back({Here() - 1, span.begin, span.end});
    return Here() - 1;
  }
  void Patch(uint32_t at, uint32_t target) {
    Insn insn{code_[at]};
    code_[at] = Insn::Encode(insn.op(), insn.a(), insn.b(), target);
  }

  void Unsupported(Span span, std::string_view what) {
    diags_->Error("CH0200", span, Cat(what, " are not supported yet"),
                  "this version of Charter compiles a subset of the language; see docs/language.md");
  }

  // Scope constraints cannot err: `==` is total and both sides of `in` are entities.
  void Scope(const ast::ScopeConstraint& s, ast::Var var) {
    using K = ast::ScopeConstraint::Kind;
    if (s.kind == K::kAny) return;
    if (s.kind == K::kIs || s.kind == K::kIsIn) {
      Unsupported(s.span, "`is` constraints");
      return;
    }
    Emit(Op::kVar, 0, static_cast<uint32_t>(var), 0, s.span);
    Emit(Op::kEntity, 1, 0, pools_->Entity(s.entity), s.span);
    Emit(s.kind == K::kEq ? Op::kEq : Op::kIn, 0, 0, 1, s.span);
    false_jumps_.push_back(Emit(Op::kJumpIfFalse, 0, 0, 0, s.span));
  }

  void Action(const ast::ActionConstraint& a) {
    using K = ast::ActionConstraint::Kind;
    if (a.kind == K::kAny) return;
    Emit(Op::kVar, 0, static_cast<uint32_t>(ast::Var::kAction), 0, a.span);
    if (a.kind != K::kInList) {
      Emit(Op::kEntity, 1, 0, pools_->Entity(a.entities[0]), a.span);
      Emit(a.kind == K::kEq ? Op::kEq : Op::kIn, 1, 0, 1, a.span);
      false_jumps_.push_back(Emit(Op::kJumpIfFalse, 1, 0, 0, a.span));
      return;
    }
    // `action in [A, B]`: any of them.
    std::vector<uint32_t> matched;
    for (const ast::EntityRef& e : a.entities) {
      Emit(Op::kEntity, 1, 0, pools_->Entity(e), e.span);
      Emit(Op::kIn, 1, 0, 1, e.span);
      matched.push_back(Emit(Op::kJumpIfTrue, 1, 0, 0, e.span));
    }
    false_jumps_.push_back(Emit(Op::kJump, 0, 0, 0, a.span));
    for (uint32_t j : matched) Patch(j, Here());
  }

  // Evaluates `e` into register `r`, using registers above r as scratch.
  void Expr(const ast::Expr& e, uint32_t r) {
    using K = ast::Expr::Kind;
    if (r + 1 >= kMaxRegisters) {
      max_reg_ = kMaxRegisters;
      return;
    }
    switch (e.kind) {
      case K::kBool:
        Emit(Op::kBool, r, e.b ? 1 : 0, 0, e.span);
        return;
      case K::kLong:
        Emit(Op::kLong, r, 0, pools_->Long(e.i), e.span);
        return;
      case K::kString:
        Emit(Op::kStr, r, 0, pools_->String(e.str), e.span);
        return;
      case K::kEntity:
        Emit(Op::kEntity, r, 0, pools_->Entity(e.entity), e.span);
        return;
      case K::kVar:
        Emit(Op::kVar, r, static_cast<uint32_t>(e.var), 0, e.span);
        return;
      case K::kAttr:
        Expr(*e.args[0], r);
        Emit(Op::kAttr, r, r, pools_->String(e.str), e.span);
        return;
      case K::kHas:
        Expr(*e.args[0], r);
        Emit(Op::kHas, r, r, pools_->String(e.str), e.span);
        return;
      case K::kUnary:
        if (e.uop != ast::UnaryOp::kNot) {
          Unsupported(e.span, "arithmetic operators");
          return;
        }
        Expr(*e.args[0], r);
        Emit(Op::kNot, r, r, 0, e.span);
        return;
      case K::kIf: {
        Expr(*e.args[0], r);
        uint32_t to_else = Emit(Op::kJumpIfFalse, r, 0, 0, e.args[0]->span);
        Expr(*e.args[1], r);
        uint32_t to_end = Emit(Op::kJump, 0, 0, 0, {});
        Patch(to_else, Here());
        Expr(*e.args[2], r);
        Patch(to_end, Here());
        return;
      }
      case K::kBinary:
        Binary(e, r);
        return;
      case K::kLike:
        Unsupported(e.span, "`like` patterns");
        return;
      case K::kIs:
        Unsupported(e.span, "`is` tests");
        return;
      case K::kSet:
        Unsupported(e.span, "set literals");
        return;
      case K::kRecord:
        Unsupported(e.span, "record literals");
        return;
      case K::kMethod:
        Unsupported(e.span, Cat("methods such as `", e.str, "`"));
        return;
      case K::kCall:
        Unsupported(e.span, "extension functions");
        return;
      case K::kSlot:
        return;  // already reported by the parser
    }
  }

  void Binary(const ast::Expr& e, uint32_t r) {
    using B = ast::BinaryOp;
    switch (e.bop) {
      case B::kAnd:
      case B::kOr: {
        // The left operand must be a boolean; when it decides, it is the
        // result. Otherwise the right operand, checked to be a boolean.
        Expr(*e.args[0], r);
        uint32_t done = Emit(e.bop == B::kAnd ? Op::kJumpIfFalse : Op::kJumpIfTrue, r, 0, 0,
                             e.args[0]->span);
        Expr(*e.args[1], r);
        Emit(Op::kCheckBool, r, 0, 0, e.args[1]->span);
        Patch(done, Here());
        return;
      }
      case B::kEq:
      case B::kNe:
      case B::kIn:
        Expr(*e.args[0], r);
        Expr(*e.args[1], r + 1);
        Emit(e.bop == B::kIn ? Op::kIn : Op::kEq, r, r, r + 1, e.span);
        if (e.bop == B::kNe) Emit(Op::kNot, r, r, 0, e.span);
        return;
      case B::kLt:
      case B::kLe:
      case B::kGt:
      case B::kGe:
        Unsupported(e.span, "comparison operators (`<`, `<=`, `>`, `>=`)");
        return;
      case B::kAdd:
      case B::kSub:
      case B::kMul:
        Unsupported(e.span, "arithmetic operators");
        return;
    }
  }

  Pools* pools_;
  Diagnostics* diags_;
  std::vector<uint64_t> code_;
  std::vector<std::array<uint32_t, 3>> spans_;
  std::vector<uint32_t> false_jumps_;
  uint32_t max_reg_ = 1;  // registers 0 and 1 are used by the scope checks
};

}  // namespace

std::string LowerToBundle(const ast::PolicySet& set, const SourceFile& source,
                          Diagnostics* diagnostics) {
  flatbuffers::FlatBufferBuilder fbb(1024);
  Pools pools;
  std::vector<flatbuffers::Offset<fb::Policy>> policies;
  bool ok = true;
  for (const ast::Policy& p : set.policies) {
    PolicyLowerer lowerer(&pools, diagnostics);
    if (!lowerer.Lower(p)) {
      ok = false;
      continue;
    }
    std::vector<flatbuffers::Offset<fb::Annotation>> annotations;
    for (const ast::Annotation& a : p.annotations) {
      annotations.push_back(
          fb::CreateAnnotation(fbb, fbb.CreateString(a.key), fbb.CreateString(a.value)));
    }
    std::vector<fb::PcSpan> spans;
    for (const auto& s : lowerer.spans()) spans.emplace_back(s[0], s[1], s[2]);
    fb::SourceSpan span(p.span.begin, p.span.end);
    policies.push_back(fb::CreatePolicy(
        fbb, fbb.CreateString(p.id),
        p.effect == ast::Effect::kPermit ? fb::Effect::Permit : fb::Effect::Forbid,
        fbb.CreateVector(annotations), &span, static_cast<uint16_t>(lowerer.num_registers()),
        fbb.CreateVector(lowerer.code()), fbb.CreateVectorOfStructs(spans)));
  }
  if (!ok) return {};
  std::vector<flatbuffers::Offset<flatbuffers::String>> strings;
  for (const std::string& s : pools.strings()) strings.push_back(fbb.CreateString(s));
  std::vector<flatbuffers::Offset<fb::EntityConst>> entities;
  for (const auto& [type, id] : pools.entities()) {
    entities.push_back(fb::CreateEntityConst(fbb, fbb.CreateString(type), fbb.CreateString(id)));
  }
  auto root = fb::CreateBundle(fbb, kFormatVersion, fbb.CreateString(CHARTER_VERSION),
                               fbb.CreateString(source.name()), fbb.CreateVector(strings),
                               fbb.CreateVector(pools.longs()), fbb.CreateVector(entities),
                               fbb.CreateVector(policies), 0);
  fb::FinishBundleBuffer(fbb, root);
  return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
}

}  // namespace charter::internal
