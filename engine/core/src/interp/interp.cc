// The reference interpreter: a direct walk of the AST. Each node kind is one
// case below, written from Cedar's semantics (docs/language.md); operands
// are evaluated left to right, the first error wins, and only `&&`, `||` and
// `if` skip operands.
#include "interp/interp.h"

#include <algorithm>
#include <utility>

#include "unwrap/unwrap.h"
#include "builtins/builtins.h"
#include "common/combine.h"
#include "common/like.h"
#include "common/strings.h"
#include "request/request_data.h"

namespace charter::internal::interp {
namespace {

using ast::BinaryOp;
using K = ast::Expr::Kind;

std::string TypeError(std::string_view expected, const Value& got) {
  return Cat("type error: expected ", expected, ", got ", TypeName(got.type));
}

class Evaluator {
 public:
  Evaluator(const Env& env, Arena* scratch, Tracer* tracer, const Limits& limits)
      : env_(env), scratch_(scratch), tracer_(tracer), limits_(limits) {}

  // Evaluates `e` into *out, or records the error and returns false.
  bool Eval(const ast::Expr& e, int depth, Value* out) {
    if (depth > limits_.max_depth) return Fail(e, "the expression nests too deeply to evaluate");
    int chain = ast::ChainKind(e);
    if (chain == 0 || ast::ChainKind(*e.args[0]) != chain) return Node(e, depth, out);
    // A left-leaning chain of one kind (`a || b || c`, `a + b - c`, `e.a.b`):
    // its innermost link first, then each link outwards, in a loop.
    std::vector<const ast::Expr*> links{&e};
    while (ast::ChainKind(*links.back()->args[0]) == chain) links.push_back(links.back()->args[0].get());
    Value v;
    if (!Node(*links.back(), depth + 1, &v)) return false;
    for (size_t i = links.size() - 1; i-- > 0;) {
      if (!Apply(*links[i], v, depth + 1, &v, /*outermost=*/i == 0)) return false;
    }
    *out = v;
    return true;
  }

  // Whether the request's variable matches a scope constraint.
  bool Scope(const ast::ScopeConstraint& s, const Value& var, const ast::EntityRef& slot) const {
    using SK = ast::ScopeConstraint::Kind;
    const EntityRef& v = *var.entity;
    const ast::EntityRef& target = s.slot ? slot : s.entity;
    switch (s.kind) {
      case SK::kAny: return true;
      case SK::kEq: return v.type == target.type && v.id == target.id;
      case SK::kIn: return In(v, target.type, target.id);
      case SK::kIs: return v.type == s.type;
      case SK::kIsIn: return v.type == s.type && In(v, target.type, target.id);
    }
    return false;
  }

  bool Action(const ast::ActionConstraint& a, const Value& var) const {
    using AK = ast::ActionConstraint::Kind;
    const EntityRef& v = *var.entity;
    switch (a.kind) {
      case AK::kAny: return true;
      case AK::kEq: return v.type == a.entities[0].type && v.id == a.entities[0].id;
      case AK::kIn:
      case AK::kInList:
        for (const ast::EntityRef& e : a.entities) {
          if (In(v, e.type, e.id)) return true;
        }
        return false;
    }
    return false;
  }

  // The error of node `e`; `where` is the expression the VM's failing
  // instruction computes, when that is not `e` (an operand that is not a
  // boolean), so that both report the same span.
  bool Fail(const ast::Expr& e, std::string message, const ast::Expr* where = nullptr) {
    if (error_at_ == nullptr) {
      error_ = std::move(message);
      error_at_ = &e;
      error_span_ = (where != nullptr ? where : &e)->span;
    }
    return false;
  }
  const std::string& error() const { return error_; }
  const ast::Expr* error_at() const { return error_at_; }
  Span error_span() const { return error_span_; }

 private:
  bool Done(const ast::Expr& e, const Value& v, Value* out) {
    *out = v;
    if (tracer_ != nullptr) tracer_->OnValue(e, v);
    return true;
  }

  // The entity's data in the store, or nullptr when it has none.
  const EntityData* Data(const EntityRef& e) const {
    uint32_t uid = env_.store->Find(e.type, e.id);
    return uid == kNoUid ? nullptr : env_.store->data(uid);
  }

  // `a in B`: a is B, or B is among a's ancestors in the store.
  bool In(const EntityRef& a, std::string_view type, std::string_view id) const {
    if (a.type == type && a.id == id) return true;
    uint32_t ua = env_.store->Find(a.type, a.id);
    uint32_t ub = env_.store->Find(type, id);
    return ua != kNoUid && ub != kNoUid && env_.store->HasAncestor(ua, ub);
  }

  bool Node(const ast::Expr& e, int depth, Value* out) {
    switch (e.kind) {
      case K::kBool: return Done(e, Value::Bool(e.b), out);
      case K::kLong: return Done(e, Value::Long(e.i), out);
      case K::kString: return Done(e, Value::String(e.str), out);
      case K::kEntity:
        return Done(e, Value::Entity(scratch_->New<EntityRef>(EntityRef{e.entity.type, e.entity.id, kNoUid})),
                    out);
      case K::kVar: return Done(e, env_.vars[static_cast<int>(e.var)], out);
      case K::kSlot: return Fail(e, "a template slot outside the scope");
      case K::kAttr:
      case K::kBinary: {
        Value left;
        if (!Eval(*e.args[0], depth + 1, &left)) return false;
        return Apply(e, left, depth + 1, out);
      }
      case K::kHas: return Has(e, depth, out);
      case K::kUnary: {
        Value v;
        if (!Eval(*e.args[0], depth + 1, &v)) return false;
        if (e.uop == ast::UnaryOp::kNot) {
          if (v.type != Type::kBool) return Fail(e, TypeError("bool", v));
          return Done(e, Value::Bool(!v.b), out);
        }
        if (v.type != Type::kLong) return Fail(e, TypeError("long", v));
        if (v.i == INT64_MIN) {
          return Fail(e, Cat("integer overflow while attempting to negate the value ", v.i));
        }
        return Done(e, Value::Long(-v.i), out);
      }
      case K::kIf: {
        Value c;
        if (!Eval(*e.args[0], depth + 1, &c)) return false;
        if (c.type != Type::kBool) return Fail(e, TypeError("bool", c), e.args[0].get());
        Value v;
        if (!Eval(*e.args[c.b ? 1 : 2], depth + 1, &v)) return false;
        return Done(e, v, out);
      }
      case K::kLike: {
        Value v;
        if (!Eval(*e.args[0], depth + 1, &v)) return false;
        if (v.type != Type::kString) return Fail(e, TypeError("string", v));
        return Done(e, Value::Bool(Like(v.string(), e.pattern)), out);
      }
      case K::kIs: {
        // `x is T in y` is `x is T && x in y`.
        Value v;
        if (!Eval(*e.args[0], depth + 1, &v)) return false;
        if (v.type != Type::kEntity) return Fail(e, TypeError("entity", v));
        bool is = v.entity->type == e.str;
        if (!is || e.args.size() == 1) return Done(e, Value::Bool(is), out);
        Value group;
        if (!Eval(*e.args[1], depth + 1, &group)) return false;
        bool in;
        if (!InValue(e, v, group, &in)) return false;
        return Done(e, Value::Bool(in), out);
      }
      case K::kSet: {
        // Every element in order, then one pass that keeps the first of
        // equal ones (hashed: a pairwise check was quadratic, issue 15).
        std::vector<Value> elems;
        elems.reserve(e.args.size());
        for (const auto& a : e.args) {
          Value v;
          if (!Eval(*a, depth + 1, &v)) return false;
          elems.push_back(v);
        }
        Value* stored = scratch_->AllocateArray<Value>(elems.size());
        uint32_t unique = AppendUnique(stored, 0, elems.data(), static_cast<uint32_t>(elems.size()));
        return Done(e, Value::Set(stored, unique), out);
      }
      case K::kRecord: {
        std::vector<RecordField> fields;
        for (size_t i = 0; i < e.args.size(); ++i) {
          Value v;
          if (!Eval(*e.args[i], depth + 1, &v)) return false;
          fields.push_back(RecordField{e.keys[i], v});
        }
        std::sort(fields.begin(), fields.end(),
                  [](const RecordField& a, const RecordField& b) { return a.key < b.key; });
        RecordField* stored = scratch_->AllocateArray<RecordField>(fields.size());
        std::copy(fields.begin(), fields.end(), stored);
        return Done(e, Value::Record(stored, static_cast<uint32_t>(fields.size())), out);
      }
      case K::kMethod:
      case K::kCall: {
        int id = FindBuiltin(e.str, e.kind == K::kMethod ? CallStyle::kMethod : CallStyle::kFunction);
        if (id < 0 || (kBuiltins[id].arity != e.args.size() &&
                       kBuiltins[id].wrong_arity == WrongArity::kParse)) {
          return Fail(e, Cat("`", e.str, "` is not a known function"));  // the parser says so first
        }
        std::vector<Value> args;
        for (const auto& a : e.args) {
          Value v;
          if (!Eval(*a, depth + 1, &v)) return false;
          args.push_back(v);
        }
        if (kBuiltins[id].arity != e.args.size()) {
          return Fail(e, WrongArityMessage(kBuiltins[id], e.args.size()));
        }
        Value v;
        std::string error;
        CallContext ctx{env_.store, scratch_};
        if (!CallBuiltin(static_cast<Builtin>(id), args.data(), ctx, &v, &error)) {
          return Fail(e, std::move(error));
        }
        return Done(e, v, out);
      }
    }
    return Fail(e, "unknown expression");
  }

  // An attribute access or a binary operator whose left operand is `left`;
  // `outermost` unless it is an inner link of a chain.
  bool Apply(const ast::Expr& e, const Value& left, int depth, Value* out, bool outermost = true) {
    if (e.kind == K::kAttr) {
      const Value* v;
      if (!Attribute(e, left, e.str, &v)) return false;
      return Done(e, *v, out);
    }
    if (e.bop == BinaryOp::kAnd || e.bop == BinaryOp::kOr) {
      if (left.type != Type::kBool) return Fail(e, TypeError("bool", left), e.args[0].get());
      if (left.b == (e.bop == BinaryOp::kOr)) return Done(e, left, out);
      Value right;
      if (!Eval(*e.args[1], depth + 1, &right)) return false;
      // The VM checks the right operand of an inner link of a chain as the
      // left operand of the next link, whose span is this link's.
      if (right.type != Type::kBool) {
        return Fail(e, TypeError("bool", right), outermost ? e.args[1].get() : &e);
      }
      return Done(e, right, out);
    }
    Value right;
    if (!Eval(*e.args[1], depth + 1, &right)) return false;
    switch (e.bop) {
      case BinaryOp::kEq: return Done(e, Value::Bool(Equal(left, right)), out);
      case BinaryOp::kNe: return Done(e, Value::Bool(!Equal(left, right)), out);
      case BinaryOp::kIn: {
        bool in;
        if (!InValue(e, left, right, &in)) return false;
        return Done(e, Value::Bool(in), out);
      }
      case BinaryOp::kLt:
      case BinaryOp::kLe:
      case BinaryOp::kGt:
      case BinaryOp::kGe: {
        // Two longs, two datetimes or two durations.
        Type t = left.type;
        if (t != Type::kLong && t != Type::kDatetime && t != Type::kDuration) {
          return Fail(e, TypeError("long", left));
        }
        if (right.type != t) return Fail(e, TypeError(TypeName(t), right));
        int64_t a = left.i, b = right.i;
        bool r = e.bop == BinaryOp::kLt   ? a < b
                 : e.bop == BinaryOp::kLe ? a <= b
                 : e.bop == BinaryOp::kGt ? a > b
                                          : a >= b;
        return Done(e, Value::Bool(r), out);
      }
      default: {  // + - *
        if (left.type != Type::kLong) return Fail(e, TypeError("long", left));
        if (right.type != Type::kLong) return Fail(e, TypeError("long", right));
        int64_t r;
        bool overflow;
        const char* verb;
        if (e.bop == BinaryOp::kAdd) {
          overflow = __builtin_add_overflow(left.i, right.i, &r), verb = "add";
        } else if (e.bop == BinaryOp::kSub) {
          overflow = __builtin_sub_overflow(left.i, right.i, &r), verb = "subtract";
        } else {
          overflow = __builtin_mul_overflow(left.i, right.i, &r), verb = "multiply";
        }
        if (overflow) {
          return Fail(e, Cat("integer overflow while attempting to ", verb, " the values ", left.i,
                             " and ", right.i));
        }
        return Done(e, Value::Long(r), out);
      }
    }
  }

  // `left in right`: an entity in an entity or in a set of entities; every
  // element of the set is checked to be an entity before the answer.
  bool InValue(const ast::Expr& e, const Value& left, const Value& right, bool* in) {
    if (left.type != Type::kEntity) return Fail(e, TypeError("entity", left));
    if (right.type == Type::kEntity) {
      *in = In(*left.entity, right.entity->type, right.entity->id);
      return true;
    }
    if (right.type != Type::kSet) return Fail(e, TypeError("entity or set of entities", right));
    for (uint32_t i = 0; i < right.size; ++i) {
      if (right.elements[i].type != Type::kEntity) {
        return Fail(e, TypeError("set of entities", right.elements[i]));
      }
    }
    *in = false;
    for (uint32_t i = 0; i < right.size; ++i) {
      *in = *in || In(*left.entity, right.elements[i].entity->type, right.elements[i].entity->id);
    }
    return true;
  }

  // `base.name`: a record's field or an entity's attribute.
  bool Attribute(const ast::Expr& e, const Value& base, std::string_view name, const Value** v) {
    if (base.type == Type::kRecord) {
      *v = FindField(base, name);
      if (*v == nullptr) return Fail(e, Cat("record does not have the attribute `", name, "`"));
      return true;
    }
    if (base.type != Type::kEntity) return Fail(e, TypeError("record or entity", base));
    std::string entity = EntityToCedar(base.entity->type, base.entity->id);
    const EntityData* data = Data(*base.entity);
    if (data == nullptr) return Fail(e, Cat("entity `", entity, "` does not exist"));
    *v = FindField(data->attrs, name);
    if (*v == nullptr) return Fail(e, Cat("`", entity, "` does not have the attribute `", name, "`"));
    return true;
  }

  // `x has a.b.c` is `x has a && x.a has b && x.a.b has c`.
  bool Has(const ast::Expr& e, int depth, Value* out) {
    Value base;
    if (!Eval(*e.args[0], depth + 1, &base)) return false;
    std::vector<std::string> path = e.keys.empty() ? std::vector<std::string>{e.str} : e.keys;
    for (size_t i = 0; i < path.size(); ++i) {
      bool has;
      if (base.type == Type::kRecord) {
        has = FindField(base, path[i]) != nullptr;
      } else if (base.type == Type::kEntity) {
        const EntityData* data = Data(*base.entity);
        has = data != nullptr && FindField(data->attrs, path[i]) != nullptr;
      } else {
        return Fail(e, TypeError("record or entity", base));
      }
      if (!has || i + 1 == path.size()) return Done(e, Value::Bool(has), out);
      const Value* next;
      if (!Attribute(e, base, path[i], &next)) return false;
      base = *next;
    }
    return Done(e, Value::Bool(true), out);
  }

  // `s like pattern` (common/like.h: linear in both).
  static bool Like(std::string_view s, const std::vector<ast::PatternElem>& pattern) {
    return MatchLike(s, pattern);
  }

  const Env& env_;
  Arena* scratch_;
  Tracer* tracer_;
  const Limits& limits_;
  std::string error_;
  const ast::Expr* error_at_ = nullptr;
  Span error_span_;
};

}  // namespace

PolicyResult EvaluatePolicy(const PolicyInstance& instance, const Env& env, Arena* scratch,
                            Tracer* tracer, const Limits& limits) {
  const ast::Policy& p = *instance.policy;
  Evaluator ev(env, scratch, tracer, limits);
  PolicyResult result;
  // Cedar: principal && action && resource && each condition, in order.
  if (!ev.Scope(p.principal, env.vars[0], instance.principal_slot)) {
    result.part = Part::kPrincipal;
    return result;
  }
  if (!ev.Action(p.action, env.vars[1])) {
    result.part = Part::kAction;
    return result;
  }
  if (!ev.Scope(p.resource, env.vars[2], instance.resource_slot)) {
    result.part = Part::kResource;
    return result;
  }
  for (size_t i = 0; i < p.conditions.size(); ++i) {
    const ast::Condition& c = p.conditions[i];
    Value v;
    bool ok = ev.Eval(*c.body, 0, &v);
    if (ok && v.type != Type::kBool) ok = ev.Fail(*c.body, TypeError("bool", v));
    if (!ok) {
      result.outcome = Outcome::kError;
      result.part = Part::kCondition;
      result.condition = i;
      result.error = ev.error();
      result.error_at = ev.error_at();
      result.error_span = ev.error_span();
      return result;
    }
    if (v.b != c.when) {
      result.part = Part::kCondition;
      result.condition = i;
      return result;
    }
  }
  result.outcome = Outcome::kTrue;
  return result;
}

bool EvaluateExpression(const ast::Expr& e, const Env& env, Arena* scratch, Value* out,
                        std::string* error, const ast::Expr** error_at, Tracer* tracer,
                        const Limits& limits) {
  Evaluator ev(env, scratch, tracer, limits);
  if (ev.Eval(e, 0, out)) return true;
  *error = ev.error();
  *error_at = ev.error_at();
  return false;
}

Env MakeEnv(const Request& request, const Entities& entities, EntityRef refs[3]) {
  const RequestData& data = Unwrap::Data(request);
  refs[0] = data.principal_ref;
  refs[1] = data.action_ref;
  refs[2] = data.resource_ref;
  Env env;
  for (int i = 0; i < 3; ++i) {
    refs[i].uid = kNoUid;
    env.vars[i] = Value::Entity(&refs[i]);
  }
  env.vars[3] = data.context;
  env.store = &Unwrap::Store(entities);
  return env;
}

Decision Authorize(const PolicySet& set, const Request& request, const Entities& entities) {
  EntityRef refs[3];
  Env env = MakeEnv(request, entities, refs);
  Arena scratch;
  Decision decision;
  std::vector<std::string> permits, forbids;
  for (const PolicyInstance& instance : set.instances) {
    PolicyResult r = EvaluatePolicy(instance, env, &scratch);
    if (r.outcome == Outcome::kError) {
      decision.errors.push_back(PolicyError{instance.id, std::move(r.error), r.error_span});
    } else if (r.outcome == Outcome::kTrue) {
      (instance.policy->effect == ast::Effect::kForbid ? forbids : permits).push_back(instance.id);
    }
  }
  decision.allowed = CombinedAllows(permits, forbids);
  decision.reasons = std::move(DeterminingPolicies(permits, forbids));
  return decision;
}

}  // namespace charter::internal::interp
