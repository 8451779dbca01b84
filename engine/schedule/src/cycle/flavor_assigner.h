// Flavor assignment (Kueue's pkg/scheduler/flavorassigner/): for each pod
// set of a workload and each resource group of its queue, the flavor its
// requests take, tried in the group's order: the first where they fit, or
// the best by the queue's flavor fungibility when they fit only by
// borrowing or preemption. Whether preemption could make room is asked of
// the real preemption search on the one flavor-resource (the "oracle").
#ifndef CHARTER_CYCLE_FLAVOR_ASSIGNER_H_
#define CHARTER_CYCLE_FLAVOR_ASSIGNER_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cycle/preemption.h"
#include "cycle/rules_hook.h"
#include "cycle/snapshot.h"
#include "cycle/tree.h"

namespace charter::internal::schedule {

// How a request fits in one flavor, worst first (Kueue's preemption mode
// in its granular form).
enum class FlavorFit : uint8_t { kNoFit, kNoCandidates, kPreempt, kReclaim, kFit };

// An assignment's representative mode, worst first.
enum class AssignmentMode : uint8_t { kNoFit, kPreempt, kDeferredFit, kFit };

struct Assignment {
  AssignmentMode mode = AssignmentMode::kNoFit;
  int borrowing = 0;  // the borrowing level: 0 within nominal quota, more the higher up it borrows
  // Per pod set, per request: the flavor (-1: none) and its mode.
  std::vector<std::vector<int>> flavors;
  std::vector<std::vector<AssignmentMode>> modes;
  // Per pod set: total requests (count × per pod), with the `pods` request
  // when the queue covers it: {resource, amount}.
  std::vector<std::vector<std::pair<int, int64_t>>> totals;
  // Per pod set: the index in `totals` of the `pods` request the queue
  // added (the pod set did not request `pods` itself), or -1.
  std::vector<int> added_pods;
  // Per pod set, per request: where the flavor search stopped (the index
  // in the resource group, -1 after the last flavor or when nothing was
  // assigned); Kueue's LastTriedFlavorIdx.
  std::vector<std::vector<int>> tried;
  std::vector<FlavorResourceAmount> usage;
  bool exceeds_max = false;
  std::string reason;  // why it did not fit, for the message
};

class FlavorAssigner {
 public:
  FlavorAssigner(Snapshot& snapshot, Preemptor& preemptor)
      : snapshot_(snapshot), tree_(snapshot.tree()), preemptor_(preemptor) {}

  // `pin` (may be null): per pod set and request, the only flavor to try
  // (Kueue's NominationMapping when an entry is assigned again). `scan`
  // (may be null): where the previous search stopped; the search starts
  // after it.
  Assignment Assign(const WorkloadInfo& workload, const std::vector<std::vector<int>>* pin,
                    const std::vector<std::vector<int>>* scan);

  // The scheduling rules to ask whether a request may borrow (the sink
  // outlives the assigner; its `rules` null: none).
  void set_rules(const RuleSink* sink) { rules_ = sink; }

 private:
  // With rules: a flavor-resource that fits only by borrowing (`*borrow` >
  // 0) is asked about; when a rule refuses, it does not fit (kNoFit, with
  // the reason in *assignment).
  FlavorFit CheckBorrow(const WorkloadInfo& workload, int fr, int64_t val, FlavorFit fit, int* borrow,
                        Assignment* assignment);
  // How `request` more of flavor-resource `fr` fits on top of `assumed`
  // (what the workload's earlier requests already take of it); `borrow`
  // gets the borrowing level, `assignment->reason` the first reason it
  // does not fit.
  FlavorFit FitsResourceQuota(const WorkloadInfo& workload, int fr, int64_t assumed, int64_t request, int* borrow,
                              Assignment* assignment);

  Snapshot& snapshot_;
  Tree& tree_;
  Preemptor& preemptor_;
  const RuleSink* rules_ = nullptr;
};

}  // namespace charter::internal::schedule

#endif  // CHARTER_CYCLE_FLAVOR_ASSIGNER_H_
