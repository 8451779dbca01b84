// The reference interpreter: evaluates the AST of a policy set directly, one
// node at a time, with Cedar's semantics. It is the yardstick the VM is
// checked against (tests/core/interp/, `make interp-differential`) and the
// engine behind charter::Explain, whose tracing hook sees every value.
//
// Small and plain on purpose: no lowering, no indexing, no caching. It shares
// only the semantic primitives with the VM: values (value/), builtins
// (builtins/) and the entity store (entities/).
#ifndef CHARTER_INTERP_INTERP_H_
#define CHARTER_INTERP_INTERP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ast/ast.h"
#include "charter/decision.h"
#include "charter/entities.h"
#include "charter/request.h"
#include "common/arena.h"
#include "entities/entity_store.h"
#include "policy_set/policy_set.h"
#include "value/value.h"

namespace charter::internal::interp {

// Sees every value the interpreter computes, after the node's children.
class Tracer {
 public:
  virtual ~Tracer() = default;
  virtual void OnValue(const ast::Expr& e, const Value& v) = 0;
};

// The request as the interpreter sees it.
struct Env {
  Value vars[4];  // principal, action, resource, context
  const EntityStore* store = nullptr;
};

enum class Outcome : uint8_t { kFalse, kTrue, kError };

// Which part of a policy decided it.
enum class Part : uint8_t { kPrincipal, kAction, kResource, kCondition, kNone };

struct PolicyResult {
  Outcome outcome = Outcome::kFalse;
  // kFalse: the scope constraint that did not match, or kCondition; kError:
  // kCondition; kTrue: kNone.
  Part part = Part::kNone;
  size_t condition = 0;                 // with Part::kCondition: its index
  std::string error;                    // with kError
  const ast::Expr* error_at = nullptr;  // with kError: the innermost node that failed
  // With kError: the span the VM reports, that of the expression its failing
  // instruction computes (error_at's, or an operand's that is not a boolean).
  Span error_span;
};

struct Limits {
  // Nesting of the evaluation (chains of one kind count once, as in the
  // parser); deeper trees are an evaluation error, never a stack overflow.
  int max_depth = 2000;
};

// Evaluates one policy. Values made on the way go to `scratch`.
PolicyResult EvaluatePolicy(const PolicyInstance& policy, const Env& env, Arena* scratch,
                            Tracer* tracer = nullptr, const Limits& limits = {});

// Evaluates one expression on its own (not as a policy condition: any type
// of value is a result). False with *error and *error_at set when it fails.
bool EvaluateExpression(const ast::Expr& e, const Env& env, Arena* scratch, Value* out,
                        std::string* error, const ast::Expr** error_at, Tracer* tracer = nullptr,
                        const Limits& limits = {});

// The environment of a request against a store. `refs` receives the request's
// entity references (the environment points at them).
Env MakeEnv(const Request& request, const Entities& entities, EntityRef refs[3]);

// Cedar's authorizer over every instance of a set that ReadLinkedPolicySet
// (policy_set/) read.
Decision Authorize(const PolicySet& set, const Request& request, const Entities& entities);

}  // namespace charter::internal::interp

#endif  // CHARTER_INTERP_INTERP_H_
