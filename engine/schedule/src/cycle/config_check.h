// Kueue's rules for a scheduling configuration, checked over the typed model
// (charter/schedule.h) and written once: the state JSON loader
// (state_json/load.cc), the .charter declarations (language/declare.cc) and
// the section reader (section/bundle_table.cc) call them, and each points a fault at its own text. A check returns the first
// fault it finds, with its message and the place in the object it concerns
// (a resource group, a flavor, a quota and its field), so that a front end
// can find the position of that place in what it read.
//
//   if (std::optional<ConfigFault> f = CheckPreemption(queue.preemption, "cluster queue `a`"))
//     report(f->kind, PositionOf(f->field), f->message);
#ifndef CHARTER_CYCLE_CONFIG_CHECK_H_
#define CHARTER_CYCLE_CONFIG_CHECK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "charter/schedule.h"

namespace charter::internal::schedule {

enum class FaultKind : uint8_t {
  kDuplicate,            // a name, resource or flavor given twice
  kUnknown,              // an index that names nothing (a State built by hand, a bundle)
  kCycle,                // a cycle of cohorts
  kLendingAboveNominal,  // a lending limit above its nominal quota
  kRefused,              // anything else Kueue's API validation refuses
  kQuantity,             // a negative quantity or weight, or quantities that overflow together
};

// The part of an object a fault concerns. `group`, `flavor`, `quota` and
// `item` of ConfigFault index into the object's resource groups, a group's
// flavors, a flavor's quotas and a group's covered resources.
enum class FaultField : uint8_t {
  kObject,           // the object as a whole
  kName,             // its name
  kParent,           // a cohort's parent, a cluster queue's cohort
  kGroup,            // a resource group
  kCoveredResource,  // a covered resource of a group (`item`)
  kFlavor,           // a flavor of a group (its name)
  kQuotas,           // a flavor's quotas as a whole
  kQuotaResource,    // the resource a quota is for
  kQuota,            // a quota's value as a whole
  kNominal,
  kBorrowingLimit,
  kLendingLimit,
  kPreemption,       // a cluster queue's preemption settings
  kPreference,       // the `preference` of its flavor fungibility
  kFairWeight,
  kStrategies,       // the fair-sharing preemption strategies
  kClusterQueue,     // the cluster queue a local queue feeds
};

struct ConfigFault {
  FaultKind kind = FaultKind::kRefused;
  FaultField field = FaultField::kObject;
  int group = -1;
  int flavor = -1;
  int quota = -1;
  int item = -1;
  std::string message;
};

// Per resource, the nominal quotas seen so far in all: the quota tree adds
// them up exactly, so they must fit in 64 bits together.
using QuotaTotals = std::vector<int64_t>;

// The resource groups of a cohort (`is_queue` false) or a cluster queue,
// named by `what` ("cluster queue `a`"). `has_parent`: a cluster queue with
// a cohort, or a cohort with a parent (Kueue allows borrowing and lending
// limits only there). `totals` accumulates the nominal quotas, across
// objects.
std::optional<ConfigFault> CheckResourceGroups(const ::charter::schedule::State& state,
                                               const std::vector<::charter::schedule::ResourceGroup>& groups,
                                               std::string_view what, bool is_queue, bool has_parent,
                                               QuotaTotals* totals);

std::optional<ConfigFault> CheckPreemption(const ::charter::schedule::Preemption& preemption, std::string_view what);
std::optional<ConfigFault> CheckFungibility(const ::charter::schedule::FlavorFungibility& fungibility,
                                            std::string_view what);
std::optional<ConfigFault> CheckFairWeight(double weight, std::string_view what);
std::optional<ConfigFault> CheckStrategies(const std::vector<::charter::schedule::FairSharingStrategy>& strategies);
// A local queue's namespace and name (Kubernetes names hold no `/`).
std::optional<ConfigFault> CheckLocalQueueName(const ::charter::schedule::LocalQueue& local_queue);

// The cohort in a cycle of parents, as "a -> b -> a", or empty.
std::string CohortCyclePath(const std::vector<::charter::schedule::Cohort>& cohorts, int* at);

// A fault of a whole configuration, with the object it is in.
struct PlacedFault {
  enum class Object : uint8_t { kEngine, kFlavor, kPriorityClass, kCohort, kClusterQueue, kLocalQueue };
  Object object = Object::kEngine;
  int index = -1;
  ConfigFault fault;
};

// Every rule above over a whole configuration (the State's tables, not its
// workloads), and what the tables must hold for a cycle: names given once,
// indices in range, quota cells within `max_quota_cells`. The first fault,
// in the order engine, flavors, priority classes, cohorts, cluster queues,
// local queues.
std::optional<PlacedFault> CheckConfig(const ::charter::schedule::State& state, uint64_t max_quota_cells);

}  // namespace charter::internal::schedule

#endif  // CHARTER_CYCLE_CONFIG_CHECK_H_
