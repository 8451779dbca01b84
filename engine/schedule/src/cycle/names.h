// Kueue's spelling of a preemption policy and of a flavor fungibility
// policy, written once for every writer of a configuration: the .charter
// text (language/print.cc), the state JSON (state_json/write.cc) and the
// Kueue export (kueue/export.cc).
#ifndef CHARTER_CYCLE_NAMES_H_
#define CHARTER_CYCLE_NAMES_H_

#include <string_view>

#include "charter/schedule.h"

namespace charter::schedule {

inline std::string_view PolicyName(PreemptionPolicy p) {
  switch (p) {
    case PreemptionPolicy::kNever: return "Never";
    case PreemptionPolicy::kLowerPriority: return "LowerPriority";
    case PreemptionPolicy::kLowerOrNewerEqualPriority: return "LowerOrNewerEqualPriority";
    case PreemptionPolicy::kAny: return "Any";
  }
  return "Never";
}

inline std::string_view FungibilityName(FungibilityPolicy p) {
  return p == FungibilityPolicy::kTryNextFlavor ? "TryNextFlavor" : "MayStopSearch";
}

}  // namespace charter::schedule

#endif  // CHARTER_CYCLE_NAMES_H_
