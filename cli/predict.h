// `charter report --simulate CYCLES`: a predicted admission time for each
// pending workload (docs/report.md#predicted-admission). Kueue knows no run
// times, so each queue's are learned from the history: a running workload is
// expected to finish when it has run its queue's median run time (of the
// workloads that finished). From the state of now, scheduling cycles run
// (charter simulate's, Kueue-exact) until the state settles; then the next
// expected finish frees its quota (and wakes the parked workloads of its
// cohort tree, as Kueue does when a workload finishes), and cycles run again;
// a workload admitted on the way gets its queue's run time too. The time a
// pending workload is admitted in this simulation is its prediction.
#ifndef CHARTER_CLI_PREDICT_H_
#define CHARTER_CLI_PREDICT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "charter/kueue_history.h"
#include "charter/schedule.h"

namespace charter::cli {

struct Prediction {
  std::optional<double> at;  // seconds since the Unix epoch; unset: none
  std::string note;          // why there is none, or what it rests on
};

// By pending workload name. `state` is the state of `now` (its times relative
// to `now`, as the Kueue reader gives them); at most `max_cycles` cycles run.
absl::StatusOr<std::map<std::string, Prediction>> PredictAdmissions(const schedule::State& state,
                                                                     const std::vector<kueue::WorkloadHistory>& history,
                                                                     double now, const schedule::CycleOptions& options,
                                                                     int64_t max_cycles);

}  // namespace charter::cli

#endif  // CHARTER_CLI_PREDICT_H_
