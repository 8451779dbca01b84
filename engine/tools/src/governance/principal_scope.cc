// The partial evaluation of a policy's bytecode with the principal unknown
// (principal_scope.h). Each opcode the run models computes what the VM
// computes (vm/vm.cc) on known operands; every other result is unknown.
#include "governance/principal_scope.h"

#include <cstring>

#include "bytecode/opcodes.h"

namespace charter::internal {
namespace {

enum class Kind : uint8_t {
  kKnown,      // `value`, the same for every principal
  kUnknown,    // depends on the principal, or on something the run does not model
  kPrincipal,  // the principal itself
  kTest,       // the boolean `principal in/== E` or `principal is T`: tests[test]
};

struct Reg {
  Kind kind = Kind::kKnown;
  Value value;  // kKnown; every register starts as `false`, as in the VM
  int32_t test = -1;
};

bool EntityIn(const EntityRef* a, const EntityRef* b, const EntityStore& store) {
  if (Equal(Value::Entity(a), Value::Entity(b))) return true;
  uint32_t ua = store.Resolve(*a);
  if (ua == kNoUid) return false;
  uint32_t ub = store.Resolve(*b);
  if (ub == kNoUid) return false;
  return store.HasAncestor(ua, ub);
}

// The attribute `name` of a known record or entity: the value, or nullptr
// where the VM errs (no such attribute, no such entity, not a record).
const Value* AttrOf(const Value& base, std::string_view name, const EntityStore& store) {
  if (base.type == Type::kRecord) return FindField(base, name);
  if (base.type != Type::kEntity) return nullptr;
  uint32_t uid = store.Resolve(*base.entity);
  const EntityData* data = uid == kNoUid ? nullptr : store.data(uid);
  return data == nullptr ? nullptr : FindField(data->attrs, name);
}

bool Ordered(Type t) { return t == Type::kLong || t == Type::kDatetime || t == Type::kDuration; }

bool BoolBits(const Value& v) {
  unsigned char byte;
  std::memcpy(&byte, &v.b, 1);
  return byte != 0;
}

bool IsBranch(Op op) {
  return op == Op::kJumpIfFalse || op == Op::kJumpIfTrue || op == Op::kTJumpIfFalse || op == Op::kTJumpIfTrue;
}
bool BranchesWhen(Op op) { return op == Op::kJumpIfTrue || op == Op::kTJumpIfTrue; }

// Whether control at `t`, with R[r] known to be `value` and nothing else
// known, reaches `return false` before any other instruction runs.
bool LeadsToFalse(const PolicyCode& policy, uint32_t t, uint32_t r, bool value) {
  for (int hops = 0; hops < 64 && t < policy.size; ++hops) {
    Insn insn{policy.code[t]};
    Op op = insn.op();
    if (op == Op::kRetBool) return insn.b() == 0;
    if (op == Op::kJump) {
      t = insn.c();
      continue;
    }
    if (insn.a() != r) return false;
    if (op == Op::kRet) return !value;
    if (op == Op::kCheckBool) {
      ++t;
      continue;
    }
    if (!IsBranch(op)) return false;
    t = value == BranchesWhen(op) ? insn.c() : t + 1;
  }
  return false;
}

}  // namespace

PrincipalScope AnalyzePrincipal(const Program& program, const PolicyCode& policy, const Value vars[4],
                                const EntityStore& store, Arena* scratch) {
  PrincipalScope out;
  std::vector<Reg> regs(policy.num_registers);
  std::vector<PrincipalAnchor> tests;
  auto never = [&out] {
    out.never = true;
    out.anchors.clear();
    return out;
  };
  auto known = [&regs](uint32_t r, Value v) {
    regs[r].kind = Kind::kKnown;
    regs[r].value = v;
  };
  auto unknown = [&regs](uint32_t r) { regs[r].kind = Kind::kUnknown; };
  auto is_known = [&regs](uint32_t r) { return regs[r].kind == Kind::kKnown; };
  auto test = [&regs, &tests](uint32_t r, PrincipalAnchor anchor) {
    regs[r].kind = Kind::kTest;
    regs[r].test = static_cast<int32_t>(tests.size());
    tests.push_back(std::move(anchor));
  };
  // The condition in R[r] must hold on the path that returns true.
  auto holds = [&regs, &tests, &out](uint32_t r) {
    if (regs[r].kind == Kind::kTest) out.anchors.push_back(tests[regs[r].test]);
  };

  uint32_t pc = 0;
  // INVARIANT: the verifier admits forward jumps only, so pc grows.
  while (pc < policy.size) {
    Insn insn{policy.code[pc]};
    uint32_t a = insn.a(), b = insn.b(), c = insn.c();
    uint32_t next = pc + 1;
    switch (insn.op()) {
      case Op::kBool:
        known(a, Value::Bool(b != 0));
        break;
      case Op::kLong:
        known(a, Value::Long(program.long_at(c)));
        break;
      case Op::kStr:
        known(a, program.string(c));
        break;
      case Op::kEntity:
        known(a, Value::Entity(program.entity(c)));
        break;
      case Op::kConstSet:
        known(a, program.const_set(c));
        break;
      case Op::kVar:
        if (b == 0) {
          regs[a].kind = Kind::kPrincipal;
        } else {
          known(a, vars[b]);
        }
        break;
      case Op::kAttr:
      case Op::kHas: {
        if (!is_known(b)) {
          unknown(a);
          break;
        }
        const Value base = regs[b].value;
        if (base.type != Type::kRecord && base.type != Type::kEntity) return never();
        const Value* found = AttrOf(base, program.string_view(c), store);
        if (insn.op() == Op::kHas) {
          known(a, Value::Bool(found != nullptr));
        } else if (found == nullptr) {
          return never();
        } else {
          known(a, *found);
        }
        break;
      }
      case Op::kEq: {
        const Reg x = regs[b], y = regs[c];
        if (x.kind == Kind::kKnown && y.kind == Kind::kKnown) {
          known(a, Value::Bool(Equal(x.value, y.value)));
        } else if ((x.kind == Kind::kPrincipal && y.kind == Kind::kKnown) ||
                   (y.kind == Kind::kPrincipal && x.kind == Kind::kKnown)) {
          const Value& other = x.kind == Kind::kKnown ? x.value : y.value;
          if (other.type != Type::kEntity) {
            known(a, Value::Bool(false));  // an entity equals no other kind of value
          } else {
            test(a, PrincipalAnchor{PrincipalAnchor::kEq, {*other.entity}, {}, pc});
          }
        } else {
          unknown(a);
        }
        break;
      }
      case Op::kIn: {
        const Reg lhs = regs[b], rhs = regs[c];
        if (lhs.kind == Kind::kKnown && lhs.value.type != Type::kEntity) return never();
        if (rhs.kind != Kind::kKnown || (lhs.kind != Kind::kKnown && lhs.kind != Kind::kPrincipal)) {
          unknown(a);
          break;
        }
        const Value& set = rhs.value;
        if (set.type == Type::kSet) {
          for (uint32_t i = 0; i < set.size; ++i) {
            if (set.elements[i].type != Type::kEntity) return never();
          }
        } else if (set.type != Type::kEntity) {
          return never();
        }
        if (lhs.kind == Kind::kKnown) {
          bool in = false;
          if (set.type == Type::kEntity) {
            in = EntityIn(lhs.value.entity, set.entity, store);
          } else {
            for (uint32_t i = 0; i < set.size && !in; ++i) in = EntityIn(lhs.value.entity, set.elements[i].entity, store);
          }
          known(a, Value::Bool(in));
          break;
        }
        PrincipalAnchor anchor{PrincipalAnchor::kIn, {}, {}, pc};
        if (set.type == Type::kEntity) {
          anchor.entities.push_back(*set.entity);
        } else {
          for (uint32_t i = 0; i < set.size; ++i) anchor.entities.push_back(*set.elements[i].entity);
        }
        if (anchor.entities.empty()) {
          known(a, Value::Bool(false));
        } else {
          test(a, std::move(anchor));
        }
        break;
      }
      case Op::kIs: {
        if (regs[b].kind == Kind::kPrincipal) {
          test(a, PrincipalAnchor{PrincipalAnchor::kIs, {}, program.string_view(c), pc});
        } else if (!is_known(b)) {
          unknown(a);
        } else if (regs[b].value.type != Type::kEntity) {
          return never();
        } else {
          known(a, Value::Bool(regs[b].value.entity->type == program.string_view(c)));
        }
        break;
      }
      case Op::kNot:
      case Op::kTNot:
        if (!is_known(b)) {
          unknown(a);
        } else if (regs[b].value.type == Type::kBool) {
          known(a, Value::Bool(!regs[b].value.b));
        } else if (insn.op() == Op::kNot) {
          return never();
        } else {
          known(a, Value::Bool(!BoolBits(regs[b].value)));
        }
        break;
      case Op::kCheckBool:
        if (is_known(a) && regs[a].value.type != Type::kBool) return never();
        break;
      case Op::kLt:
      case Op::kLe:
      case Op::kGt:
      case Op::kGe:
      case Op::kTLt:
      case Op::kTLe:
      case Op::kTGt:
      case Op::kTGe: {
        if (!is_known(b) || !is_known(c)) {
          unknown(a);
          break;
        }
        const Value& x = regs[b].value;
        const Value& y = regs[c].value;
        if (!Ordered(x.type) || y.type != x.type) {
          bool typed = insn.op() == Op::kTLt || insn.op() == Op::kTLe || insn.op() == Op::kTGt ||
                       insn.op() == Op::kTGe;
          if (!typed) return never();  // the VM's type error
          unknown(a);
          break;
        }
        bool r = false;
        switch (insn.op()) {
          case Op::kLt: case Op::kTLt: r = x.i < y.i; break;
          case Op::kLe: case Op::kTLe: r = x.i <= y.i; break;
          case Op::kGt: case Op::kTGt: r = x.i > y.i; break;
          default: r = x.i >= y.i; break;
        }
        known(a, Value::Bool(r));
        break;
      }
      case Op::kMakeSet: {
        bool all = true;
        for (uint32_t i = 0; i < b && all; ++i) all = is_known(c + i);
        if (!all) {
          unknown(a);
          break;
        }
        Value* elems = scratch->AllocateArray<Value>(b + 1);
        Value* src = scratch->AllocateArray<Value>(b + 1);
        for (uint32_t i = 0; i < b; ++i) src[i] = regs[c + i].value;
        known(a, Value::Set(elems, AppendUnique(elems, 0, src, b)));
        break;
      }
      case Op::kNeg:
      case Op::kAdd:
      case Op::kSub:
      case Op::kMul:
      case Op::kTNeg:
      case Op::kTAdd:
      case Op::kTSub:
      case Op::kTMul:
      case Op::kLike:
      case Op::kMakeRecord:
      case Op::kCall:
      case Op::kSetExtend:
      case Op::kRecordExtend:
        // Results this run does not compute. (One that errs on known
        // operands makes the policy false for everyone; not knowing that
        // costs pruning, never an answer.)
        unknown(a);
        break;
      case Op::kJump:
        next = c;
        break;
      case Op::kJumpIfFalse:
      case Op::kJumpIfTrue:
      case Op::kTJumpIfFalse:
      case Op::kTJumpIfTrue: {
        bool when = BranchesWhen(insn.op());
        bool typed = insn.op() == Op::kTJumpIfFalse || insn.op() == Op::kTJumpIfTrue;
        if (is_known(a)) {
          const Value& v = regs[a].value;
          if (v.type != Type::kBool && !typed) return never();
          bool value = v.type == Type::kBool ? v.b : BoolBits(v);
          next = value == when ? c : pc + 1;
          break;
        }
        // The condition is not known: one way must return false, and the
        // run goes the other way, where the condition has the other value.
        if (LeadsToFalse(policy, c, a, when)) {
          if (!when) holds(a);  // past a jump-if-false to `false`, the test held
          next = pc + 1;
        } else if (LeadsToFalse(policy, pc + 1, a, !when)) {
          if (when) holds(a);
          next = c;
        } else {
          return out;
        }
        break;
      }
      case Op::kRet:
        if (is_known(a)) {
          const Value& v = regs[a].value;
          if (v.type != Type::kBool || !v.b) return never();
        } else {
          holds(a);
        }
        return out;
      case Op::kRetBool:
        if (b == 0) return never();
        return out;
      default:
        return out;  // an opcode this run does not model
    }
    pc = next;
  }
  return out;
}

}  // namespace charter::internal
