// The authorizer: Cedar's decision over a program for one request. The
// scope index rules policies out, the VM runs the rest, and the outcomes
// combine by Cedar's rules (deny by default; a satisfied forbid denies;
// otherwise a satisfied permit allows; a policy that errs is skipped and
// reported with the span of the expression that failed). Kept apart from
// the evaluator (vm.h), as Cedar keeps its authorizer apart from its
// evaluator; charter::Engine (api/engine.cc) is its public face.
#ifndef CHARTER_VM_AUTHORIZER_H_
#define CHARTER_VM_AUTHORIZER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "charter/eval_context.h"
#include "common/arena.h"
#include "entities/entity_store.h"
#include "vm/program.h"
#include "vm/scope_index.h"
#include "vm/vm.h"

namespace charter::internal {

// What an EvalContext keeps between calls: the last decision, as views into
// the program and into itself, and the memory the next call reuses.
struct EvalScratch {
  EntityRef refs[3];
  // The program the views below point into, kept alive with the context
  // (an EngineHandle may drop the engine meanwhile).
  std::shared_ptr<const Program> program;
  // The program's constants resolved against the last entity store (it
  // keeps both alive).
  StoreBinding binding;
  Arena arena;
  ScopeScratch index;
  std::vector<uint32_t> candidates;
  std::vector<std::string_view> permits, forbids;
  std::vector<EvalError> failures;  // grows; error i's message is failures[i].message
  std::vector<PolicyErrorView> errors;
  bool allowed = false;
  size_t evaluated = 0;
};

// A request as the authorizer reads it: views of the request stage's
// RequestData, which the VM stage does not see.
struct RequestView {
  const EntityRef* entities[3];  // principal, action, resource
  const uint64_t* key_hashes;    // EntityKeyHash of each
  const Value* context;
};

// Decides `request` against `store` with `program`, writing the decision
// into *s; returns whether the request is allowed. Once *s has grown to the
// policy set and the requests, a call allocates nothing.
bool Authorize(const std::shared_ptr<const Program>& program, const RequestView& request,
               const std::shared_ptr<const EntityStore>& store, EvalScratch* s);

}  // namespace charter::internal

#endif  // CHARTER_VM_AUTHORIZER_H_
