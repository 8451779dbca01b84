// `charter schedule` and `charter simulate`: one Kueue scheduling cycle over
// a state file, or cycles applied one after another until the state settles.
//
//   charter schedule --state FILE [--scenario ID] [--format text|json]
//                    [--policies RULES [--policies ...] [--schema S ...] [--entities E]]
//   charter simulate --state FILE [--scenario ID] [--cycles N] [--format text|json] [rules as above]
//
// Both exit 0 once the cycles ran; any error exits 1 and prints nothing on
// stdout. With --policies, the cycle consults the scheduling rules of those
// files (docs/scheduling.md, "Scheduling rules").
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "charter/charter.h"
#include "charter/schedule.h"
#include "charter/schema.h"
#include "command.h"
#include "files.h"
#include "load.h"
#include "report.h"

namespace charter::cli {
namespace {

struct ScheduleFlags {
  std::string state;
  std::string scenario;
  std::string format = "text";
  int cycles = 0;  // simulate: 0 = until stable (at most 1000)
  bool hyperpod = false;
  // Scheduling rules: policy files, the schema files they are validated
  // against (read as one schema), and the entities the cycle's own lie over.
  std::vector<std::string> policies;
  std::vector<std::string> schemas;
  std::string entities;
};

// Several schema files read as one (Cedar's schema text: a schema may hold
// several namespaces, so the files are joined); a fault is reported in the
// file it is in, at its own line and column.
absl::StatusOr<Schema> LoadSchemas(const std::vector<std::string>& paths) {
  if (paths.size() == 1) return LoadSchema(paths[0]);
  std::vector<SourceFile> files;
  std::string joined;
  std::vector<uint32_t> starts;
  for (const std::string& path : paths) {
    absl::StatusOr<std::string> text = ReadFile(path, size_t{16} << 20);
    if (!text.ok()) return text.status();
    if (text->find_first_not_of(" \t\r\n") != std::string::npos && (*text)[text->find_first_not_of(" \t\r\n")] == '{') {
      return absl::InvalidArgumentError(
          WithPath(path, "several schemas are joined as Cedar schema text; this one is in the JSON format"));
    }
    starts.push_back(static_cast<uint32_t>(joined.size()));
    joined += *text;
    joined += "\n";
    files.emplace_back(path, *std::move(text));
  }
  SourceFile all(absl::StrJoin(paths, " + "), joined);
  Diagnostics diagnostics;
  absl::StatusOr<Schema> schema = Schema::Parse(all, {}, &diagnostics);
  if (schema.ok()) return schema;
  std::string lines;
  for (const Diagnostic& d : diagnostics.items()) {
    size_t f = 0;
    while (f + 1 < starts.size() && starts[f + 1] <= d.span.begin) ++f;
    Diagnostic local = d;
    local.span.begin -= starts[f];
    local.span.end = std::min<uint32_t>(d.span.end - starts[f], static_cast<uint32_t>(files[f].text().size()));
    Diagnostics one;
    one.Add(local);
    absl::StrAppend(&lines, lines.empty() ? "" : "\n", OneLine(one.RenderShort(files[f])));
  }
  return absl::InvalidArgumentError(lines.empty() ? std::string(schema.status().message()) : lines);
}

// The scheduling rules of --policies (none without it). Permits that name a
// scheduling action have no effect on the cycle: each is a warning.
absl::StatusOr<std::optional<schedule::SchedulingRules>> LoadRules(const ScheduleFlags& flags) {
  if (flags.policies.empty()) return std::nullopt;
  std::optional<Schema> schema;
  if (!flags.schemas.empty()) {
    absl::StatusOr<Schema> loaded = LoadSchemas(flags.schemas);
    if (!loaded.ok()) return loaded.status();
    schema = *std::move(loaded);
  }
  CompileOptions options;
  options.schema = schema.has_value() ? &*schema : nullptr;
  std::vector<Engine> engines;
  std::map<std::string, std::string> ids;  // rule id -> the file that has it
  for (const std::string& path : flags.policies) {
    absl::StatusOr<Bundle> bundle = CompilePolicyFile(path, "", options);
    if (!bundle.ok()) return bundle.status();
    absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
    if (!engine.ok()) return absl::InternalError(WithPath(path, OneLine(engine.status().message())));
    for (const std::string& id : engine->policy_ids()) {
      auto [it, added] = ids.emplace(id, path);
      if (!added) {
        return absl::InvalidArgumentError(WithPath(
            path, absl::StrCat("the rule id `", Printable(id), "` is also in ", it->second,
                               "; outcomes name rules by id, so ids must differ")));
      }
    }
    engines.push_back(*std::move(engine));
  }
  std::optional<Entities> entities;
  if (!flags.entities.empty()) {
    absl::StatusOr<Entities> loaded = LoadEntities(flags.entities, schema.has_value() ? &*schema : nullptr);
    if (!loaded.ok()) return loaded.status();
    entities = *std::move(loaded);
  }
  absl::StatusOr<schedule::SchedulingRules> rules =
      schedule::SchedulingRules::Create(engines, entities.has_value() ? &*entities : nullptr);
  if (!rules.ok()) return rules.status();
  for (const std::string& id : rules->ignored_permits()) {
    PrintWarning(absl::StrCat("permit `", Printable(id),
                              "` names a scheduling action; scheduling rules only forbid, so it has no effect"));
  }
  return std::optional<schedule::SchedulingRules>(*std::move(rules));
}

absl::StatusOr<schedule::State> LoadStateFile(const ScheduleFlags& flags) {
  absl::StatusOr<std::string> text = ReadFile(flags.state, size_t{1} << 30);
  if (!text.ok()) return text.status();
  schedule::LoadOptions options;
  options.source_name = flags.state;
  options.scenario = flags.scenario;
  return flags.hyperpod ? schedule::LoadHyperPodState(*text, options) : schedule::LoadState(*text, options);
}

int RunSchedule(const ScheduleFlags& flags) {
  absl::StatusOr<schedule::State> state = LoadStateFile(flags);
  if (!state.ok()) return Fail(state.status());
  absl::StatusOr<std::optional<schedule::SchedulingRules>> rules = LoadRules(flags);
  if (!rules.ok()) return Fail(rules.status());
  schedule::CycleOptions options;
  options.rules = rules->has_value() ? &**rules : nullptr;
  absl::StatusOr<schedule::CycleResult> result = schedule::RunCycle(*state, options);
  if (!result.ok()) return Fail(result.status());
  return WriteStdout(flags.format == "json" ? result->ToJson() + "\n" : result->ToText()) ? kOk : kError;
}

// What decides the next cycles of a simulation, so that a state that comes
// back is recognised: who holds quota, and each waiting workload's queue
// state, preemptor mark and flavor search (with whether it is still used).
std::string Fingerprint(const schedule::State& s) {
  std::map<std::string, std::string> parts;
  for (const schedule::Workload& w : s.admitted) parts[w.name] = "A";
  for (const schedule::Workload& w : s.pending) {
    std::string& f = parts[w.name];
    absl::StrAppend(&f, "P", w.inadmissible, w.preempting, s.cycle - w.flavor_scan_cycle <= 1,
                    s.cluster_queues[w.cluster_queue].generation > w.flavor_scan_generation);
    for (const auto& set : w.flavor_scan) {
      f += '/';
      for (int idx : set) absl::StrAppend(&f, idx, ",");
    }
  }
  std::string out;
  for (const auto& [name, f] : parts) absl::StrAppend(&out, name, "=", f, ";");
  return out;
}

int RunSimulate(const ScheduleFlags& flags) {
  absl::StatusOr<schedule::State> state = LoadStateFile(flags);
  if (!state.ok()) return Fail(state.status());
  absl::StatusOr<std::optional<schedule::SchedulingRules>> rules = LoadRules(flags);
  if (!rules.ok()) return Fail(rules.status());
  schedule::CycleOptions options;
  options.rules = rules->has_value() ? &**rules : nullptr;
  const int limit = flags.cycles > 0 ? flags.cycles : 1000;
  std::string out = flags.format == "json" ? "[" : "";
  std::map<std::string, int> seen;  // fingerprint -> the cycle after which it was seen
  std::string loop;
  int cycle = 0;
  for (; cycle < limit; ++cycle) {
    absl::StatusOr<schedule::CycleResult> result = schedule::RunCycle(*state, options);
    if (!result.ok()) return Fail(result.status());
    const bool stable = schedule::IsStable(*state, *result);
    if (flags.format == "json") {
      absl::StrAppend(&out, cycle == 0 ? "" : ",", result->ToJson());
    } else {
      absl::StrAppend(&out, "== cycle ", cycle + 1, "\n", result->ToText());
    }
    absl::StatusOr<schedule::State> next = schedule::ApplyCycle(*state, *result);
    if (!next.ok()) return Fail(next.status());
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
    out += "]\n";
  } else {
    out += loop;
    absl::StrAppend(&out, "== after ", cycle, " cycle", cycle == 1 ? "" : "s", ": ", state->admitted.size(),
                    " admitted, ", state->pending.size(), " pending\n");
    for (const schedule::Workload& w : state->admitted) {
      absl::StrAppend(&out, "ADMITTED ", w.name, " (", state->cluster_queues[w.cluster_queue].name, ")\n");
    }
    for (const schedule::Workload& w : state->pending) {
      absl::StrAppend(&out, "PENDING  ", w.name, " (", state->cluster_queues[w.cluster_queue].name, ")\n");
    }
  }
  return WriteStdout(out) ? kOk : kError;
}

void AddCommonFlags(CLI::App* app, ScheduleFlags* flags) {
  app->add_option("--state", flags->state, "Scheduling state (docs/scheduling.md)")
      ->type_name("FILE")
      ->required();
  app->add_option("--scenario", flags->scenario, "The scenario to load from a file of scenarios")
      ->type_name("ID");
  app->add_flag("--hyperpod", flags->hyperpod,
                "The file holds HyperPod task governance objects (ComputeQuotas, ClusterSchedulerConfig)");
  app->add_option("--format", flags->format, "Output: text (default) or json")
      ->type_name("FORMAT")
      ->check(OneOf({"text", "json"}));
  CLI::Option* policies =
      app->add_option("--policies", flags->policies, "Scheduling rules (Cedar policies; may be given several times)")
          ->type_name("FILE");
  app->add_option("--schema", flags->schemas,
                  "Schema to validate the rules against (several are read as one), e.g. "
                  "stdlib/governance.cedarschema and stdlib/scheduling.cedarschema")
      ->type_name("FILE")
      ->needs(policies);
  app->add_option("--entities", flags->entities, "Entities the rules may read (the cycle's own are added to them)")
      ->type_name("FILE")
      ->needs(policies);
}

}  // namespace

Command AddScheduleCommand(CLI::App& root) {
  auto flags = std::make_shared<ScheduleFlags>();
  CLI::App* app = root.add_subcommand("schedule", "Run one Kueue scheduling cycle over a state");
  app->footer("Exit status: 0 once the cycle ran; 1 on any error.");
  AddCommonFlags(app, flags.get());
  return Command{app, [flags] { return RunSchedule(*flags); }};
}

Command AddSimulateCommand(CLI::App& root) {
  auto flags = std::make_shared<ScheduleFlags>();
  CLI::App* app = root.add_subcommand("simulate", "Run scheduling cycles, applying each, until the state settles");
  app->footer("Exit status: 0 once the cycles ran; 1 on any error.");
  AddCommonFlags(app, flags.get());
  app->add_option("--cycles", flags->cycles, "Run exactly N cycles (default: until stable, at most 1000)")
      ->type_name("N")
      ->check(WholeNumber(1, 100000));
  return Command{app, [flags] { return RunSimulate(*flags); }};
}

}  // namespace charter::cli
