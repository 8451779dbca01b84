// Preemption (Kueue's pkg/scheduler/preemption/): which admitted workloads a
// workload that does not fit may evict so that it fits. Without fair sharing
// the classical search (preemption.go, classical/): candidates of the own
// queue and of queues in the cohort tree that borrow, in candidate order,
// taken until the workload fits, then given back from the last where it
// still fits. With fair sharing the search of fairsharing/: candidates taken
// from the queue of the largest dominant resource share, under the cycle's
// fair-sharing strategies.
#ifndef CHARTER_CYCLE_PREEMPTION_H_
#define CHARTER_CYCLE_PREEMPTION_H_

#include <string>
#include <vector>

#include "charter/schedule.h"
#include "cycle/rules_hook.h"
#include "cycle/snapshot.h"
#include "cycle/tree.h"

namespace charter::internal::schedule {

// An admitted workload to evict, and why.
struct PreemptionTarget {
  int admitted;  // index into Snapshot::admitted()
  ::charter::schedule::PreemptionReason reason;
  std::string why;  // the numbers behind the reason, for the message
};

// A workload looking for room.
struct PreemptionRequest {
  const WorkloadInfo* workload;
  std::vector<int> frs;         // flavor-resources that need preemption
  std::vector<FlavorResourceAmount> usage;  // what the workload would use
  bool explain = false;         // fill PreemptionTarget::why (not for the flavor assigner's oracle)
};

class Preemptor {
 public:
  Preemptor(Snapshot& snapshot, const ::charter::schedule::CycleOptions& options)
      : snapshot_(snapshot), tree_(snapshot.tree()), options_(options) {}

  // The workloads to evict so that the request fits, or none when no set of
  // candidates makes room. The snapshot is as it was when this returns.
  std::vector<PreemptionTarget> FindTargets(const PreemptionRequest& request);

  // The scheduling rules to ask about each candidate the search would take
  // (the sink outlives the preemptor; its `rules` null: none).
  void set_rules(const RuleSink* sink) { rules_ = sink; }

  // Whether `policy` lets `preemptor` take `candidate` (Kueue's
  // satisfiesPreemptionPolicy): by priority, and for
  // LowerOrNewerEqualPriority by queue time.
  bool SatisfiesPolicy(const WorkloadInfo& preemptor, const WorkloadInfo& candidate,
                       ::charter::schedule::PreemptionPolicy policy) const;

 private:
  // Whether the rules let `preemptor` take admitted workload `victim` (for
  // `reason`): it may be a victim at all, and this preemptor may preempt
  // it. A candidate they refuse is passed over where the search would take
  // it. True without rules.
  bool RulesAllow(const WorkloadInfo& preemptor, int victim, ::charter::schedule::PreemptionReason reason) {
    return rules_ == nullptr || rules_->rules == nullptr || AskRules(preemptor, victim, reason);
  }
  bool AskRules(const WorkloadInfo& preemptor, int victim, ::charter::schedule::PreemptionReason reason);
  std::vector<PreemptionTarget> Classical(const PreemptionRequest& request);
  std::vector<PreemptionTarget> FairSharing(const PreemptionRequest& request);
  bool UsesResources(const WorkloadInfo& candidate, const std::vector<int>& frs) const;
  bool CandidateBefore(int a, int b, int preemptor_cluster_queue) const;
  bool WorkloadFits(const PreemptionRequest& request, bool allow_borrowing) const;
  std::vector<PreemptionTarget> FillBack(const PreemptionRequest& request, std::vector<PreemptionTarget> targets,
                                         bool allow_borrowing);
  // "`team-b` uses 6 cpu in flavor default of its nominal 4": the victim's
  // queue on a flavor-resource the preemptor needs and it borrows.
  std::string BorrowText(const PreemptionRequest& request, int victim) const;
  std::string ShareText(const Drs& drs) const;

  Snapshot& snapshot_;
  Tree& tree_;
  const ::charter::schedule::CycleOptions& options_;
  std::vector<int> rank_;  // admitted index -> candidate rank in the current fair-sharing search
  const RuleSink* rules_ = nullptr;
};

}  // namespace charter::internal::schedule

#endif  // CHARTER_CYCLE_PREEMPTION_H_
