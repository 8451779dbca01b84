// The evaluator: a register VM that runs one policy's bytecode against a
// request and an entity store, and says whether the policy is satisfied.
#ifndef CHARTER_VM_VM_H_
#define CHARTER_VM_VM_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "charter/diagnostics.h"
#include "common/arena.h"
#include "entities/entity_store.h"
#include "vm/program.h"
#include "value/value.h"
#include "value/walk.h"

namespace charter::internal {

// A program's constants resolved against one entity store, so that reading
// an attribute of a stored entity compares no strings and finding an entity
// constant hashes none: for each string constant, the store's interned copy
// of that key (EntityStore::InternedKey) if any record of the store has it;
// for each entity constant, its uid in the store. Built once for a (program,
// store) pair and kept by an evaluation context; Prepare binds on the second
// request with the same pair, so a context used once (Engine::Authorize
// without one) pays nothing for it.
class StoreBinding {
 public:
  // The binding for this pair, or nullptr while it is not worth building.
  // Keeps both alive while it is bound to them, so that neither address can
  // be reused by another program or store meanwhile.
  const StoreBinding* Prepare(const std::shared_ptr<const Program>& program,
                              const std::shared_ptr<const EntityStore>& store);

  struct Key {
    std::string_view interned;  // the store's copy of the key
    bool present;               // whether any record of the store has the key
  };
  const Key& key(uint32_t string_index) const { return keys_[string_index]; }
  uint32_t entity_uid(uint32_t entity_index) const { return entity_uids_[entity_index]; }

 private:
  std::shared_ptr<const Program> program_;
  std::shared_ptr<const EntityStore> store_;
  bool bound_ = false;
  uint64_t key_generation_ = 0;  // the store's when bound
  std::vector<Key> keys_;
  std::vector<uint32_t> entity_uids_;
};

// The request as the VM sees it: the four variables and the store.
struct Environment {
  Value vars[4];  // principal, action, resource, context
  const EntityStore* store = nullptr;
  const StoreBinding* binding = nullptr;  // for `store`, or nullptr
  // The steps left for the decision's walks over values, shared by its
  // policies (EvalLimits::max_decision_work for a decision). Required.
  WalkBudget* work = nullptr;
};

enum class Outcome : uint8_t { kFalse, kTrue, kError };

// Why and where a run erred.
struct EvalError {
  std::string message;
  uint32_t pc = 0;  // the instruction that failed
};

// Runs `policy` (from `program`, already verified). Total: the code only
// jumps forward, so it ends after at most policy.size instructions.
// Values made during evaluation (sets, records) go to `scratch`. On kError
// *error says why and where (its message is cleared first and its capacity
// reused, so a steady stream of erring requests allocates nothing once it
// has grown); otherwise *error is left as it was but for the message.
Outcome Run(const Program& program, const PolicyCode& policy, const Environment& env,
            Arena* scratch, EvalError* error);

// The source span of the expression the instruction at `pc` of `policy`
// computes, from the bundle's pc-to-span table; empty when it has none.
Span SpanAt(const PolicyCode& policy, uint32_t pc);

// Cedar's `like`: `*` matches any sequence of characters; anchored at both ends.
bool MatchPattern(std::string_view s, const std::vector<PatternPart>& pattern);

// Which dispatch the VM was built with: "computed-goto" or "switch".
const char* DispatchKind();

}  // namespace charter::internal

#endif  // CHARTER_VM_VM_H_
