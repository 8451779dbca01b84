// What `charter schedule` and `charter test`'s scheduling cases share: the
// workloads a cycle starts with, read onto a configuration.
#ifndef CHARTER_CLI_SCHEDULE_H_
#define CHARTER_CLI_SCHEDULE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "charter/kueue_history.h"
#include "charter/schedule.h"

namespace charter::cli {

// Kueue Workload objects (YAML or JSON, `source_name` naming them in
// faults) added to `state`, their times read at `now` (RFC 3339; empty: the
// state's own). Notes and warnings go to stderr. With `history`, each
// Workload's life is added there too (kueue::WorkloadHistory; `charter report`).
absl::Status AddKueueWorkloads(const std::string& source_name, std::string_view text, const std::string& now,
                               schedule::State* state, std::vector<kueue::WorkloadHistory>* history = nullptr);

// `config` (a configuration that holds no workloads: a bundle's or policy
// files' declarations) with the workloads of `text`: Kueue Workload
// objects, or the state format's {"admitted": [...], "pending": [...]}
// (docs/scheduling.md), which takes no `now` and records no history.
absl::StatusOr<schedule::State> WorkloadsOnto(const schedule::State& config, const std::string& source_name,
                                              std::string_view text, const std::string& now,
                                              std::vector<kueue::WorkloadHistory>* history = nullptr);

}  // namespace charter::cli

#endif  // CHARTER_CLI_SCHEDULE_H_
