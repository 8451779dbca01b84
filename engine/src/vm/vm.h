// The evaluator: a register VM that runs one policy's bytecode against a
// request and an entity store, and says whether the policy is satisfied.
#ifndef CHARTER_VM_VM_H_
#define CHARTER_VM_VM_H_

#include <string>

#include "common/arena.h"
#include "entities/entity_store.h"
#include "vm/program.h"
#include "value/value.h"

namespace charter::internal {

// The request as the VM sees it: the four variables and the store.
struct Environment {
  Value vars[4];  // principal, action, resource, context
  const EntityStore* store = nullptr;
};

enum class Outcome : uint8_t { kFalse, kTrue, kError };

// Runs `policy` (from `program`, already verified). Total: the code only
// jumps forward, so it ends after at most policy.size instructions.
// Values made during evaluation (sets, records) go to `scratch`. On kError
// the message is in *error (cleared first; its capacity is reused, so a
// steady stream of erring requests allocates nothing once it has grown).
Outcome Run(const Program& program, const PolicyCode& policy, const Environment& env,
            Arena* scratch, std::string* error);

// Cedar's `like`: `*` matches any sequence of characters; anchored at both ends.
bool MatchPattern(std::string_view s, const std::vector<PatternPart>& pattern);

// Which dispatch the VM was built with: "computed-goto" or "switch".
const char* DispatchKind();

}  // namespace charter::internal

#endif  // CHARTER_VM_VM_H_
