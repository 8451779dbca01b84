// An entry of one scheduling cycle (Kueue's scheduler entry): a queue's head
// with the flavors assigned to it, the workloads it would preempt, and what
// the fair-sharing tournament remembers about it between rounds.
#ifndef CHARTER_CYCLE_ENTRY_H_
#define CHARTER_CYCLE_ENTRY_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "cycle/flavor_assigner.h"
#include "cycle/preemption.h"
#include "cycle/tree.h"

namespace charter::internal::schedule {

// The fair-sharing tournament's view of an entry at one cohort of its path:
// the share of the cohort's child on the path with the entry's usage added,
// and whether that child then borrows on the flavor-resources it asks for.
struct FairSharingLevel {
  int cohort;
  Drs drs;
  bool borrowing_on_request;
};

struct Entry {
  int pending;  // index into Snapshot::pending()
  Assignment assignment;
  std::vector<PreemptionTarget> targets;
  // Scheduling rules: whether one refused its admission, and every refusal
  // that changed how it was decided (rules_hook.h).
  bool denied = false;
  std::vector<::charter::schedule::RuleNote> notes;
  // Tournament levels, valid while the nodes below the root on the entry's
  // path keep these usage versions (they depend on nothing else).
  std::vector<FairSharingLevel> fair_sharing_levels;
  std::vector<std::pair<int, uint64_t>> fair_sharing_versions;
};

}  // namespace charter::internal::schedule

#endif  // CHARTER_CYCLE_ENTRY_H_
