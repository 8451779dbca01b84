// `charter schedule` and `charter simulate`: one Kueue scheduling cycle over
// a state, or cycles applied one after another until the state settles.
//
//   charter schedule (--bundle B | --policies FILE...) [--schema S...] [--entities E] --workloads W
//                    [--now TIME] [--format text|json]
//   charter schedule --state FILE [--scenario ID] [--hyperpod] [--workloads W [--now TIME]]
//                    [--policies RULES... [--schema S...] [--entities E]] [--format text|json]
//   charter simulate ... [--cycles N]
//
// The configuration comes from the scheduling declarations of a bundle or of
// .charter files, and the workloads from W; or both from a state file, to
// which W adds Kueue Workload objects.
// Both exit 0 once the cycles ran (with --fail-on-pending, 2 when a
// workload is pending at the end: after the one cycle, or the last); any
// error exits 1. `schedule` then
// prints nothing on stdout; `simulate` writes each cycle as it ends (its
// memory is the state's, however many cycles it runs), so an error in a
// later cycle leaves the earlier ones on stdout (and a JSON array unclosed). With --policies, the cycle consults the scheduling rules of those
// files (docs/scheduling.md, "Scheduling rules").
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "charter/charter.h"
#include "charter/governance.h"
#include "charter/kueue.h"
#include "charter/schedule.h"
#include "charter/schema.h"
#include "command.h"
#include "files.h"
#include "load.h"
#include "pictures.h"
#include "report.h"
#include "schedule.h"

namespace charter::cli {
namespace {

struct ScheduleFlags {
  std::string state;
  std::string scenario;
  std::string bundle;
  std::vector<std::string> policies;
  std::string workloads;  // Kueue Workload objects, or {"admitted": [...], "pending": [...]}
  std::string now;        // the Kueue Workloads' time reference (RFC 3339)
  std::string format = "text";
  int cycles = 0;  // simulate: 0 = until stable (at most 1000)
  bool summary = false;  // simulate: one line (object) a cycle
  std::string output;    // simulate -o: the final state, as --state reads it
  bool fail_on_pending = false;  // exit kDeny when a workload is pending at the end
  bool hyperpod = false;
  // The schema files the policies are validated against (read as one
  // schema), and the entities the cycle's own lie over for the rules.
  std::vector<std::string> schemas;
  std::string entities;
};

}  // namespace

// Kueue Workload objects (YAML or JSON) added to `state`, at `now`.
absl::Status AddKueueWorkloads(const std::string& source_name, std::string_view text, const std::string& now,
                               schedule::State* state, std::vector<kueue::WorkloadHistory>* history) {
  kueue::WorkloadOptions wl;
  wl.source_name = source_name;
  if (!now.empty()) {
    wl.now = kueue::ParseTime(now);
    if (!wl.now) return absl::InvalidArgumentError(absl::StrCat("--now: `", now, "` is not an RFC 3339 time"));
  }
  std::vector<kueue::Note> notes;
  if (absl::Status s = kueue::ReadKueueWorkloads(text, wl, state, &notes, history); !s.ok()) return s;
  for (const kueue::Note& n : notes) {
    (n.severity == kueue::Note::Severity::kWarning ? PrintWarning : PrintNote)(Printable(n.message));
  }
  return absl::OkStatus();
}

absl::StatusOr<schedule::State> WorkloadsOnto(const schedule::State& config, const std::string& source_name,
                                              std::string_view text, const std::string& now,
                                              std::vector<kueue::WorkloadHistory>* history) {
  if (kueue::LooksLikeKueueObjects(text)) {
    schedule::State state = config;
    if (absl::Status s = AddKueueWorkloads(source_name, text, now, &state, history); !s.ok()) return s;
    return state;
  }
  if (!now.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--now applies to Kueue Workload objects; ", source_name,
        " holds workloads in the state format, whose times are relative (createdAt)"));
  }
  schedule::LoadOptions options;
  options.source_name = source_name;
  // A whole state (`charter simulate -o`, or a --state file): its workloads,
  // over its own queues, which must be the configuration's.
  if (text.find("\"cluster_queues\"") != std::string_view::npos) {
    absl::StatusOr<schedule::State> whole = schedule::LoadState(text, options);
    if (!whole.ok()) return whole.status();
    auto names = [](const schedule::State& st) {
      std::vector<std::string> out;
      for (const schedule::ClusterQueue& q : st.cluster_queues) out.push_back(q.name);
      std::sort(out.begin(), out.end());
      return out;
    };
    if (names(*whole) != names(config)) {
      return absl::InvalidArgumentError(absl::StrCat(
          source_name, ": a whole state (as `charter simulate -o` writes) whose cluster queues (",
          absl::StrJoin(names(*whole), ", "), ") are not those the policies declare (",
          absl::StrJoin(names(config), ", "), ")"));
    }
    return whole;
  }
  return schedule::LoadWorkloads(config, text, options);
}

namespace {

// The workloads of W onto a configuration that holds none (a bundle's or the
// policy files' declarations).
absl::StatusOr<schedule::State> ReadWorkloads(const ScheduleFlags& flags, const schedule::State& config) {
  absl::StatusOr<std::string> text = ReadFile(flags.workloads, size_t{1} << 30);
  if (!text.ok()) return text.status();
  return WorkloadsOnto(config, flags.workloads, *text, flags.now);
}

// A state file, with the Kueue Workload objects of W added to its workloads.
absl::StatusOr<schedule::State> LoadStateFile(const ScheduleFlags& flags) {
  absl::StatusOr<std::string> text = ReadFile(flags.state, size_t{1} << 30);
  if (!text.ok()) return text.status();
  schedule::LoadOptions options;
  options.source_name = flags.state;
  options.scenario = flags.scenario;
  absl::StatusOr<schedule::State> state =
      flags.hyperpod ? schedule::LoadHyperPodState(*text, options) : schedule::LoadState(*text, options);
  if (!state.ok() || flags.workloads.empty()) return state;
  absl::StatusOr<std::string> workloads = ReadFile(flags.workloads, size_t{1} << 30);
  if (!workloads.ok()) return workloads.status();
  if (!kueue::LooksLikeKueueObjects(*workloads)) {
    // The state format's workloads belong in the state file itself.
    return absl::InvalidArgumentError(absl::StrCat(
        flags.workloads, ": not Kueue Workload objects (YAML, or JSON with apiVersion and kind); with --state, "
        "workloads in the state format go in the state file"));
  }
  if (absl::Status s = AddKueueWorkloads(flags.workloads, *workloads, flags.now, &*state); !s.ok()) return s;
  return state;
}

absl::StatusOr<schedule::State> LoadCompiledState(const ScheduleFlags& flags, const Engine& engine);

// What a cycle starts from: its state, and the scheduling rules of the
// bundle or policy files (none without them).
struct Input {
  schedule::State state;
  std::optional<schedule::SchedulingRules> rules;
};

// The rules of a compiled bundle or policy files, over --entities. Permits
// that name a scheduling action have no effect on the cycle: each is a
// warning.
absl::StatusOr<schedule::SchedulingRules> LoadRules(const ScheduleFlags& flags, const Engine& engine,
                                                    const Schema* schema) {
  std::optional<Entities> entities;
  if (!flags.entities.empty()) {
    absl::StatusOr<Entities> loaded = LoadEntities(flags.entities, schema);
    if (!loaded.ok()) return loaded.status();
    entities = *std::move(loaded);
  }
  absl::StatusOr<schedule::SchedulingRules> rules =
      schedule::SchedulingRules::Create({engine}, entities.has_value() ? &*entities : nullptr);
  if (!rules.ok()) return rules.status();
  for (const std::string& id : rules->ignored_permits()) {
    PrintWarning(absl::StrCat("permit `", Printable(id),
                              "` names a scheduling action; scheduling rules only forbid, so it has no effect"));
  }
  return rules;
}

// The state of the first cycle: a state file, or the configuration the
// bundle or policy files declare with the workloads of W.
absl::StatusOr<Input> LoadInput(const ScheduleFlags& flags) {
  const bool compiled = !flags.bundle.empty() || !flags.policies.empty();
  if (!compiled) {
    if (flags.state.empty()) return absl::InvalidArgumentError("give --state, or --bundle or --policies with --workloads");
    absl::StatusOr<schedule::State> state = LoadStateFile(flags);
    if (!state.ok()) return state.status();
    return Input{*std::move(state), std::nullopt};
  }
  std::optional<Schema> schema;
  if (!flags.schemas.empty()) {
    absl::StatusOr<Schema> loaded = LoadSchemas(flags.schemas);
    if (!loaded.ok()) return loaded.status();
    schema = *std::move(loaded);
  }
  CompileOptions compile;
  compile.schema = schema.has_value() ? &*schema : nullptr;
  absl::StatusOr<Engine> engine = LoadEngineFrom(flags.bundle, flags.policies, compile);
  if (!engine.ok()) return engine.status();
  absl::StatusOr<schedule::SchedulingRules> rules = LoadRules(flags, *engine, compile.schema);
  if (!rules.ok()) return rules.status();
  absl::StatusOr<schedule::State> state = LoadCompiledState(flags, *engine);
  if (!state.ok()) return state.status();
  return Input{*std::move(state), *std::move(rules)};
}

absl::StatusOr<schedule::State> LoadCompiledState(const ScheduleFlags& flags, const Engine& engine) {
  const std::string what = flags.bundle.empty() ? std::string("the policy files") : flags.bundle;
  absl::StatusOr<std::optional<schedule::State>> read = schedule::ReadConfiguration(engine);
  if (!read.ok()) return read.status();
  const schedule::State* config = read->has_value() ? &**read : nullptr;
  if (!flags.state.empty()) {
    if (config != nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          flags.state, ": a state file holds a configuration, and so do the declarations of ", what,
          ": give the workloads alone with --workloads"));
    }
    return LoadStateFile(flags);
  }
  if (config == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " declare no scheduling configuration (no `flavor`, `cohort` or `queue` in a .charter file)"));
  }
  if (flags.workloads.empty()) return absl::InvalidArgumentError("--workloads FILE is required with --bundle or --policies");
  return ReadWorkloads(flags, *config);
}

// With --fail-on-pending: kDeny, after one stderr line naming them (the
// first ten), when `state` (the state a run ends in) has pending workloads.
int PendingExit(const ScheduleFlags& flags, const schedule::State& state) {
  if (!flags.fail_on_pending || state.pending.empty()) return kOk;
  std::vector<std::string> names;
  for (const schedule::Workload& w : state.pending) names.push_back(w.name);
  std::sort(names.begin(), names.end());
  const size_t shown = std::min<size_t>(names.size(), 10);
  std::string line = absl::StrCat("charter: ", names.size(), names.size() == 1 ? " workload stays" : " workloads stay",
                                  " pending (--fail-on-pending): ");
  for (size_t i = 0; i < shown; ++i) absl::StrAppend(&line, i ? ", " : "", "`", Printable(names[i]), "`");
  if (shown < names.size()) absl::StrAppend(&line, " and ", names.size() - shown, " more");
  std::fprintf(stderr, "%s\n", line.c_str());
  return kDeny;
}

int RunSchedule(const ScheduleFlags& flags) {
  absl::StatusOr<Input> input = LoadInput(flags);
  if (!input.ok()) return Fail(input.status());
  schedule::CycleOptions options;
  options.rules = input->rules.has_value() ? &*input->rules : nullptr;
  absl::StatusOr<schedule::CycleResult> result = schedule::RunCycle(input->state, options);
  if (!result.ok()) return Fail(result.status());
  if (flags.format == "table") {
    // Per cluster queue, as `kueuectl list clusterqueue` shows them, after the cycle.
    absl::StatusOr<schedule::State> after = schedule::ApplyCycle(input->state, *result);
    if (!after.ok()) return Fail(after.status());
    if (!WriteStdout(ClusterQueueTable(*after))) return kError;
    return PendingExit(flags, *after);
  }
  if (!WriteStdout(flags.format == "json" ? result->ToJson() + "\n" : result->ToText())) return kError;
  if (!flags.fail_on_pending) return kOk;
  // Pending after the cycle: what the cycle did not admit, and what it preempted.
  absl::StatusOr<schedule::State> after = schedule::ApplyCycle(input->state, *result);
  if (!after.ok()) return Fail(after.status());
  return PendingExit(flags, *after);
}

// What decides the next cycles of a simulation, so that a state that comes
// back is recognised: who holds quota, and each waiting workload's queue
// state, preemptor mark and flavor search (with whether it is still used).
// Two 64-bit hashes of each workload's part, summed over the workloads: the
// same state gives the same pair whatever the order of its vectors, in
// time linear in its workloads (a text of the whole state, sorted and
// hashed, took a third of a 10,000-workload simulation). Two states of a
// run meet by accident with a chance of about 2^-128 a pair.
using StateKey = std::pair<uint64_t, uint64_t>;
StateKey Fingerprint(const schedule::State& s) {
  StateKey key{0, 0};
  auto add = [&key](const auto&... part) {
    key.first += absl::HashOf(uint64_t{0x9e3779b97f4a7c15}, part...);
    key.second += absl::HashOf(uint64_t{0xc2b2ae3d27d4eb4f}, part...);
  };
  for (const schedule::Workload& w : s.admitted) add('A', absl::string_view(w.name));
  for (const schedule::Workload& w : s.pending) {
    add('P', absl::string_view(w.name), w.inadmissible, w.preempting, s.cycle - w.flavor_scan_cycle <= 1,
        s.cluster_queues[w.cluster_queue].generation > w.flavor_scan_generation, w.flavor_scan);
  }
  return key;
}

// One cycle in a line: "cycle 3: 2 admitted, 1 preempted, 4 pending heads,
// 10 queued; then 12 admitted, 14 pending", or the same as a JSON object.
std::string CycleSummary(int cycle, const schedule::CycleResult& r, const schedule::State& after, bool json) {
  if (json) {
    return absl::StrCat("{\"cycle\":", cycle, ",\"admitted\":", r.admitted.size(), ",\"preempted\":",
                        r.preempted.size(), ",\"not_admitted\":", r.not_admitted.size(), ",\"queued\":",
                        r.queued_count, ",\"admitted_total\":", after.admitted.size(), ",\"pending_total\":",
                        after.pending.size(), "}");
  }
  return absl::StrCat("cycle ", cycle, ": ", r.admitted.size(), " admitted, ", r.preempted.size(), " preempted, ",
                      r.not_admitted.size(), " pending head", r.not_admitted.size() == 1 ? "" : "s", ", ",
                      r.queued_count, " queued; then ", after.admitted.size(), " admitted, ", after.pending.size(),
                      " pending\n");
}

int RunSimulate(const ScheduleFlags& flags) {
  if (!flags.output.empty()) {
    // Refused before any cycle runs: the final state never replaces an input.
    std::vector<std::string> inputs = flags.policies;
    inputs.insert(inputs.end(), {flags.state, flags.bundle, flags.workloads, flags.entities});
    inputs.insert(inputs.end(), flags.schemas.begin(), flags.schemas.end());
    if (absl::Status s = CheckNotAnInput(flags.output, inputs, "the final state"); !s.ok()) return Fail(s);
  }
  absl::StatusOr<Input> input = LoadInput(flags);
  if (!input.ok()) return Fail(input.status());
  schedule::CycleOptions options;
  options.rules = input->rules.has_value() ? &*input->rules : nullptr;
  if (flags.summary) {  // counts only: no message for each waiting workload, no holder named
    options.list_queued = false;
    options.max_holders = 0;
  }
  schedule::State* state = &input->state;
  const int limit = flags.cycles > 0 ? flags.cycles : 1000;
  // Each cycle is written when it ends: the output of 100,000 cycles is
  // never held (issue 15). A closed stdout ends the run.
  std::string out;
  std::map<StateKey, int> seen;  // fingerprint -> the cycle after which it was seen
  std::string loop;
  int cycle = 0;
  for (; cycle < limit; ++cycle) {
    absl::StatusOr<schedule::CycleResult> result = schedule::RunCycle(*state, options);
    if (!result.ok()) return Fail(result.status());
    const bool stable = schedule::IsStable(*state, *result);
    absl::StatusOr<schedule::State> next = schedule::ApplyCycle(std::move(*state), *result);
    if (!next.ok()) return Fail(next.status());
    if (flags.summary) {
      out = absl::StrCat(flags.format == "json" ? (cycle == 0 ? "[" : ",") : "",
                         CycleSummary(cycle + 1, *result, *next, flags.format == "json"));
    } else if (flags.format == "json") {
      out = absl::StrCat(cycle == 0 ? "[" : ",", result->ToJson());
    } else {
      out = absl::StrCat("== cycle ", cycle + 1, "\n", result->ToText());
    }
    if (!WriteStdout(out)) return kError;
    out.clear();
    *state = std::move(*next);
    if (stable && flags.cycles == 0) {
      ++cycle;
      break;
    }
    if (flags.cycles == 0) {
      // A state seen before comes back forever: Kueue would cycle too.
      auto [it, inserted] = seen.emplace(Fingerprint(*state), cycle + 1);
      if (!inserted) {
        loop = absl::StrCat("== the state after cycle ", cycle + 1, " is the state after cycle ", it->second,
                            ": it repeats every ", cycle + 1 - it->second, " cycles and does not settle\n");
        ++cycle;
        break;
      }
    }
  }
  if (flags.format == "json") {
    out = "]\n";
  } else {
    out += loop;
    absl::StrAppend(&out, "== after ", cycle, " cycle", cycle == 1 ? "" : "s", ": ", state->admitted.size(),
                    " admitted, ", state->pending.size(), " pending\n");
    // --summary: the counts only (the final state's workloads are in -o).
    for (const schedule::Workload& w : flags.summary ? std::vector<schedule::Workload>{} : state->admitted) {
      absl::StrAppend(&out, "ADMITTED ", w.name, " (", state->cluster_queues[w.cluster_queue].name, ")\n");
    }
    for (const schedule::Workload& w : flags.summary ? std::vector<schedule::Workload>{} : state->pending) {
      absl::StrAppend(&out, "PENDING  ", w.name, " (", state->cluster_queues[w.cluster_queue].name, ")\n");
    }
  }
  if (!WriteStdout(out)) return kError;
  if (!flags.output.empty()) {
    if (absl::Status s = WriteFileAtomically(flags.output, kueue::WriteStateJson(*state)); !s.ok()) return Fail(s);
  }
  return PendingExit(flags, *state);
}

void AddCommonFlags(CLI::App* app, ScheduleFlags* flags, bool schedule) {
  CLI::Option* state = app->add_option("--state", flags->state, "Scheduling state: configuration and workloads (docs/scheduling.md)")
      ->type_name("FILE");
  CLI::Option* bundle =
      app->add_option("--bundle", flags->bundle, "Bundle whose scheduling declarations give the configuration")
          ->type_name("FILE");
  CLI::Option* policies = AddPoliciesOption(
      app, &flags->policies, " (.charter declarations, Cedar policies and scheduling rules), compiled together");
  bundle->excludes(policies);
  app->add_option("--workloads", flags->workloads,
                  "Workloads: Kueue Workload objects (YAML or JSON; with status.admission admitted, else pending), "
                  "added to --state or to the configuration of --bundle or --policies; or, with --bundle or "
                  "--policies, {\"admitted\": [...], \"pending\": [...]}")
      ->type_name("FILE");
  app->add_option("--now", flags->now,
                  "The cycle's time for Kueue Workloads (RFC 3339; default: the latest time in them)")
      ->type_name("TIME");
  app->add_option("--scenario", flags->scenario, "The scenario to load from a file of scenarios")
      ->type_name("ID")
      ->needs(state);
  app->add_flag("--hyperpod", flags->hyperpod,
                "The file holds HyperPod task governance objects (ComputeQuotas, ClusterSchedulerConfig)")
      ->needs(state);
  if (schedule) {
    app->add_option("--format", flags->format,
                    "Output: text (default), json, or table (a row a cluster queue after the cycle, as `kueuectl "
                    "list clusterqueue`)")
        ->type_name("FORMAT")
        ->check(OneOf({"text", "json", "table"}));
  } else {
    app->add_option("--format", flags->format, "Output: text (default) or json")
        ->type_name("FORMAT")
        ->check(OneOf({"text", "json"}));
  }
  AddSchemaOption(app, &flags->schemas,
                  "Schema to validate the policies against, e.g. "
                  "stdlib/governance.cedarschema and stdlib/scheduling.cedarschema")
      ->needs(policies);
  app->add_option("--entities", flags->entities,
                  "Entities the scheduling rules may read (the cycle's own are added to them)")
      ->type_name("FILE");
  app->add_flag("--fail-on-pending", flags->fail_on_pending,
                "Exit 2 when a workload is pending at the end (for CI), naming them on stderr");
  app->callback([flags] {
    const bool compiled = !flags->bundle.empty() || !flags->policies.empty();
    // Checked while parsing, so that they are reported like CLI11's own errors.
    if (!compiled && flags->state.empty()) throw CLI::RequiredError("--state, --bundle or --policies");
    if (compiled && flags->state.empty() && flags->workloads.empty()) throw CLI::RequiredError("--workloads");
    if (!flags->now.empty() && flags->workloads.empty()) throw CLI::RequiredError("--workloads (for --now)");
    if (!compiled && !flags->entities.empty()) throw CLI::RequiredError("--bundle or --policies (for --entities)");
  });
}

}  // namespace

Command AddScheduleCommand(CLI::App& root) {
  auto flags = std::make_shared<ScheduleFlags>();
  CLI::App* app = root.add_subcommand("schedule", "Run one Kueue scheduling cycle over a state");
  app->footer("Exit status: 0 once the cycle ran (with --fail-on-pending, 2 when a workload is pending after it); 1 on any error.");
  AddCommonFlags(app, flags.get(), true);
  return Command{app, [flags] { return RunSchedule(*flags); }};
}

Command AddSimulateCommand(CLI::App& root) {
  auto flags = std::make_shared<ScheduleFlags>();
  CLI::App* app = root.add_subcommand("simulate", "Run scheduling cycles, applying each, until the state settles");
  app->footer("Exit status: 0 once the cycles ran (with --fail-on-pending, 2 when a workload is pending at the end); 1 on any error.");
  AddCommonFlags(app, flags.get(), false);
  app->add_option("--cycles", flags->cycles, "Run exactly N cycles (default: until stable, at most 1000)")
      ->type_name("N")
      ->check(WholeNumber(1, 100000));
  app->add_flag("--summary", flags->summary,
                "One line a cycle (its counts, and the totals after it) instead of every workload; with "
                "--format json, one object a cycle");
  app->add_option("-o,--output", flags->output,
                  "Write the final state to FILE, in the state format --state reads (never over an input)")
      ->type_name("FILE");
  return Command{app, [flags] { return RunSimulate(*flags); }};
}

}  // namespace charter::cli
