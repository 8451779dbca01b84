// Kueue Workload objects as history: what each one's status records of its
// life (creation, quota reservation, admission, finish, evictions) beside
// the workloads of a cycle that ReadKueueWorkloads reads from them, for
// reports over time (`charter report`, docs/report.md).
#ifndef CHARTER_KUEUE_HISTORY_H_
#define CHARTER_KUEUE_HISTORY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "charter/export.h"
#include "charter/kueue.h"
#include "charter/schedule.h"

namespace charter::kueue {

// What a Workload's status records of its life, for reports over time
// (`charter report`): ReadKueueWorkloads with a history fills these, one for
// every Workload it reads, those that have finished too (which it leaves
// out of the state). Times are
// seconds since the Unix epoch, each the lastTransitionTime of the
// condition that records it; Kueue keeps one transition a condition, so a
// workload evicted and admitted again records its latest admission only.
struct WorkloadHistory {
  std::string name;
  std::string namespace_name;
  int cluster_queue = 0;  // index into the State's cluster queues
  std::optional<double> created;         // metadata.creationTimestamp
  std::optional<double> quota_reserved;  // QuotaReserved=True
  std::optional<double> admitted;        // Admitted=True
  std::optional<double> finished;        // Finished=True
  // Holds quota (status.admission): it is in the state's admitted
  // workloads, or, finished, held it until `finished`.
  bool holds_quota = false;
  // status.schedulingStats.evictions summed (or 1 for Evicted=True when it
  // has none), and those of reason Preempted.
  int64_t evictions = 0;
  int64_t preemptions = 0;
  // What it holds: count x per-pod request, per flavor and resource (the
  // State's indices), when it holds quota.
  struct Usage {
    int flavor = 0;
    int resource = 0;
    schedule::Quantity amount = 0;
  };
  std::vector<Usage> usage;
};

// ReadKueueWorkloads, and each Workload's history added to `*history`:
// a finished Workload is history only (no note, and not in the state).
CHARTER_API absl::Status ReadKueueWorkloads(std::string_view text, const WorkloadOptions& options,
                                            schedule::State* state, std::vector<Note>* notes,
                                            std::vector<WorkloadHistory>* history);

}  // namespace charter::kueue

#endif  // CHARTER_KUEUE_HISTORY_H_
