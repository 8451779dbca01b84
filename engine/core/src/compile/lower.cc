// Lowering: each policy becomes straight-line register code with forward
// jumps. The scope and the `when`/`unless` clauses form one conjunction
// (Cedar: P && A && R && c1 && ...), lowered to jumps to a shared
// `return false`; `&&`, `||` and `if` lower to jump lists.
#include "compile/lower.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/diagnostic_codes.h"
#include "common/strings.h"
#include "builtins/builtins.h"
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
  uint32_t Pattern(const std::vector<ast::PatternElem>& elems) {
    pattern_elems_ += elems.size();
    patterns_.push_back(elems);
    return static_cast<uint32_t>(patterns_.size() - 1);
  }
  // Returns the shape index; keys are given in literal order. Literals with
  // the same keys in the same order share one shape: the operand that names
  // it has 16 bits (CH0204).
  uint32_t Shape(const std::vector<std::string>& keys) {
    auto [it, inserted] = shape_index_.try_emplace(keys, static_cast<uint32_t>(shapes_.size()));
    if (!inserted) return it->second;
    std::vector<uint32_t> order(keys.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    std::vector<uint32_t> sorted_keys;
    for (uint32_t o : order) sorted_keys.push_back(String(keys[o]));
    shapes_.push_back({std::move(sorted_keys), std::move(order)});
    return static_cast<uint32_t>(shapes_.size() - 1);
  }
  // A constant set: its elements as (kind, pool index), duplicates dropped
  // (pools are deduplicated, so equal indices are equal values), in the
  // order of their first occurrence, as MakeSet would keep them.
  uint32_t ConstSet(const std::vector<std::unique_ptr<ast::Expr>>& elems) {
    std::vector<std::pair<uint8_t, uint32_t>> out;
    absl::flat_hash_set<std::pair<uint8_t, uint32_t>> seen;
    for (const auto& e : elems) {
      std::pair<uint8_t, uint32_t> x;
      switch (e->kind) {
        case ast::Expr::Kind::kBool: x = {0, e->b ? 1u : 0u}; break;
        case ast::Expr::Kind::kLong: x = {1, Long(e->i)}; break;
        case ast::Expr::Kind::kString: x = {2, String(e->str)}; break;
        default: x = {3, Entity(e->entity)}; break;
      }
      if (seen.insert(x).second) out.push_back(x);
    }
    const_sets_.push_back(std::move(out));
    return static_cast<uint32_t>(const_sets_.size() - 1);
  }
  const std::vector<std::vector<std::pair<uint8_t, uint32_t>>>& const_sets() const {
    return const_sets_;
  }
  const std::vector<std::vector<ast::PatternElem>>& patterns() const { return patterns_; }
  const std::vector<std::pair<std::vector<uint32_t>, std::vector<uint32_t>>>& shapes() const {
    return shapes_;
  }
  const std::vector<std::string>& strings() const { return string_list_; }
  const std::vector<int64_t>& longs() const { return long_list_; }
  const std::vector<std::pair<std::string, std::string>>& entities() const { return entity_list_; }

  // The FlatBuffers tables the pools will take in the bundle.
  size_t tables() const {
    return entity_list_.size() + patterns_.size() + pattern_elems_ + shapes_.size() + const_sets_.size();
  }
  // At least the bytes the pools will take in the bundle (each string,
  // table and vector with its length, offsets, vtable and padding).
  size_t EstimatedBytes() const {
    size_t n = 0;
    auto string = [](size_t size) { return size + 12; };  // length, NUL, padding, offset
    for (const std::string& s : string_list_) n += string(s.size());
    n += 8 * long_list_.size() + 16;
    for (const auto& [type, id] : entity_list_) n += 32 + string(type.size()) + string(id.size());
    for (const auto& elems : patterns_) {
      n += 32;
      for (const ast::PatternElem& e : elems) n += 32 + (e.wildcard ? 0 : string(e.literal.size()));
    }
    for (const auto& [keys, order] : shapes_) n += 40 + 8 * keys.size();
    for (const auto& elems : const_sets_) n += 32 + 8 * elems.size();
    return n;
  }
  // CH0204 is reported once for the bundle.
  bool shape_limit_reported = false;

 private:
  absl::flat_hash_map<std::string, uint32_t> strings_;
  std::vector<std::string> string_list_;
  absl::flat_hash_map<int64_t, uint32_t> longs_;
  std::vector<int64_t> long_list_;
  absl::flat_hash_map<std::string, uint32_t> entities_;
  std::vector<std::pair<std::string, std::string>> entity_list_;
  std::vector<std::vector<ast::PatternElem>> patterns_;
  std::vector<std::pair<std::vector<uint32_t>, std::vector<uint32_t>>> shapes_;
  absl::flat_hash_map<std::vector<std::string>, uint32_t> shape_index_;
  size_t pattern_elems_ = 0;
  std::vector<std::vector<std::pair<uint8_t, uint32_t>>> const_sets_;
};

// Whether a set literal's elements are all literals of the kinds a constant
// set holds.
bool IsConstantSet(const ast::Expr& e) {
  if (e.args.empty()) return false;
  for (const auto& x : e.args) {
    using K = ast::Expr::Kind;
    if (x->kind != K::kBool && x->kind != K::kLong && x->kind != K::kString && x->kind != K::kEntity) {
      return false;
    }
  }
  return true;
}

// Elements, values or arguments of one MakeSet/SetExtend or
// MakeRecord/RecordExtend: at most kMaxChunk, and fewer when the registers
// above `r` run short, so that literals nested in literals still fit.
constexpr uint32_t kMaxChunk = 32;
uint32_t ChunkSize(uint32_t r) {
  uint32_t free = r + 2 < kMaxRegisters ? kMaxRegisters - 2 - r : 0;
  return std::max<uint32_t>(1, std::min<uint32_t>(kMaxChunk, free / 4));
}

class PolicyLowerer {
 public:
  // `typed`: the policy set validated against a schema, so every operand
  // the validator expects to be a boolean or a long is one (for inputs that
  // conform to the schema), and the typed opcodes may be used.
  PolicyLowerer(Pools* pools, Diagnostics* diagnostics, bool typed, size_t max_code_words)
      : pools_(pools), diags_(diagnostics), typed_(typed), max_code_words_(max_code_words) {}

  // `principal_slot` and `resource_slot` are the link's values for a template.
  bool Lower(const ast::Policy& p, const ast::EntityRef* principal_slot = nullptr,
             const ast::EntityRef* resource_slot = nullptr) {
    size_t errors = diags_->size();
    Scope(p.principal, ast::Var::kPrincipal, principal_slot);
    Action(p.action);
    if (!Fits(p.action.span, "the action scope")) return false;
    Scope(p.resource, ast::Var::kResource, resource_slot);
    for (const ast::Condition& c : p.conditions) {
      Expr(*c.body, 0);
      false_jumps_.push_back(Emit(c.when ? JumpIfFalse() : JumpIfTrue(), 0, 0, 0, c.body->span));
      if (!Fits(c.body->span, "this condition")) return false;
    }
    Emit(Op::kRetBool, 0, 1, 0, {});
    uint32_t ret_false = Here();
    for (uint32_t j : false_jumps_) Patch(j, ret_false);
    Emit(Op::kRetBool, 0, 0, 0, {});
    if (!Fits(p.span, "the policy", 0)) return false;
    if (max_reg_ >= kMaxRegisters) {
      diags_->Error(codes::CH0201, p.span, "policy is too complex: it needs more than 256 registers",
                    "split deeply nested conditions into several `when` clauses");
    }
    return diags_->size() == errors;
  }

  const std::vector<uint64_t>& code() const { return code_; }
  const std::vector<std::array<uint32_t, 3>>& spans() const { return spans_; }
  uint32_t num_registers() const { return max_reg_ + 1; }

 private:
  uint32_t Here() const { return static_cast<uint32_t>(code_.size()); }

  // Whether the code so far, with the `still` instructions that end it (two
  // returns), is within max_code_words; if not, CH0202 at `span`, the part
  // that crossed it.
  bool Fits(Span span, std::string_view what, size_t still = 2) {
    if (code_.size() + still <= max_code_words_) return true;
    diags_->Error(codes::CH0202, span,
                  Cat(what, " takes the policy's code past the limit of ", max_code_words_, " instructions"),
                  "write it as several policies (a `||` of cases as one policy for each case)");
    return false;
  }

  // Jumps on a register the validator proved boolean; TJump* also where the
  // instruction before made the value (Is, Eq, In, Has are always booleans).
  Op JumpIfFalse() const { return typed_ ? Op::kTJumpIfFalse : Op::kJumpIfFalse; }
  Op JumpIfTrue() const { return typed_ ? Op::kTJumpIfTrue : Op::kJumpIfTrue; }
  // The right operand of `&&`/`||` must be a boolean: checked unless proven.
  void CheckBool(uint32_t r, Span span) {
    if (!typed_) Emit(Op::kCheckBool, r, 0, 0, span);
  }
  Op Arith(ast::BinaryOp op) const {
    using B = ast::BinaryOp;
    switch (op) {
      case B::kAdd: return typed_ ? Op::kTAdd : Op::kAdd;
      case B::kSub: return typed_ ? Op::kTSub : Op::kSub;
      case B::kMul: return typed_ ? Op::kTMul : Op::kMul;
      case B::kLt: return typed_ ? Op::kTLt : Op::kLt;
      case B::kLe: return typed_ ? Op::kTLe : Op::kLe;
      case B::kGt: return typed_ ? Op::kTGt : Op::kGt;
      default: return typed_ ? Op::kTGe : Op::kGe;
    }
  }

  uint32_t Emit(Op op, uint32_t a, uint32_t b, uint32_t c, Span span) {
    if (a > max_reg_ && kOpInfo[static_cast<int>(op)].a == Operand::kReg) max_reg_ = a;
    code_.push_back(Insn::Encode(op, a, b, c));
    if (span.end > span.begin) spans_.push_back({Here() - 1, span.begin, span.end});
    return Here() - 1;
  }
  // Marks registers up to r as used (for ranges that Emit does not see).
  void Touch(uint32_t r) {
    if (r > max_reg_) max_reg_ = r;
  }
  void Patch(uint32_t at, uint32_t target) {
    Insn insn{code_[at]};
    code_[at] = Insn::Encode(insn.op(), insn.a(), insn.b(), target);
  }


  // Scope constraints cannot err: `==` is total and both sides of `in` are entities.
  void Scope(const ast::ScopeConstraint& s, ast::Var var, const ast::EntityRef* slot) {
    using K = ast::ScopeConstraint::Kind;
    if (s.kind == K::kAny) return;
    if (s.kind == K::kIs || s.kind == K::kIsIn) {
      Emit(Op::kVar, 0, static_cast<uint32_t>(var), 0, s.span);
      Emit(Op::kIs, 0, 0, pools_->String(s.type), s.span);
      false_jumps_.push_back(Emit(Op::kTJumpIfFalse, 0, 0, 0, s.span));
      if (s.kind == K::kIs) return;
    }
    Emit(Op::kVar, 0, static_cast<uint32_t>(var), 0, s.span);
    // INVARIANT: a template is lowered only with values for its slots.
    Emit(Op::kEntity, 1, 0, pools_->Entity(s.slot ? *slot : s.entity), s.span);
    Emit(s.kind == K::kEq ? Op::kEq : Op::kIn, 0, 0, 1, s.span);
    false_jumps_.push_back(Emit(Op::kTJumpIfFalse, 0, 0, 0, s.span));
  }

  void Action(const ast::ActionConstraint& a) {
    using K = ast::ActionConstraint::Kind;
    if (a.kind == K::kAny) return;
    Emit(Op::kVar, 0, static_cast<uint32_t>(ast::Var::kAction), 0, a.span);
    if (a.kind != K::kInList) {
      Emit(Op::kEntity, 1, 0, pools_->Entity(a.entities[0]), a.span);
      Emit(a.kind == K::kEq ? Op::kEq : Op::kIn, 1, 0, 1, a.span);
      false_jumps_.push_back(Emit(Op::kTJumpIfFalse, 1, 0, 0, a.span));
      return;
    }
    // `action in [A, B]`: any of them.
    std::vector<uint32_t> matched;
    for (const ast::EntityRef& e : a.entities) {
      Emit(Op::kEntity, 1, 0, pools_->Entity(e), e.span);
      Emit(Op::kIn, 1, 0, 1, e.span);
      matched.push_back(Emit(Op::kTJumpIfTrue, 1, 0, 0, e.span));
    }
    false_jumps_.push_back(Emit(Op::kJump, 0, 0, 0, a.span));
    for (uint32_t j : matched) Patch(j, Here());
  }

  // Evaluates `e` into register `r`, using registers above r as scratch.
  // Left-leaning chains of one kind (`a || b || c`, `a + b - c`,
  // `e.a.b.c`) are walked in a loop, so long flat chains cost no stack.
  void Expr(const ast::Expr& e, uint32_t r) {
    int spine = ast::ChainKind(e);
    if (spine != 0 && ast::ChainKind(*e.args[0]) == spine) {
      std::vector<const ast::Expr*> chain{&e};
      while (ast::ChainKind(*chain.back()->args[0]) == spine) chain.push_back(chain.back()->args[0].get());
      ExprNode(*chain.back(), r);
      std::vector<uint32_t> jumps;
      for (size_t i = chain.size() - 1; i-- > 0;) ChainStep(*chain[i], r, &jumps);
      if (!jumps.empty()) {
        CheckBool(r, e.args[1]->span);
        for (uint32_t j : jumps) Patch(j, Here());
      }
      return;
    }
    ExprNode(e, r);
  }


  // One link of a chain whose left operand is already in r. For `&&`/`||`
  // the left operand decides by jumping to the end of the whole chain (where
  // it is the result); the last right operand is checked to be a boolean.
  void ChainStep(const ast::Expr& e, uint32_t r, std::vector<uint32_t>* jumps) {
    using B = ast::BinaryOp;
    if (e.kind == ast::Expr::Kind::kAttr) {
      Emit(Op::kAttr, r, r, pools_->String(e.str), e.span);
      return;
    }
    if (e.bop == B::kAnd || e.bop == B::kOr) {
      jumps->push_back(Emit(e.bop == B::kAnd ? JumpIfFalse() : JumpIfTrue(), r, 0, 0,
                            e.args[0]->span));
      Expr(*e.args[1], r);
      return;
    }
    Expr(*e.args[1], r + 1);
    Emit(Arith(e.bop), r, r, r + 1, e.span);
  }

  void ExprNode(const ast::Expr& e, uint32_t r) {
    using K = ast::Expr::Kind;
    if (r + 2 >= kMaxRegisters) {
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
      case K::kHas: {
        if (e.keys.size() <= 1) {
          Expr(*e.args[0], r);
          Emit(Op::kHas, r, r, pools_->String(e.keys.empty() ? e.str : e.keys[0]), e.span);
          return;
        }
        // `e has a.b` is `e has a && e.a has b`; e is evaluated once (it is pure).
        Expr(*e.args[0], r + 1);
        std::vector<uint32_t> done;
        for (size_t i = 0; i < e.keys.size(); ++i) {
          if (i > 0) Emit(Op::kAttr, r + 1, r + 1, pools_->String(e.keys[i - 1]), e.span);
          Emit(Op::kHas, r, r + 1, pools_->String(e.keys[i]), e.span);
          if (i + 1 < e.keys.size()) done.push_back(Emit(Op::kTJumpIfFalse, r, 0, 0, e.span));
        }
        for (uint32_t j : done) Patch(j, Here());
        return;
      }
      case K::kUnary:
        Expr(*e.args[0], r);
        if (e.uop == ast::UnaryOp::kNot) {
          Emit(typed_ ? Op::kTNot : Op::kNot, r, r, 0, e.span);
        } else {
          Emit(typed_ ? Op::kTNeg : Op::kNeg, r, r, 0, e.span);
        }
        return;
      case K::kIf: {
        Expr(*e.args[0], r);
        uint32_t to_else = Emit(JumpIfFalse(), r, 0, 0, e.args[0]->span);
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
        Expr(*e.args[0], r);
        Emit(Op::kLike, r, r, pools_->Pattern(e.pattern), e.span);
        return;
      case K::kIs: {
        // `x is T in y` is `x is T && x in y`.
        Expr(*e.args[0], r + 1);
        Emit(Op::kIs, r, r + 1, pools_->String(e.str), e.span);
        if (e.args.size() == 1) return;
        uint32_t done = Emit(Op::kTJumpIfFalse, r, 0, 0, e.span);
        Expr(*e.args[1], r + 2);
        Emit(Op::kIn, r, r + 1, r + 2, e.span);
        Patch(done, Here());
        return;
      }
      case K::kSet:
        if (IsConstantSet(e)) {
          Emit(Op::kConstSet, r, 0, pools_->ConstSet(e.args), e.span);
          return;
        }
        Literal(e, r);
        return;
      case K::kRecord:
        Literal(e, r);
        return;
      case K::kMethod:
      case K::kCall: {
        int id = FindBuiltin(e.str, e.kind == K::kMethod ? CallStyle::kMethod : CallStyle::kFunction);
        if (id < 0) return;  // reported by the parser
        const BuiltinInfo& info = kBuiltins[id];
        uint32_t n = static_cast<uint32_t>(e.args.size());
        if (n != info.arity && info.wrong_arity == WrongArity::kParse) return;  // reported by the parser
        if (n != info.arity) {
          // Cedar evaluates the arguments in order, then fails the call. The
          // values are not needed, so each goes into r: a call of 300
          // arguments needs no more registers than one of them.
          for (uint32_t i = 0; i < n; ++i) Expr(*e.args[i], r);
          Emit(Op::kStr, r, 0, pools_->String(WrongArityMessage(info, n)), e.span);
          Emit(Op::kCall, r, static_cast<uint32_t>(Builtin::kArityError), r, e.span);
          Touch(r + 1);
          return;
        }
        for (uint32_t i = 0; i < n; ++i) Expr(*e.args[i], r + i);
        Emit(Op::kCall, r, static_cast<uint32_t>(id), r, e.span);
        Touch(r + std::max(n, uint32_t{1}));
        return;
      }
      case K::kSlot:
        return;  // already reported by the parser
    }
  }

  // A set or record literal into r. Its elements (values) are computed in
  // order, a chunk at a time: the first chunk into r, r+1, ... and MakeSet
  // (MakeRecord), which reads them all before it writes r; each further
  // chunk into r+1, ... and SetExtend (RecordExtend), which adds them to
  // r. So a literal of any length needs at most ChunkSize(r) + 1 registers.
  void Literal(const ast::Expr& e, uint32_t r) {
    bool set = e.kind == ast::Expr::Kind::kSet;
    uint32_t n = static_cast<uint32_t>(e.args.size());
    uint32_t chunk = ChunkSize(r);
    for (uint32_t begin = 0; begin == 0 || begin < n; begin += chunk) {
      uint32_t m = std::min(chunk, n - begin);
      uint32_t first = begin == 0 ? r : r + 1;
      for (uint32_t i = 0; i < m; ++i) Expr(*e.args[begin + i], first + i);
      if (set) {
        Emit(begin == 0 ? Op::kMakeSet : Op::kSetExtend, r, m, first, e.span);
      } else {
        std::vector<std::string> keys(e.keys.begin() + begin, e.keys.begin() + begin + m);
        uint32_t shape = pools_->Shape(keys);
        if (shape > kMaxOperandB && !pools_->shape_limit_reported) {
          pools_->shape_limit_reported = true;
          diags_->Error(codes::CH0204, e.span,
                        Cat("the policy set has more than ", kMaxOperandB + 1,
                            " record shapes (record literals with different keys, 32 keys to a shape)"),
                        "build record values from fewer key lists, or split the policy set into several bundles");
        }
        Emit(begin == 0 ? Op::kMakeRecord : Op::kRecordExtend, r, shape, first, e.span);
      }
      Touch(first + m);
      if (n == 0) break;
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
        uint32_t done = Emit(e.bop == B::kAnd ? JumpIfFalse() : JumpIfTrue(), r, 0, 0,
                             e.args[0]->span);
        Expr(*e.args[1], r);
        CheckBool(r, e.args[1]->span);
        Patch(done, Here());
        return;
      }
      case B::kEq:
      case B::kNe:
      case B::kIn:
        Expr(*e.args[0], r);
        Expr(*e.args[1], r + 1);
        Emit(e.bop == B::kIn ? Op::kIn : Op::kEq, r, r, r + 1, e.span);
        if (e.bop == B::kNe) Emit(Op::kTNot, r, r, 0, e.span);  // Eq made a boolean
        return;
      case B::kLt:
      case B::kLe:
      case B::kGt:
      case B::kGe:
      case B::kAdd:
      case B::kSub:
      case B::kMul: {
        Op op = Arith(e.bop);
        Expr(*e.args[0], r);
        Expr(*e.args[1], r + 1);
        Emit(op, r, r, r + 1, e.span);
        return;
      }
    }
  }

  Pools* pools_;
  Diagnostics* diags_;
  std::vector<uint64_t> code_;
  std::vector<std::array<uint32_t, 3>> spans_;
  std::vector<uint32_t> false_jumps_;
  bool typed_;
  size_t max_code_words_;
  uint32_t max_reg_ = 1;  // registers 0 and 1 are used by the scope checks
};

}  // namespace

absl::StatusOr<std::string> LowerToBundle(const PolicySet& set, const SourceFile& source,
                                          const LowerOptions& options, Diagnostics* diagnostics) {
  return LowerToBundle(set, std::vector<const SourceFile*>{&source}, options, std::vector<Diagnostics*>{diagnostics});
}

absl::StatusOr<std::string> LowerToBundle(const PolicySet& set, const std::vector<const SourceFile*>& sources,
                                          const LowerOptions& options, const std::vector<Diagnostics*>& diagnostics) {
  flatbuffers::FlatBufferBuilder fbb(1024);
  Pools pools;
  std::vector<flatbuffers::Offset<fb::Policy>> policies;
  bool ok = true;
  auto diags_of = [&](const ast::Policy& p) { return diagnostics[p.source < diagnostics.size() ? p.source : 0]; };
  auto add = [&](const ast::Policy& p, const std::string& id, const ast::EntityRef* principal,
                 const ast::EntityRef* resource) {
    PolicyLowerer lowerer(&pools, diags_of(p), options.typed, options.max_code_words);
    if (!lowerer.Lower(p, principal, resource)) {
      ok = false;
      return;
    }
    std::vector<flatbuffers::Offset<fb::Annotation>> annotations;
    for (const ast::Annotation& a : p.annotations) {
      // Each offset in its own statement, in one order: as arguments of one
      // call they would be written in the order the compiler chose, and the
      // bundle's bytes would depend on the compiler that built Charter.
      auto value = fbb.CreateString(a.value);
      auto key = fbb.CreateString(a.key);
      annotations.push_back(fb::CreateAnnotation(fbb, key, value));
    }
    std::vector<fb::PcSpan> spans;
    for (const auto& s : lowerer.spans()) spans.emplace_back(s[0], s[1], s[2]);
    fb::SourceSpan span(p.span.begin, p.span.end);
    auto spans_vec = fbb.CreateVectorOfStructs(spans);
    auto code_vec = fbb.CreateVector(lowerer.code());
    auto annotations_vec = fbb.CreateVector(annotations);
    auto id_str = fbb.CreateString(id);
    policies.push_back(fb::CreatePolicy(
        fbb, id_str, p.effect == ast::Effect::kPermit ? fb::Effect::Permit : fb::Effect::Forbid, annotations_vec,
        &span, static_cast<uint16_t>(lowerer.num_registers()), code_vec, spans_vec, p.source));
  };
  // The limits of the bundle (the verifier's): each stops the lowering at
  // the policy that crosses it.
  const std::string raise = "split the policy set into several bundles";
  const ast::Policy* last = nullptr;  // the last policy lowered
  size_t tables = 1;                  // the bundle's root, then each policy and annotation
  for (size_t index = 0; index < set.instances.size(); ++index) {
    const PolicyInstance& instance = set.instances[index];
    const ast::Policy& p = *instance.policy;
    if (index == options.max_policies) {
      diags_of(p)->Error(codes::CH0203, p.span,
                         Cat("the policy set has ", set.instances.size(), " policies, more than the limit of ",
                             options.max_policies, "; `", instance.id, "` is the first past it"),
                         raise);
      ok = false;
      break;
    }
    add(p, instance.id, p.principal.slot ? &instance.principal_slot : nullptr,
        p.resource.slot ? &instance.resource_slot : nullptr);
    last = &p;
    tables += 1 + p.annotations.size();
    if (fbb.GetSize() > options.max_bundle_bytes) {
      diags_of(p)->Error(codes::CH0205, p.span,
                         Cat("with policy `", instance.id, "` the bundle is larger than the limit of ",
                             options.max_bundle_bytes, " bytes"),
                         raise);
      ok = false;
      break;
    }
    if (tables + pools.tables() > options.max_bundle_tables) {
      diags_of(p)->Error(codes::CH0205, p.span,
                         Cat("with policy `", instance.id, "` the bundle has more than the limit of ",
                             options.max_bundle_tables, " tables (policies, annotations, entity and pattern constants)"),
                         raise);
      ok = false;
      break;
    }
  }
  // The constant pools, written after the policies.
  if (ok && last != nullptr && fbb.GetSize() + pools.EstimatedBytes() > options.max_bundle_bytes) {
    diags_of(*last)->Error(codes::CH0205, last->span,
                           Cat("the bundle's constants take it past the limit of ", options.max_bundle_bytes,
                               " bytes"),
                           raise);
    ok = false;
  }
  // A link that does not fit ends the instances; the policies before it are
  // lowered all the same, so that their diagnostics are reported with it.
  if (!set.linked.ok()) return set.linked;
  if (!ok) return std::string();
  std::vector<flatbuffers::Offset<flatbuffers::String>> strings;
  for (const std::string& s : pools.strings()) strings.push_back(fbb.CreateString(s));
  std::vector<flatbuffers::Offset<fb::EntityConst>> entities;
  for (const auto& [type, id] : pools.entities()) {
    auto id_str = fbb.CreateString(id);
    auto type_str = fbb.CreateString(type);
    entities.push_back(fb::CreateEntityConst(fbb, type_str, id_str));
  }
  std::vector<flatbuffers::Offset<fb::Pattern>> patterns;
  for (const auto& elems : pools.patterns()) {
    std::vector<flatbuffers::Offset<fb::PatternElem>> parts;
    for (const ast::PatternElem& e : elems) {
      parts.push_back(fb::CreatePatternElem(fbb, e.wildcard, e.wildcard ? 0 : fbb.CreateString(e.literal)));
    }
    patterns.push_back(fb::CreatePattern(fbb, fbb.CreateVector(parts)));
  }
  std::vector<flatbuffers::Offset<fb::RecordShape>> shapes;
  for (const auto& [keys, order] : pools.shapes()) {
    auto order_vec = fbb.CreateVector(order);
    auto keys_vec = fbb.CreateVector(keys);
    shapes.push_back(fb::CreateRecordShape(fbb, keys_vec, order_vec));
  }
  std::vector<flatbuffers::Offset<fb::ConstSet>> const_sets;
  for (const auto& elems : pools.const_sets()) {
    std::vector<fb::ConstScalar> scalars;
    scalars.reserve(elems.size());
    for (auto [kind, index] : elems) scalars.emplace_back(static_cast<fb::ScalarKind>(kind), index);
    const_sets.push_back(fb::CreateConstSet(fbb, fbb.CreateVectorOfStructs(scalars)));
  }
  auto fingerprint =
      options.schema_fingerprint.empty() ? 0 : fbb.CreateString(options.schema_fingerprint);
  std::vector<flatbuffers::Offset<flatbuffers::String>> names;
  for (const SourceFile* source : sources) names.push_back(fbb.CreateString(source->name()));
  std::vector<flatbuffers::Offset<fb::Section>> sections;
  for (const auto& [name, data] : options.sections) {
    auto data_vec = fbb.CreateVector(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    auto name_str = fbb.CreateString(name);
    sections.push_back(fb::CreateSection(fbb, name_str, data_vec));
  }
  // The root's parts, last first (the order the bundle has always had).
  auto sections_vec = sections.empty() ? 0 : fbb.CreateVectorOfSortedTables(&sections);
  auto names_vec = fbb.CreateVector(names);
  auto const_sets_vec = fbb.CreateVector(const_sets);
  auto shapes_vec = fbb.CreateVector(shapes);
  auto patterns_vec = fbb.CreateVector(patterns);
  auto policies_vec = fbb.CreateVector(policies);
  auto entities_vec = fbb.CreateVector(entities);
  auto longs_vec = fbb.CreateVector(pools.longs());
  auto strings_vec = fbb.CreateVector(strings);
  auto source_str = fbb.CreateString(sources.empty() ? std::string_view() : sources[0]->name());
  auto version_str = fbb.CreateString(CHARTER_VERSION);
  auto root = fb::CreateBundle(fbb, kFormatVersion, version_str, source_str, strings_vec, longs_vec, entities_vec,
                               policies_vec, fingerprint, patterns_vec, shapes_vec, const_sets_vec, names_vec,
                               sections_vec);
  fb::FinishBundleBuffer(fbb, root);
  if (fbb.GetSize() > options.max_bundle_bytes) {
    // (The sections are not estimated: the declarations they come from are
    // few.)
    diagnostics[last != nullptr ? last->source < diagnostics.size() ? last->source : 0 : 0]->Error(
        codes::CH0205, last != nullptr ? last->span : Span{},
        Cat("the bundle is ", fbb.GetSize(), " bytes, more than the limit of ", options.max_bundle_bytes, " bytes"),
        raise);
    return std::string();
  }
  return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
}

}  // namespace charter::internal
