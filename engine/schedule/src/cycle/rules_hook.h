// The scheduling rules as the cycle sees them: what it asks at each decision
// point (may this head be admitted, may it borrow on this flavor, may it
// preempt this workload, may this workload be a victim) and what it is told.
// The cycle knows only this interface; the rules stage (rules/) implements it
// over the VM (charter::schedule::SchedulingRules). Without rules the cycle
// holds no hook and asks nothing.
#ifndef CHARTER_CYCLE_RULES_HOOK_H_
#define CHARTER_CYCLE_RULES_HOOK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "charter/schedule.h"
#include "cycle/snapshot.h"

namespace charter::internal::schedule {

// A rule that refused the last decision: satisfied, or erring (an erring
// rule refuses too). Views into the rules, valid until the next question.
struct Refusal {
  std::string_view rule;   // its @id
  std::string_view error;  // empty when it was satisfied
};

// A head's request for one flavor-resource that would borrow.
struct BorrowFacts {
  int fr = 0;              // the flavor-resource (Tree::fr)
  int64_t requested = 0;   // what the workload asks of it in all
  int64_t usage = 0;       // its queue's usage now
  int64_t nominal = 0;     // its queue's nominal quota
  int64_t borrowed = 0;    // what the queue would use above its nominal quota
  int64_t borrowing_limit = INT64_MIN;  // tree.h's kUnset when none
  int level = 0;           // the borrowing level (1: from its cohort, ...)
  // With fair sharing: the queue's weighted share with the request added
  // (Kueue's status.fairSharing.weightedShare), and the mean of the weighted
  // shares of the queues of its cohort tree.
  bool fair_sharing = false;
  int64_t share = 0;
  int64_t average_share = 0;
};

// A head about to be admitted, or to issue preemptions to be admitted.
struct AdmitFacts {
  bool borrowing = false;
  bool preempting = false;
  std::vector<int> flavors;  // the flavors assigned, each once
};

// One cycle's questions. Not thread-safe: a cycle runs on one thread.
class CycleRules {
 public:
  virtual ~CycleRules() = default;
  // Each says whether the action is allowed; refusals() then lists the
  // rules that refused it.
  virtual bool MayAdmit(const WorkloadInfo& head, const AdmitFacts& facts) = 0;
  virtual bool MayBorrow(const WorkloadInfo& head, const BorrowFacts& facts) = 0;
  virtual bool MayPreempt(const WorkloadInfo& preemptor, int admitted,
                          ::charter::schedule::PreemptionReason reason) = 0;
  virtual bool MayEvict(int admitted) = 0;
  virtual const std::vector<Refusal>& refusals() const = 0;
};

// A compiled rule set: immutable, shared by the cycles that use it.
class RuleSet {
 public:
  virtual ~RuleSet() = default;
  // A cycle's questions over `snapshot` (which outlives them).
  virtual std::unique_ptr<CycleRules> Begin(const Snapshot& snapshot) const = 0;
};

// What a cycle's searches report to: the cycle's questions and the notes of
// the entry being decided (the refusals that changed its outcome).
struct RuleSink {
  CycleRules* rules = nullptr;  // null: no rules, nothing is asked
  std::vector<::charter::schedule::RuleNote>* notes = nullptr;
  // Adds a note for each of the last refusals (once per rule, action and
  // subject).
  void Note(std::string_view action, const std::string& subject) const {
    if (notes == nullptr) return;
    for (const Refusal& r : rules->refusals()) {
      bool seen = false;
      for (const ::charter::schedule::RuleNote& n : *notes) {
        seen = seen || (n.rule == r.rule && n.action == action && n.subject == subject);
      }
      if (!seen) notes->push_back({std::string(r.rule), std::string(action), subject, std::string(r.error)});
    }
  }
};

}  // namespace charter::internal::schedule

namespace charter::schedule {

// How the library reaches the rule set behind a SchedulingRules.
struct RulesAccess {
  static const internal::schedule::RuleSet* Get(const SchedulingRules& rules) { return rules.impl_.get(); }
  static SchedulingRules Make(std::shared_ptr<const internal::schedule::RuleSet> impl, std::vector<std::string> ids,
                              std::vector<std::string> ignored_permits) {
    SchedulingRules rules;
    rules.impl_ = std::move(impl);
    rules.rule_ids_ = std::move(ids);
    rules.ignored_permits_ = std::move(ignored_permits);
    return rules;
  }
};

}  // namespace charter::schedule

#endif  // CHARTER_CYCLE_RULES_HOOK_H_
