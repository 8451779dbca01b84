// The figures and pictures of `charter report` (docs/report.md): the quota
// tree and what each queue uses now, each team's usage over time split into
// own quota and borrowed, and the waiting (wait to admission, evictions,
// pending workloads with the cycle's reasons), written as plain SVG, CSV,
// JSON and one self-contained HTML page. Every figure is computed here from
// the state, the workloads' history and one cycle's outcome; nothing else
// goes in.
#ifndef CHARTER_CLI_PICTURES_H_
#define CHARTER_CLI_PICTURES_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "charter/kueue_history.h"
#include "charter/schedule.h"
#include "command.h"
#include "decisions.h"
#include "predict.h"

namespace charter::cli {

struct ReportInput {
  // The scheduling part: null when the policies declare no scheduling (a
  // report of decisions alone); else all three are set.
  const schedule::State* state = nullptr;  // the configuration and the workloads of now
  const std::vector<kueue::WorkloadHistory>* history = nullptr;
  const schedule::CycleResult* cycle = nullptr;  // one cycle over `state`
  double now = 0;  // seconds since the Unix epoch; 0: unknown (no times)
  // --simulate: a predicted admission a pending workload (predict.h); null
  // without.
  const std::map<std::string, Prediction>* predictions = nullptr;
  // The authorization part: null without decision logs.
  const std::vector<DecisionEvent>* decisions = nullptr;
  // What the usage, the waits and the decisions count (--from, --to).
  Period period;
};

// One row of usage.csv: a queue's use of a resource on one UTC day, in
// resource-hours (cores for cpu, bytes for memory, units otherwise).
struct UsageRow {
  std::string cluster_queue, cohort, resource, day;  // day: YYYY-MM-DD
  double own = 0, borrowed = 0;
};

// The rows, sorted by queue, resource and day: for each queue and resource
// it used in the period, every day from the first admission (or the
// period's start) to `now` (or the period's end, when before).
// Borrowed is, at each moment, the part of the queue's usage of a flavor
// above its nominal quota there; own is the rest.
std::vector<UsageRow> ComputeUsage(const ReportInput& in);

// quota-tree.svg alone: of `in.state` (with what its admitted workloads hold)
// at `in.now`; the history and the cycle are not read. For the live page of
// `charter serve --workloads`.
std::string QuotaTreePicture(const ReportInput& in);

// The files of the report, by name.
struct ReportFile {
  std::string name;
  std::string text;
};
std::vector<ReportFile> RenderReport(const ReportInput& in);

// The `charter schedule --format table` table: a row a cluster queue, as
// `kueuectl list clusterqueue` shows them, of `after`: the state after a
// cycle (schedule::ApplyCycle).
std::string ClusterQueueTable(const schedule::State& after);

// `charter report` (report_command.cc), the command these pictures are for.
Command AddReportCommand(CLI::App& root);

}  // namespace charter::cli

#endif  // CHARTER_CLI_PICTURES_H_
