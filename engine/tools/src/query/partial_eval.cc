// Partial evaluation over the AST (see partial_eval.h). Each node kind is a
// case of Evaluator::Eval; what mentions no unknown goes to the reference
// interpreter whole.
#include "query/partial_eval.h"

#include <utility>
#include <vector>

#include "builtins/builtins.h"
#include "common/strings.h"

namespace charter::internal::residual {
namespace {

using K = ast::Expr::Kind;
using ast::BinaryOp;

// What evaluating a node gave.
struct Result {
  enum Kind : uint8_t { kValue, kResidual, kError };
  Kind kind = kValue;
  Value value;        // kValue
  ExprPtr expr;       // kResidual: the residual; kError: an expression that fails alike
  std::string error;  // kError

  static Result Of(const Value& v) {
    Result r;
    r.value = v;
    return r;
  }
  static Result Residual(ExprPtr e) {
    Result r;
    r.kind = kResidual;
    r.expr = std::move(e);
    return r;
  }
  static Result Error(std::string message, ExprPtr e) {
    Result r;
    r.kind = kError;
    r.error = std::move(message);
    r.expr = std::move(e);
    return r;
  }
  bool is_value() const { return kind == kValue; }
  bool is_residual() const { return kind == kResidual; }
  bool is_error() const { return kind == kError; }
  bool is_bool(bool b) const { return kind == kValue && value.type == Type::kBool && value.b == b; }
};

// The expression that computes what `r` stands for.
ExprPtr ExprOf(Result r) {
  if (r.kind == Result::kValue) return FromValue(r.value);
  return std::move(r.expr);
}

void Walk(const ast::Expr& root, ast::Var var, absl::flat_hash_set<const ast::Expr*>* out) {
  // Post-order with an explicit stack: a node mentions `var` when it is
  // `var` or a child mentions it.
  std::vector<std::pair<const ast::Expr*, bool>> stack{{&root, false}};
  while (!stack.empty()) {
    auto [e, visited] = stack.back();
    stack.pop_back();
    if (!visited) {
      stack.push_back({e, true});
      for (const ExprPtr& a : e->args) stack.push_back({a.get(), false});
      continue;
    }
    bool mentions = IsVar(*e, var);
    for (const ExprPtr& a : e->args) mentions = mentions || out->contains(a.get());
    if (mentions) out->insert(e);
  }
}

class Evaluator {
 public:
  Evaluator(const PartialEnv& env, Arena* scratch) : env_(env), scratch_(scratch) {}

  bool too_deep() const { return too_deep_; }

  // Evaluates `e`. `bool_ctx`: the value is required to be a boolean by
  // whoever reads it, which then fails on anything else with the same
  // message as `true && x` would.
  Result Eval(const ast::Expr& e, bool bool_ctx, int depth) {
    if (!(*env_.mentions)(e)) return Concrete(e);
    if (depth > env_.max_depth) {
      too_deep_ = true;
      return Result::Error("the expression nests too deeply to evaluate", ast::Clone(e));
    }
    int chain = ast::ChainKind(e);
    if (chain != 0 && ast::ChainKind(*e.args[0]) == chain && (*env_.mentions)(*e.args[0])) {
      return Chain(e, chain, bool_ctx, depth);
    }
    switch (e.kind) {
      case K::kVar: return Result::Residual(Var(env_.unknown));  // only the unknown is mentioned
      case K::kAttr:
      case K::kBinary: {
        bool logical = e.kind == K::kBinary && (e.bop == BinaryOp::kAnd || e.bop == BinaryOp::kOr);
        return Link(e, Eval(*e.args[0], logical, depth + 1), bool_ctx, depth + 1);
      }
      case K::kHas:
      case K::kLike: return Single(e, Eval(*e.args[0], false, depth + 1));
      case K::kUnary: return UnaryNode(e, bool_ctx, depth);
      case K::kIf: return If(e, bool_ctx, depth);
      case K::kIs: return Is(e, depth);
      case K::kSet:
      case K::kRecord:
      case K::kMethod:
      case K::kCall: return Strict(e, depth);
      default: return Concrete(e);
    }
  }

  // The scope constraint on the unknown.
  Result UnknownScope(const ast::ScopeConstraint& s, const ast::EntityRef& slot) {
    using SK = ast::ScopeConstraint::Kind;
    const ast::EntityRef& target = s.slot ? slot : s.entity;
    switch (s.kind) {
      case SK::kAny: return Result::Of(Value::Bool(true));
      case SK::kEq: return EqUnknown(target, /*negate=*/false);
      case SK::kIn: return InUnknown(EntityValue(target));
      case SK::kIs: return Result::Of(Value::Bool(s.type == env_.unknown_type));
      case SK::kIsIn:
        if (s.type != env_.unknown_type) return Result::Of(Value::Bool(false));
        return InUnknown(EntityValue(target));
    }
    return Result::Of(Value::Bool(false));
  }

  // `left && right` or `left || right` with `left` evaluated; `right` is
  // evaluated only when needed. `link` is the node (for its message when
  // the right operand is no boolean).
  template <typename Right>
  Result Logical(bool is_and, Result left, Right&& right, bool bool_ctx, const ast::Expr* link) {
    if (left.is_error()) return left;
    // INVARIANT: `link` is null only for a policy's clauses, whose operands
    // are booleans (the caller turns a non-boolean clause into an error).
    if (left.is_value()) {
      if (left.value.type != Type::kBool) return Fail(*link);
      if (left.value.b != is_and) return left;  // false && .., true || ..
      Result r = right();
      if (r.is_value()) {
        if (r.value.type == Type::kBool) return r;
        return Fail(*link);
      }
      if (r.is_error()) return r;
      if (bool_ctx || BoolTyped(*r.expr)) return r;
      return Result::Residual(Binary(is_and ? BinaryOp::kAnd : BinaryOp::kOr, Bool(is_and), std::move(r.expr)));
    }
    // A residual on the left: the right operand runs only where it holds
    // (&&) or does not (||).
    Result r = right();
    BinaryOp op = is_and ? BinaryOp::kAnd : BinaryOp::kOr;
    if (r.is_value() && r.value.type == Type::kBool) {
      if (r.value.b == is_and) {  // x && true, x || false
        if (bool_ctx || BoolTyped(*left.expr)) return left;
        return Result::Residual(Binary(op, std::move(left.expr), Bool(is_and)));
      }
      // x && false, x || true: the constant unless x can fail.
      if (BoolTyped(*left.expr) && !CanError(*left.expr, env_.unknown)) return r;
      return Result::Residual(Binary(op, std::move(left.expr), Bool(!is_and)));
    }
    if (r.is_value()) {
      // A non-boolean: fails where the right operand is reached. The link's
      // own expression fails alike there.
      return Result::Residual(Binary(op, std::move(left.expr), ast::Clone(*link->args[1])));
    }
    return Result::Residual(Binary(op, std::move(left.expr), std::move(r.expr)));
  }

 private:
  // ---- leaves -----------------------------------------------------------------

  Result Concrete(const ast::Expr& e) {
    Value v;
    std::string error;
    const ast::Expr* at = nullptr;
    interp::Limits limits;
    limits.max_depth = env_.max_depth;
    if (interp::EvaluateExpression(e, env_.env, scratch_, &v, &error, &at, nullptr, limits)) return Result::Of(v);
    return Result::Error(std::move(error), ast::Clone(e));
  }

  // Node `e` applied to operand values (for a node whose operands depended
  // on the unknown but came out known): the node rebuilt over literals and
  // evaluated by the interpreter.
  Result Apply(const ast::Expr& e, const std::vector<Value>& operands) {
    std::vector<ExprPtr> args;
    for (const Value& v : operands) args.push_back(FromValue(v));
    ExprPtr node = WithArgs(e, std::move(args));
    Result r = Concrete(*node);
    if (r.is_error()) {
      r.expr = std::move(node);
    } else {
      // The value may view the node's strings (a record's keys, a string):
      // the node lives as long as the evaluator.
      applied_.push_back(std::move(node));
    }
    return r;
  }

  // The error of `e` evaluated in full, for a node that fails whatever the
  // unknown is (its operands are known or irrelevant to the failure).
  Result Fail(const ast::Expr& e) {
    Result r = Concrete(e);
    if (r.is_error()) return r;
    return Result::Error("internal error: expected a failure", ast::Clone(e));
  }

  Value EntityValue(const ast::EntityRef& ref) {
    return Value::Entity(scratch_->New<EntityRef>(EntityRef{ref.type, ref.id, kNoUid}));
  }

  // The unknown, as a value of its type, for checks that read only its type.
  Value Placeholder() { return env_.env.vars[static_cast<int>(env_.unknown)]; }

  // ---- the unknown's relations ------------------------------------------------

  // `unknown == target` (or !=) for a known entity.
  Result EqUnknown(const ast::EntityRef& target, bool negate) {
    if (target.type != env_.unknown_type) return Result::Of(Value::Bool(negate));
    return Result::Residual(Binary(negate ? BinaryOp::kNe : BinaryOp::kEq, Var(env_.unknown),
                                   EntityLiteral(target.type, target.id)));
  }

  // Whether the store has `e` (so that it may have descendants).
  bool Stored(const EntityRef& e) const { return env_.env.store->Find(e.type, e.id) != kNoUid; }

  // `unknown in v` for a known value.
  Result InUnknown(const Value& v) {
    if (v.type == Type::kEntity) {
      // An entity the store lacks has no descendants: only itself is in it.
      if (!Stored(*v.entity)) {
        if (v.entity->type != env_.unknown_type) return Result::Of(Value::Bool(false));
        return Result::Residual(Binary(BinaryOp::kEq, Var(env_.unknown), FromValue(v)));
      }
      return Result::Residual(Binary(BinaryOp::kIn, Var(env_.unknown), FromValue(v)));
    }
    if (v.type == Type::kSet) {
      for (uint32_t i = 0; i < v.size; ++i) {
        if (v.elements[i].type != Type::kEntity) return InFailure(v);
      }
      // Only the elements the unknown can be in: stored ones, and those of
      // its type (itself).
      ExprPtr set = std::make_unique<ast::Expr>();
      set->kind = K::kSet;
      for (uint32_t i = 0; i < v.size; ++i) {
        const EntityRef& e = *v.elements[i].entity;
        if (Stored(e) || e.type == env_.unknown_type) set->args.push_back(FromValue(v.elements[i]));
      }
      if (set->args.empty()) return Result::Of(Value::Bool(false));
      if (set->args.size() == 1) {
        ExprPtr only = TakeOperand(std::move(set), 0);
        bool stored = env_.env.store->Find(only->entity.type, only->entity.id) != kNoUid;
        return Result::Residual(Binary(stored ? BinaryOp::kIn : BinaryOp::kEq, Var(env_.unknown), std::move(only)));
      }
      return Result::Residual(Binary(BinaryOp::kIn, Var(env_.unknown), std::move(set)));
    }
    return InFailure(v);
  }

  // `unknown in v` that fails whatever the unknown is.
  Result InFailure(const Value& v) {
    ast::Expr in;
    in.kind = K::kBinary;
    in.bop = BinaryOp::kIn;
    Result r = Apply(in, {Placeholder(), v});
    if (r.is_error()) r.expr = Binary(BinaryOp::kIn, Var(env_.unknown), FromValue(v));
    return r;
  }

  // ---- nodes ------------------------------------------------------------------

  // A left-leaning chain of one kind, link by link from its innermost.
  Result Chain(const ast::Expr& e, int chain, bool bool_ctx, int depth) {
    std::vector<const ast::Expr*> links{&e};
    while (ast::ChainKind(*links.back()->args[0]) == chain && (*env_.mentions)(*links.back()->args[0])) {
      links.push_back(links.back()->args[0].get());
    }
    bool logical = chain == 1 || chain == 2;
    Result acc = Eval(*links.back()->args[0], logical, depth + 1);
    for (size_t i = links.size(); i-- > 0;) {
      acc = Link(*links[i], std::move(acc), i == 0 ? bool_ctx : logical, depth + 1);
      if (too_deep_) break;
    }
    return acc;
  }

  // An attribute access or a binary operator whose left operand gave `left`.
  Result Link(const ast::Expr& e, Result left, bool bool_ctx, int depth) {
    if (e.kind == K::kAttr) return Single(e, std::move(left));
    if (e.bop == BinaryOp::kAnd || e.bop == BinaryOp::kOr) {
      return Logical(e.bop == BinaryOp::kAnd, std::move(left),
                     [&] { return Eval(*e.args[1], true, depth + 1); }, bool_ctx, &e);
    }
    if (left.is_error()) return left;
    Result right = Eval(*e.args[1], false, depth + 1);
    if (left.is_value() && right.is_value()) return Apply(e, {left.value, right.value});
    if (left.is_value() && right.is_error()) return right;
    if (!right.is_error()) {
      if (e.bop == BinaryOp::kEq || e.bop == BinaryOp::kNe) {
        if (std::optional<Result> folded = FoldEq(e.bop == BinaryOp::kNe, left, right)) return std::move(*folded);
      }
      if (e.bop == BinaryOp::kIn) {
        if (std::optional<Result> folded = FoldIn(left, right)) return std::move(*folded);
      }
    }
    return Result::Residual(Binary(e.bop, ExprOf(std::move(left)), ExprOf(std::move(right))));
  }

  // `a == b` (or `a != b`) where one side is the unknown itself.
  std::optional<Result> FoldEq(bool negate, const Result& l, const Result& r) {
    bool lu = l.is_residual() && IsVar(*l.expr, env_.unknown);
    bool ru = r.is_residual() && IsVar(*r.expr, env_.unknown);
    if (lu && ru) return Result::Of(Value::Bool(!negate));
    const Result* other = lu ? &r : ru ? &l : nullptr;
    if (other == nullptr || !other->is_value()) return std::nullopt;
    const Value& v = other->value;
    if (v.type != Type::kEntity || v.entity->type != env_.unknown_type) return Result::Of(Value::Bool(negate));
    return std::nullopt;
  }

  // `a in b` where a side is the unknown itself.
  std::optional<Result> FoldIn(const Result& l, const Result& r) {
    bool lu = l.is_residual() && IsVar(*l.expr, env_.unknown);
    bool ru = r.is_residual() && IsVar(*r.expr, env_.unknown);
    if (lu && ru) return Result::Of(Value::Bool(true));
    if (lu && r.is_value()) return InUnknown(r.value);
    if (ru && l.is_value() && l.value.type == Type::kEntity && !Stored(*l.value.entity)) {
      // `E in unknown` for an entity the store lacks: only E itself.
      if (l.value.entity->type != env_.unknown_type) return Result::Of(Value::Bool(false));
      return Result::Residual(Binary(BinaryOp::kEq, Var(env_.unknown), FromValue(l.value)));
    }
    return std::nullopt;
  }

  // A node with one operand, already evaluated: `.a`, `has`, `like`.
  Result Single(const ast::Expr& e, Result operand) {
    if (operand.is_error()) return operand;
    if (operand.is_value()) return Apply(e, {operand.value});
    std::vector<ExprPtr> args;
    args.push_back(std::move(operand.expr));
    return Result::Residual(WithArgs(e, std::move(args)));
  }

  Result UnaryNode(const ast::Expr& e, bool bool_ctx, int depth) {
    bool is_not = e.uop == ast::UnaryOp::kNot;
    Result operand = Eval(*e.args[0], is_not, depth + 1);
    if (operand.is_error()) return operand;
    if (operand.is_value()) return Apply(e, {operand.value});
    if (!is_not) return Single(e, std::move(operand));
    const ast::Expr& x = *operand.expr;
    if (x.kind == K::kBinary && (x.bop == BinaryOp::kEq || x.bop == BinaryOp::kNe)) {
      return Result::Residual(Negate(std::move(operand.expr)));
    }
    if (bool_ctx && x.kind == K::kUnary && x.uop == ast::UnaryOp::kNot) {
      return Result::Residual(TakeOperand(std::move(operand.expr), 0));  // !!x is x where a boolean is required
    }
    return Single(e, std::move(operand));
  }

  Result If(const ast::Expr& e, bool bool_ctx, int depth) {
    Result c = Eval(*e.args[0], true, depth + 1);
    if (c.is_error()) return c;
    if (c.is_value()) {
      if (c.value.type != Type::kBool) return Fail(e);
      return Eval(*e.args[c.value.b ? 1 : 2], bool_ctx, depth + 1);
    }
    Result a = Eval(*e.args[1], bool_ctx, depth + 1);
    Result b = Eval(*e.args[2], bool_ctx, depth + 1);
    bool boolean = bool_ctx || BoolTyped(*c.expr);
    if (boolean && a.is_bool(true) && b.is_bool(false)) return c;
    if (boolean && a.is_bool(false) && b.is_bool(true)) return Result::Residual(Negate(std::move(c.expr)));
    // `if c then x else false` is `c && x`, and `if c then true else x` is
    // `c || x`, where a boolean is required (x not a known non-boolean).
    auto joinable = [](const Result& x) { return !x.is_value() || x.value.type == Type::kBool; };
    if (bool_ctx && b.is_bool(false) && joinable(a)) {
      return Logical(true, std::move(c), [&] { return std::move(a); }, true, &e);
    }
    if (bool_ctx && a.is_bool(true) && joinable(b)) {
      return Logical(false, std::move(c), [&] { return std::move(b); }, true, &e);
    }
    std::vector<ExprPtr> args;
    args.push_back(std::move(c.expr));
    args.push_back(ExprOf(std::move(a)));
    args.push_back(ExprOf(std::move(b)));
    return Result::Residual(WithArgs(e, std::move(args)));
  }

  // `x is T` and `x is T in g` (g evaluated only when x is a T).
  Result Is(const ast::Expr& e, int depth) {
    Result x = Eval(*e.args[0], false, depth + 1);
    if (x.is_error()) return x;
    bool has_group = e.args.size() > 1;
    std::optional<bool> known;
    if (x.is_value()) {
      if (x.value.type != Type::kEntity) return Apply(*WithArgs(e, {}), {x.value});
      known = x.value.entity->type == e.str;
    } else if (IsVar(*x.expr, env_.unknown)) {
      known = env_.unknown_type == e.str;
    }
    if (known.has_value()) {
      if (!*known || !has_group) return Result::Of(Value::Bool(*known));
      // `x is T in g` with x a T is `x in g`.
      ast::Expr in;
      in.kind = K::kBinary;
      in.bop = BinaryOp::kIn;
      Result g = Eval(*e.args[1], false, depth + 1);
      if (x.is_value() && g.is_value()) return Apply(in, {x.value, g.value});
      if (x.is_value() && g.is_error()) return g;
      if (!g.is_error()) {
        if (std::optional<Result> folded = FoldIn(x, g)) return std::move(*folded);
      }
      return Result::Residual(Binary(BinaryOp::kIn, ExprOf(std::move(x)), ExprOf(std::move(g))));
    }
    std::vector<ExprPtr> args;
    args.push_back(std::move(x.expr));
    if (has_group) args.push_back(ExprOf(Eval(*e.args[1], false, depth + 1)));
    return Result::Residual(WithArgs(e, std::move(args)));
  }

  // Sets, records, method and function calls: every operand, in order.
  Result Strict(const ast::Expr& e, int depth) {
    if (e.kind == K::kMethod || e.kind == K::kCall) {
      int id = FindBuiltin(e.str, e.kind == K::kMethod ? CallStyle::kMethod : CallStyle::kFunction);
      if (id < 0 || (kBuiltins[id].arity != e.args.size() && kBuiltins[id].wrong_arity == WrongArity::kParse)) {
        return Fail(e);  // fails before its operands are evaluated
      }
    }
    std::vector<Result> operands;
    bool residual = false;
    for (size_t i = 0; i < e.args.size(); ++i) {
      Result r = Eval(*e.args[i], false, depth + 1);
      if (r.is_error()) {
        if (!residual) return r;
        // Fails here unless an operand before fails first: the rest are
        // never evaluated.
        std::vector<ExprPtr> args;
        for (Result& o : operands) args.push_back(ExprOf(std::move(o)));
        args.push_back(std::move(r.expr));
        for (size_t j = i + 1; j < e.args.size(); ++j) args.push_back(ast::Clone(*e.args[j]));
        return Result::Residual(WithArgs(e, std::move(args)));
      }
      residual = residual || r.is_residual();
      operands.push_back(std::move(r));
    }
    if (!residual) {
      std::vector<Value> values;
      for (const Result& o : operands) values.push_back(o.value);
      return Apply(e, values);
    }
    if (e.kind == K::kMethod && e.str == "contains" && operands.size() == 2) {
      if (std::optional<Result> folded = FoldContains(operands[0], operands[1])) return std::move(*folded);
    }
    std::vector<ExprPtr> args;
    for (Result& o : operands) args.push_back(ExprOf(std::move(o)));
    return Result::Residual(WithArgs(e, std::move(args)));
  }

  // `S.contains(unknown)` for a known set S: only its entities of the
  // unknown's type can equal it.
  std::optional<Result> FoldContains(const Result& set, const Result& x) {
    if (!set.is_value() || set.value.type != Type::kSet || !x.is_residual() || !IsVar(*x.expr, env_.unknown)) {
      return std::nullopt;
    }
    ExprPtr kept = std::make_unique<ast::Expr>();
    kept->kind = K::kSet;
    for (uint32_t i = 0; i < set.value.size; ++i) {
      const Value& v = set.value.elements[i];
      if (v.type == Type::kEntity && v.entity->type == env_.unknown_type) kept->args.push_back(FromValue(v));
    }
    if (kept->args.empty()) return Result::Of(Value::Bool(false));
    if (kept->args.size() == 1) {
      return Result::Residual(Binary(BinaryOp::kEq, Var(env_.unknown), TakeOperand(std::move(kept), 0)));
    }
    ExprPtr call = std::make_unique<ast::Expr>();
    call->kind = K::kMethod;
    call->str = "contains";
    call->args.push_back(std::move(kept));
    call->args.push_back(Var(env_.unknown));
    return Result::Residual(std::move(call));
  }

  const PartialEnv& env_;
  Arena* scratch_;
  std::vector<ExprPtr> applied_;  // the nodes Apply evaluated, which values may view
  bool too_deep_ = false;
};

// Whether a known entity matches a scope constraint, as the interpreter decides it.
bool InStore(const EntityStore& store, const EntityRef& a, std::string_view type, std::string_view id) {
  if (a.type == type && a.id == id) return true;
  uint32_t ua = store.Find(a.type, a.id);
  uint32_t ub = store.Find(type, id);
  return ua != kNoUid && ub != kNoUid && store.HasAncestor(ua, ub);
}

bool KnownScope(const EntityStore& store, const ast::ScopeConstraint& s, const EntityRef& v,
                const ast::EntityRef& slot) {
  using SK = ast::ScopeConstraint::Kind;
  const ast::EntityRef& target = s.slot ? slot : s.entity;
  switch (s.kind) {
    case SK::kAny: return true;
    case SK::kEq: return v.type == target.type && v.id == target.id;
    case SK::kIn: return InStore(store, v, target.type, target.id);
    case SK::kIs: return v.type == s.type;
    case SK::kIsIn: return v.type == s.type && InStore(store, v, target.type, target.id);
  }
  return false;
}

bool KnownAction(const EntityStore& store, const ast::ActionConstraint& a, const EntityRef& v) {
  using AK = ast::ActionConstraint::Kind;
  switch (a.kind) {
    case AK::kAny: return true;
    case AK::kEq: return v.type == a.entities[0].type && v.id == a.entities[0].id;
    case AK::kIn:
    case AK::kInList:
      for (const ast::EntityRef& e : a.entities) {
        if (InStore(store, v, e.type, e.id)) return true;
      }
      return false;
  }
  return false;
}

}  // namespace

Mentions::Mentions(const ast::PolicySet& set, ast::Var var) {
  for (const ast::Policy& p : set.policies) {
    for (const ast::Condition& c : p.conditions) Walk(*c.body, var, &nodes_);
  }
}

ExprPtr Negate(ExprPtr e) {
  if (e->kind == K::kBool) return Bool(!e->b);
  if (e->kind == K::kBinary && (e->bop == BinaryOp::kEq || e->bop == BinaryOp::kNe)) {
    e->bop = e->bop == BinaryOp::kEq ? BinaryOp::kNe : BinaryOp::kEq;
    return e;
  }
  if (e->kind == K::kUnary && e->uop == ast::UnaryOp::kNot) return TakeOperand(std::move(e), 0);
  return Unary(ast::UnaryOp::kNot, std::move(e));
}

absl::StatusOr<PolicyResidual> EvaluatePolicy(const PolicyInstance& instance, const PartialEnv& env,
                                              Arena* scratch) {
  const ast::Policy& p = *instance.policy;
  const EntityStore& store = *env.env.store;
  PolicyResidual out;
  Evaluator ev(env, scratch);
  // Cedar: principal && action && resource && each condition, in order.
  Result acc = Result::Of(Value::Bool(true));
  bool principal_unknown = env.unknown == ast::Var::kPrincipal;
  const EntityRef& principal = *env.env.vars[0].entity;
  const EntityRef& resource = *env.env.vars[2].entity;
  if (principal_unknown) {
    acc = ev.UnknownScope(p.principal, instance.principal_slot);
  } else if (!KnownScope(store, p.principal, principal, instance.principal_slot)) {
    return out;
  }
  if (!KnownAction(store, p.action, *env.env.vars[1].entity)) return out;
  if (!principal_unknown) {
    acc = ev.UnknownScope(p.resource, instance.resource_slot);
  } else if (!KnownScope(store, p.resource, resource, instance.resource_slot)) {
    return out;
  }
  if (acc.is_bool(false)) return out;
  for (const ast::Condition& c : p.conditions) {
    acc = ev.Logical(true, std::move(acc),
                     [&] {
                       Result r = ev.Eval(*c.body, true, 0);
                       if (r.is_value() && r.value.type != Type::kBool) {
                         // A clause that is no boolean fails; `x` and `!x`
                         // of the same value fail alike in the residual.
                         ExprPtr same = ast::Clone(*c.body);
                         if (!c.when) same = Unary(ast::UnaryOp::kNot, std::move(same));
                         return Result::Error(Cat("type error: expected bool, got ", TypeName(r.value.type)),
                                              std::move(same));
                       }
                       if (c.when || r.is_error()) return r;
                       if (r.is_value()) return Result::Of(Value::Bool(!r.value.b));
                       return Result::Residual(Negate(std::move(r.expr)));
                     },
                     true, nullptr);
    if (ev.too_deep()) {
      return absl::InvalidArgumentError(Cat("policy `", instance.id, "` nests too deeply to evaluate partially"));
    }
    if (acc.is_bool(false) || acc.is_error()) break;
  }
  switch (acc.kind) {
    case Result::kValue:
      out.state = acc.value.type == Type::kBool && acc.value.b ? PolicyState::kTrue : PolicyState::kFalse;
      if (out.state == PolicyState::kTrue) out.condition = Bool(true);
      break;
    case Result::kError:
      out.state = PolicyState::kError;
      out.error = std::move(acc.error);
      out.condition = std::move(acc.expr);
      break;
    case Result::kResidual:
      out.state = PolicyState::kDepends;
      out.condition = std::move(acc.expr);
      break;
  }
  return out;
}

}  // namespace charter::internal::residual
