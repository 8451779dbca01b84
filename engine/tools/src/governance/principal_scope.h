// Which principals can satisfy a policy, on a request whose action, resource
// and context are known and whose principal is not: the policy's verified
// bytecode run with the principal unknown (a partial evaluation).
//
// The run follows the one path that can return true. Instructions whose
// operands are known (constants, the action, the resource, the context, and
// what the store gives for them) are computed as the VM computes them; a
// result that depends on the principal is unknown. A branch on a known value
// goes where the VM would go; a branch on an unknown value must lead to
// `return false` (a conjunct of the condition, or a scope test), and then the
// run goes on past it knowing the test held. On that path:
//   - `principal in E`, `principal == E` or `principal is T` that must hold
//     (the branch past it returns false otherwise) bounds the principals: an
//     anchor;
//   - `return false`, or an error (an attribute a known entity lacks), means
//     no principal satisfies the policy;
//   - anything the run cannot follow (a branch on an unknown value that does
//     not lead to `return false`, an opcode it does not model) ends the run,
//     and the anchors found so far still hold, since every path that returns
//     true went through them.
// So every principal that satisfies the policy is within each anchor: using
// one of them to pick the principals to decide loses no answer, which the
// review's brute-force test checks on generated stores.
#ifndef CHARTER_GOVERNANCE_PRINCIPAL_SCOPE_H_
#define CHARTER_GOVERNANCE_PRINCIPAL_SCOPE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/arena.h"
#include "entities/entity_store.h"
#include "value/value.h"
#include "vm/program.h"

namespace charter::internal {

// A constraint every satisfying principal meets.
struct PrincipalAnchor {
  enum Kind : uint8_t {
    kIn,  // principal in one of `entities` (itself or a descendant)
    kEq,  // principal == one of `entities`
    kIs,  // principal is of type `type`
  };
  Kind kind = kIn;
  std::vector<EntityRef> entities;  // kIn, kEq (views into the store, the request or the program)
  std::string_view type;            // kIs
  uint32_t pc = 0;                  // the test's instruction
};

struct PrincipalScope {
  bool never = false;  // no principal satisfies the policy
  std::vector<PrincipalAnchor> anchors;
};

// `vars` are the request's action, resource and context at indices 1..3 (the
// principal's slot is not read). `scratch` holds the sets the run builds; the
// anchors' views may point into it, so keep it until they are used.
PrincipalScope AnalyzePrincipal(const Program& program, const PolicyCode& policy, const Value vars[4],
                                const EntityStore& store, Arena* scratch);

}  // namespace charter::internal

#endif  // CHARTER_GOVERNANCE_PRINCIPAL_SCOPE_H_
