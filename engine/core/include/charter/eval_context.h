// EvalContext: reusable memory for deciding requests, one per thread. After
// a few calls have grown it, Engine::Authorize with a context allocates
// nothing: the decision is read from the context, as views that stay valid
// until the next call with it (the context keeps the engine's program, and
// the entities of its last call, alive).
//
//   charter::EvalContext context;
//   for (const charter::Request& request : requests) {
//     engine.Authorize(request, entities, &context);
//     if (context.allowed()) ...;
//     for (std::string_view id : context.reasons()) ...;
//   }
//
// A context may be used with any Engine, one call at a time.
#ifndef CHARTER_EVAL_CONTEXT_H_
#define CHARTER_EVAL_CONTEXT_H_

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "charter/decision.h"
#include "charter/export.h"

namespace charter {

namespace internal {
class Unwrap;  // unwrap/unwrap.h
struct EvalScratch;
}  // namespace internal

struct PolicyErrorView {
  std::string_view policy_id;
  std::string_view message;
  Span span;  // as in PolicyError
};

class CHARTER_API EvalContext {
 public:
  EvalContext();
  ~EvalContext();
  EvalContext(EvalContext&&) noexcept;
  EvalContext& operator=(EvalContext&&) noexcept;

  // The last decision made with this context, as in Decision.
  bool allowed() const;
  std::span<const std::string_view> reasons() const;
  std::span<const PolicyErrorView> errors() const;
  // Every policy the last decision found satisfied, whatever decided it:
  // its permits and its forbids, each in policy-set order. reasons() is
  // one of the two (the forbids when any is satisfied, else the permits);
  // a server that does not enforce some forbids (a rollout's "warn" or
  // "dryrun") reads both to know what the others alone decide.
  std::span<const std::string_view> satisfied_permits() const;
  std::span<const std::string_view> satisfied_forbids() const;
  // The same as an owning Decision (this allocates).
  Decision ToDecision() const;
  // How many policies the last call ran: those the scope index could not
  // rule out.
  size_t policies_evaluated() const;

 private:
  friend class Engine;
  friend class internal::Unwrap;
  std::unique_ptr<internal::EvalScratch> scratch_;
};

}  // namespace charter

#endif  // CHARTER_EVAL_CONTEXT_H_
