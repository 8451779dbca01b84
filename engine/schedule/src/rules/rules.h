// What the scheduling rules stage offers the library's own tests beside the
// public SchedulingRules (charter/schedule.h): the entities a cycle builds.
#ifndef CHARTER_RULES_RULES_H_
#define CHARTER_RULES_RULES_H_

#include <memory>

#include "charter/schedule.h"
#include "entities/entity_store.h"

namespace charter::internal::schedule {

// Every entity a cycle over `state` builds when its questions name them all
// (each cluster queue and cohort, each pending and admitted workload with
// its requests and annotations), in a store over `base` (may be null), so
// that a test can check them against stdlib/scheduling.cedarschema.
// INVARIANT: `state` passed RunCycle's validation.
std::shared_ptr<const EntityStore> BuildCycleEntities(const ::charter::schedule::State& state,
                                                      std::shared_ptr<const EntityStore> base);

}  // namespace charter::internal::schedule

#endif  // CHARTER_RULES_RULES_H_
