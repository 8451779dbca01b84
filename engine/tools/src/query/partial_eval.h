// Partial evaluation of a policy over the AST, with the principal or the
// resource unknown (an entity of a known type) and everything else known.
// What does not mention the unknown is evaluated by the reference
// interpreter (interp/), so it means what full evaluation means; what does
// is rebuilt as a residual expression, folded where the unknown's type
// decides (`resource is T`, `resource == User::"x"`) and simplified by rules
// that keep Cedar's semantics, errors included:
//
//   - an operand that fails on every entity fails the node, unless an
//     operand before it depends on the unknown: then the node stays, with an
//     expression in that place that fails alike, so the residual fails
//     exactly where evaluation fails and with the same message;
//   - `true && x` is `x`, `false || x` is `x`, `!(a == b)` is `a != b`,
//     and `if c then true else false` is `c` where a boolean is required
//     anyway (a condition, an operand of `&&`, `||`, `!`, `if`), or x is
//     known to be boolean;
//   - `x && false` is false, `x || true` true, only when x can neither fail
//     nor be a non-boolean.
//
// The result for a policy is its state (never satisfied, satisfied on every
// entity, failing on every entity, or depending on the unknown) and its
// residual condition: scope and clauses as one conjunction, `unless {c}` as
// `!c`.
#ifndef CHARTER_QUERY_PARTIAL_EVAL_H_
#define CHARTER_QUERY_PARTIAL_EVAL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "ast/ast.h"
#include "common/arena.h"
#include "entities/entity_store.h"
#include "interp/interp.h"
#include "policy_set/policy_set.h"
#include "query/residual_expr.h"

namespace charter::internal::residual {

// The nodes of a policy set's conditions that mention a variable, found
// once for the set.
class Mentions {
 public:
  // Every node of every condition of `set` that mentions `var`.
  Mentions(const ast::PolicySet& set, ast::Var var);
  bool operator()(const ast::Expr& e) const { return nodes_.contains(&e); }

 private:
  absl::flat_hash_set<const ast::Expr*> nodes_;
};

// The request with one side unknown, as partial evaluation sees it.
struct PartialEnv {
  // The interpreter's environment: the known variables, and for the
  // unknown an entity of its type that no expression evaluated by the
  // interpreter reads (those mention no unknown).
  interp::Env env;
  ast::Var unknown = ast::Var::kResource;
  std::string_view unknown_type;
  const Mentions* mentions = nullptr;
  int max_depth = 2000;
};

enum class PolicyState : uint8_t {
  kFalse,    // never satisfied
  kTrue,     // satisfied on every entity of the type
  kError,    // fails on every entity of the type
  kDepends,  // `condition` decides
};

struct PolicyResidual {
  PolicyState state = PolicyState::kFalse;
  ExprPtr condition;  // kDepends: the residual; kTrue: `true`; kError: an expression that fails alike
  std::string error;  // kError: the message
};

// Partially evaluates one policy. Values made on the way go to `scratch`.
// Fails (InvalidArgument) only when the policy nests deeper than
// env.max_depth.
absl::StatusOr<PolicyResidual> EvaluatePolicy(const PolicyInstance& policy, const PartialEnv& env,
                                              Arena* scratch);

// `!e` simplified: `!(a == b)` is `a != b` and the reverse, `!true` false.
ExprPtr Negate(ExprPtr e);

}  // namespace charter::internal::residual

#endif  // CHARTER_QUERY_PARTIAL_EVAL_H_
