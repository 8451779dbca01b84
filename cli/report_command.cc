// `charter report`: the pictures of a cluster's scheduling, from the
// declarations of a bundle or of .charter files and Kueue Workload objects
// (docs/report.md).
//
//   charter report (--policies FILE... | --bundle B) [--workloads FILE...] [--now TIME] [--simulate CYCLES]
//                  [--decision-log FILE...] [--from DATE] [--to DATE] -o DIR
//
// Writes DIR/quota-tree.svg, DIR/waiting.svg, DIR/usage.csv, DIR/usage.json
// (when the policies declare scheduling), DIR/decisions.svg and
// DIR/decisions.csv (with decision logs: decisions.h), and DIR/index.html
// (the charts inlined, nothing fetched at view time).
// The workloads are read by the code `charter schedule` reads them with
// (schedule.h), which also gives each one's history; the pending reasons
// come from one cycle over the state of now, with the scheduling rules of
// the policies, as `charter schedule` gives them. Every file is computed
// before the first is written, and each is written whole (atomically).
// Exit 0 once written, 1 on any error.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "charter/charter.h"
#include "charter/files.h"
#include "charter/kueue.h"
#include "charter/schedule.h"
#include "command.h"
#include "decisions.h"
#include "files.h"
#include "load.h"
#include "pictures.h"
#include "predict.h"
#include "report.h"
#include "schedule.h"
#include "svg.h"
#include "util.h"

namespace charter::cli {
namespace {

constexpr size_t kMaxInput = size_t{1} << 30;

struct ReportFlags {
  std::string bundle;
  std::vector<std::string> policies;
  std::vector<std::string> workloads;
  std::vector<std::string> decision_logs;
  std::string now, from, to;
  int64_t simulate = 0;  // cycles; 0: no prediction
  std::string output;
};

// An RFC 3339 time that kueue::ParseTime reads back exactly.
std::string Rfc3339(double t) {
  const double whole = std::floor(t);
  const int64_t days = static_cast<int64_t>(std::floor(whole / 86400));
  const int64_t secs = static_cast<int64_t>(whole) - days * 86400;
  char buf[160];
  std::snprintf(buf, sizeof buf, "T%02lld:%02lld:%02lld.%06lldZ", static_cast<long long>(secs / 3600),
                static_cast<long long>(secs % 3600 / 60), static_cast<long long>(secs % 60),
                static_cast<long long>(std::llround((t - whole) * 1e6) % 1000000));
  return svg::DayName(days) + buf;
}

// The latest time a workload's history records.
double Latest(const std::vector<kueue::WorkloadHistory>& history) {
  double latest = 0;
  for (const kueue::WorkloadHistory& h : history) {
    for (const std::optional<double>& t : {h.created, h.quota_reserved, h.admitted, h.finished}) {
      if (t) latest = std::max(latest, *t);
    }
  }
  return latest;
}

// Writes every file of the report into `dir` (created if missing), each
// whole (atomically), once all of them are computed.
int WriteReport(const std::string& dir, const std::vector<ReportFile>& files) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    PrintError(Cat(Printable(dir), ": cannot create the directory: ", error.message()));
    return kError;
  }
  for (const ReportFile& f : files) {
    const std::string path = (std::filesystem::path(dir) / f.name).string();
    if (absl::Status s = WriteFileAtomically(path, f.text); !s.ok()) return Fail(s);
  }
  return kOk;
}

int RunReport(const ReportFlags& flags) {
  std::vector<std::string> inputs = flags.policies;
  inputs.push_back(flags.bundle);
  for (const std::string& w : flags.workloads) inputs.push_back(w);
  for (const std::string& l : flags.decision_logs) inputs.push_back(l);
  if (absl::Status s = CheckNotAnInput(flags.output, inputs, "the report"); !s.ok()) return Fail(s);
  const char* names[] = {"index.html", "quota-tree.svg", "waiting.svg", "usage.csv",
                         "usage.json", "decisions.svg", "decisions.csv"};
  for (const char* name : names) {
    const std::string path = (std::filesystem::path(flags.output) / name).string();
    if (absl::Status s = CheckNotAnInput(path, inputs, "the report"); !s.ok()) return Fail(s);
  }
  std::error_code error;
  if (std::filesystem::exists(flags.output, error) && !std::filesystem::is_directory(flags.output, error)) {
    PrintError(Cat(Printable(flags.output), ": not a directory (-o names the directory the report is written into)"));
    return kError;
  }

  Period period;
  if (!flags.from.empty()) {
    absl::StatusOr<double> t = ReadPeriodEnd("--from", flags.from, false);
    if (!t.ok()) return Fail(t.status());
    period.from = *t;
  }
  if (!flags.to.empty()) {
    absl::StatusOr<double> t = ReadPeriodEnd("--to", flags.to, true);
    if (!t.ok()) return Fail(t.status());
    period.to = *t;
  }
  if (period.from && period.to && !(*period.from < *period.to)) {
    PrintError(Cat("--from ", Printable(flags.from), " is not before --to ", Printable(flags.to)));
    return kError;
  }

  absl::StatusOr<Engine> engine = LoadEngineFrom(flags.bundle, flags.policies);
  if (!engine.ok()) return Fail(engine.status());
  absl::StatusOr<std::optional<schedule::State>> config = schedule::ReadConfiguration(*engine);
  if (!config.ok()) return Fail(config.status());
  std::optional<std::vector<DecisionEvent>> decisions;
  if (!flags.decision_logs.empty()) {
    absl::StatusOr<std::vector<DecisionEvent>> read = ReadDecisionLogs(flags.decision_logs, kMaxInput);
    if (!read.ok()) return Fail(read.status());
    decisions = *std::move(read);
  }
  if (!config->has_value() && (!decisions || !flags.workloads.empty())) {
    PrintError(Cat(flags.bundle.empty() ? std::string("the policy files") : Printable(flags.bundle),
                   " declare no scheduling configuration (no `flavor`, `cohort` or `queue` in a .charter file)",
                   decisions ? ": --workloads needs one" : ""));
    return kError;
  }
  if (!config->has_value()) {
    ReportInput in;
    in.decisions = &*decisions;
    in.period = period;
    return WriteReport(flags.output, RenderReport(in));
  }
  absl::StatusOr<schedule::SchedulingRules> rules = schedule::SchedulingRules::Create({*engine});
  if (!rules.ok()) return Fail(rules.status());

  std::vector<std::string> texts;
  for (const std::string& file : flags.workloads) {
    absl::StatusOr<std::string> text = ReadFile(file, kMaxInput);
    if (!text.ok()) return Fail(text.status());
    texts.push_back(*std::move(text));
  }
  // One time reference for every file: --now, or the latest time in them.
  std::string now = flags.now;
  if (now.empty() && texts.size() > 1) {
    std::vector<kueue::WorkloadHistory> scratch;
    for (size_t i = 0; i < texts.size(); ++i) {
      schedule::State state = **config;
      if (!kueue::LooksLikeKueueObjects(texts[i])) {
        PrintError(Cat(Printable(flags.workloads[i]),
                       ": not Kueue Workload objects; workloads in the state format come in one --workloads file"));
        return kError;
      }
      if (absl::Status s = AddKueueWorkloads(flags.workloads[i], texts[i], "", &state, &scratch); !s.ok()) return Fail(s);
    }
    if (!scratch.empty()) now = Rfc3339(Latest(scratch));
  }
  schedule::State state = **config;
  std::vector<kueue::WorkloadHistory> history;
  for (size_t i = 0; i < texts.size(); ++i) {
    if (i == 0) {
      absl::StatusOr<schedule::State> read = WorkloadsOnto(state, flags.workloads[i], texts[i], now, &history);
      if (!read.ok()) return Fail(read.status());
      state = *std::move(read);
      continue;
    }
    if (!kueue::LooksLikeKueueObjects(texts[i])) {
      PrintError(Cat(Printable(flags.workloads[i]),
                     ": not Kueue Workload objects; workloads in the state format come in one --workloads file"));
      return kError;
    }
    if (absl::Status s = AddKueueWorkloads(flags.workloads[i], texts[i], now, &state, &history); !s.ok()) return Fail(s);
  }
  double now_time = Latest(history);
  if (!now.empty()) {
    std::optional<double> parsed = kueue::ParseTime(now);
    if (!parsed) {
      PrintError(Cat("--now: `", Printable(now), "` is not an RFC 3339 time"));
      return kError;
    }
    now_time = *parsed;
  }

  schedule::CycleOptions options;
  options.rules = &*rules;
  absl::StatusOr<schedule::CycleResult> cycle = schedule::RunCycle(state, options);
  if (!cycle.ok()) return Fail(cycle.status());
  ReportInput in;
  in.state = &state;
  in.history = &history;
  in.cycle = &*cycle;
  in.now = now_time;
  in.decisions = decisions ? &*decisions : nullptr;
  in.period = period;
  std::map<std::string, Prediction> predictions;
  if (flags.simulate > 0) {
    absl::StatusOr<std::map<std::string, Prediction>> p =
        PredictAdmissions(state, history, now_time, options, flags.simulate);
    if (!p.ok()) return Fail(p.status());
    predictions = *std::move(p);
    in.predictions = &predictions;
  }
  return WriteReport(flags.output, RenderReport(in));
}

}  // namespace

Command AddReportCommand(CLI::App& root) {
  auto flags = std::make_shared<ReportFlags>();
  CLI::App* app = root.add_subcommand(
      "report",
      "Write the pictures of scheduling and decisions: quota tree, usage per team and day, waits, pending reasons, "
      "decisions per policy");
  app->footer("Exit status: 0 once the report is written; 1 on any error.");
  CLI::Option* bundle =
      app->add_option("--bundle", flags->bundle, "Bundle whose scheduling declarations give the configuration")
          ->type_name("FILE");
  CLI::Option* policies = AddPoliciesOption(
      app, &flags->policies, " (.charter declarations, Cedar policies and scheduling rules), compiled together", false);
  bundle->excludes(policies);
  app->add_option("--workloads", flags->workloads,
                  "Kueue Workload objects (YAML or JSON, as `kubectl get workloads -A -o yaml` gives them), given "
                  "again for more; or one file of {\"admitted\": [...], \"pending\": [...]} (no history)")
      ->type_name("FILE")
      ->allow_extra_args(false);
  app->add_option("--now", flags->now,
                  "The report's time (RFC 3339; default: the latest time in the workloads): running workloads "
                  "count until then")
      ->type_name("TIME");
  app->add_option("--simulate", flags->simulate,
                  "Predict each pending workload's admission: simulate up to CYCLES scheduling cycles as running "
                  "workloads finish after their queue's median run time (learned from the finished ones)")
      ->type_name("CYCLES")
      ->check(CLI::Range(int64_t{1}, int64_t{1000000}));
  app->add_option("--decision-log", flags->decision_logs,
                  "The JSON lines of `charter serve --decision-log` (or - for standard input), given again for "
                  "more: decisions per policy over time, the top denial reasons")
      ->type_name("FILE")
      ->allow_extra_args(false);
  app->add_option("--from", flags->from,
                  "Count usage, waits and decisions from this day (YYYY-MM-DD, UTC) or RFC 3339 time")
      ->type_name("DATE");
  app->add_option("--to", flags->to,
                  "Count them up to this day, included (YYYY-MM-DD), or up to this RFC 3339 time")
      ->type_name("DATE");
  app->add_option("-o,--output", flags->output, "The directory to write into (created if missing)")
      ->type_name("DIR")
      ->required();
  app->callback([flags] {
    if (flags->bundle.empty() && flags->policies.empty()) throw CLI::RequiredError("--bundle or --policies");
    if (!flags->now.empty() && flags->workloads.empty()) throw CLI::RequiredError("--workloads (for --now)");
    if (flags->simulate > 0 && flags->workloads.empty()) throw CLI::RequiredError("--workloads (for --simulate)");
    if ((!flags->from.empty() || !flags->to.empty()) && flags->workloads.empty() && flags->decision_logs.empty()) {
      throw CLI::RequiredError("--workloads or --decision-log (for --from and --to)");
    }
  });
  return Command{app, [flags] { return RunReport(*flags); }};
}

}  // namespace charter::cli
