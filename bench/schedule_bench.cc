// One scheduling cycle through the public API (RunCycle on a State built in
// memory): Q cluster queues spread over C cohorts, each with two flavors of
// cpu and gpu quota, a few admitted workloads per queue and N pending
// workloads in all. Half the queues borrow, so the cycle does flavor
// assignment, borrowing and preemption searches. The issue's target shape is
// 10,000 pending workloads in 100 queues under 3 cohorts. BM_Cycle runs the
// classical cycle over a grid of sizes; BM_CycleFairSharing the same states
// with fair sharing (the admission tournament and fair-sharing preemption).
// BM_CycleWithRules and BM_CycleFairSharingWithRules run the same cycles
// with five scheduling rules (compiled against stdlib's schemas) that the
// cycle consults at every decision point (admit, borrow, preempt, evict)
// and that refuse nothing, so the outcome and the cycle's own work are
// those without rules: the difference is the rules' cost. Every workload has
// labels and an annotation for them to read.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "charter/charter.h"
#include "charter/schedule.h"
#include "charter/schema.h"

namespace {

using charter::schedule::ClusterQueue;
using charter::schedule::Cohort;
using charter::schedule::PodSet;
using charter::schedule::PreemptionPolicy;
using charter::schedule::Request;
using charter::schedule::ResourceGroup;
using charter::schedule::State;
using charter::schedule::Workload;

State Build(int pending, int queues, int cohorts, bool fair = false) {
  State s;
  s.engine.fair_sharing = fair;
  s.flavors = {"on-demand", "spot"};
  s.resources = {"cpu", "nvidia.com/gpu"};
  for (int c = 0; c < cohorts; ++c) s.cohorts.push_back(Cohort{absl::StrCat("cohort-", c), -1, {}, 1.0});
  for (int q = 0; q < queues; ++q) {
    ClusterQueue cq;
    cq.name = absl::StrCat("team-", q);
    cq.cohort = q % cohorts;
    cq.preemption.within_cluster_queue = PreemptionPolicy::kLowerPriority;
    cq.preemption.reclaim_within_cohort = PreemptionPolicy::kAny;
    ResourceGroup g;
    g.covered_resources = {0, 1};
    for (int f = 0; f < 2; ++f) {
      charter::schedule::FlavorQuotas fq;
      fq.flavor = f;
      fq.resources.push_back({0, 64000, std::nullopt, std::nullopt});
      fq.resources.push_back({1, 16, f == 0 ? std::optional<int64_t>(8) : std::nullopt, std::nullopt});
      g.flavors.push_back(fq);
    }
    cq.resource_groups.push_back(g);
    s.cluster_queues.push_back(std::move(cq));
  }
  auto workload = [&](const std::string& name, int q, int64_t prio, int64_t gpus, double t) {
    Workload w;
    w.name = name;
    w.uid = name;
    w.cluster_queue = q;
    w.priority = prio;
    w.created_at = t;
    PodSet ps;
    ps.name = "main";
    ps.count = gpus;
    ps.requests = {Request{0, 4000, -1}, Request{1, 1, -1}};
    w.pod_sets.push_back(ps);
    w.namespace_name = absl::StrCat("ns-", q);
    w.labels = {{"charter.dev/data-classification", "internal"},
                {"charter.dev/workload-type", prio % 2 == 0 ? "training" : "inference"},
                {"team", absl::StrCat("team-", q)}};
    w.annotations = {{"owner", "ml-platform"}};
    return w;
  };
  // Even queues hold 24 gpu on-demand (borrowing 8 of their 16), odd ones 8.
  for (int q = 0; q < queues; ++q) {
    for (int k = 0; k < 3; ++k) {
      Workload w = workload(absl::StrCat("admitted-", q, "-", k), q, k, q % 2 == 0 ? 8 : (k == 0 ? 8 : 0), -100 + k);
      for (Request& r : w.pod_sets[0].requests) r.flavor = 0;
      w.quota_reserved_at = -50 + k;
      if (w.pod_sets[0].count > 0) s.admitted.push_back(std::move(w));
    }
  }
  for (int i = 0; i < pending; ++i) {
    int q = i % queues;
    s.pending.push_back(workload(absl::StrCat("pending-", i), q, i % 5, 1 + (i * 7) % 12, -i));
  }
  return s;
}

void Run(benchmark::State& st, bool fair) {
  const State s = Build(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)), fair);
  for (auto _ : st) {
    absl::StatusOr<charter::schedule::CycleResult> r = charter::schedule::RunCycle(s);
    benchmark::DoNotOptimize(r);
  }
  st.counters["pending"] = static_cast<double>(st.range(0));
  st.counters["queues"] = static_cast<double>(st.range(1));
}

void BM_Cycle(benchmark::State& st) { Run(st, false); }
void BM_CycleFairSharing(benchmark::State& st) { Run(st, true); }

// Five rules asked at every decision point, each reading the workload's
// attributes, tags or entities; none refuses anything in these states.
constexpr const char* kRules = R"(
@id("restricted-data-stays-home") forbid (principal is Scheduling::Workload, action, resource)
  when { principal has dataClassification &&
         principal.dataClassification == Governance::DataClassification::"restricted" };
@id("no-negative-priorities") forbid (principal is Scheduling::Workload, action, resource)
  when { principal.priority < -1000 };
@id("held-workloads-wait") forbid (principal is Scheduling::Workload, action, resource)
  when { principal.hasTag("hold") && principal.getTag("hold") == "true" };
@id("owners-known") forbid (principal is Scheduling::Workload, action, resource)
  when { principal.annotations.hasTag("owner") && principal.annotations.getTag("owner") == "nobody" };
@id("gpu-jobs-in-queues") forbid (principal is Scheduling::Workload, action, resource)
  when { principal.requests.hasTag("nvidia.com/gpu") && principal.requests.getTag("nvidia.com/gpu") > 1000 &&
         principal.queue.name == "nowhere" };
)";

std::string ReadSource(const char* relative) {
  std::ifstream in(std::string(CHARTER_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

charter::schedule::SchedulingRules Rules() {
  charter::Diagnostics diagnostics;
  absl::StatusOr<charter::Schema> schema = charter::Schema::Parse(
      charter::SourceFile("stdlib", ReadSource("stdlib/governance.cedarschema") + "\n" +
                                        ReadSource("stdlib/scheduling.cedarschema")),
      {}, &diagnostics);
  if (!schema.ok()) std::abort();
  charter::CompileOptions options;
  options.schema = &*schema;
  absl::StatusOr<charter::Bundle> bundle = charter::Compile(charter::SourceFile("rules.cedar", kRules), options, &diagnostics);
  if (!bundle.ok()) std::abort();
  absl::StatusOr<charter::Engine> engine = charter::Engine::Create(*std::move(bundle));
  if (!engine.ok()) std::abort();
  absl::StatusOr<charter::schedule::SchedulingRules> rules = charter::schedule::SchedulingRules::Create({*engine});
  if (!rules.ok() || rules->rule_ids().size() != 5) std::abort();
  return *std::move(rules);
}

void RunWithRules(benchmark::State& st, bool fair) {
  const State s = Build(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)), fair);
  const charter::schedule::SchedulingRules rules = Rules();
  charter::schedule::CycleOptions options;
  options.rules = &rules;
  // The rules refuse nothing: the outcome is the one without them.
  absl::StatusOr<charter::schedule::CycleResult> plain = charter::schedule::RunCycle(s);
  absl::StatusOr<charter::schedule::CycleResult> with = charter::schedule::RunCycle(s, options);
  if (!plain.ok() || !with.ok() || plain->ToJson() != with->ToJson()) std::abort();
  for (auto _ : st) {
    absl::StatusOr<charter::schedule::CycleResult> r = charter::schedule::RunCycle(s, options);
    benchmark::DoNotOptimize(r);
  }
  st.counters["pending"] = static_cast<double>(st.range(0));
  st.counters["queues"] = static_cast<double>(st.range(1));
}

void BM_CycleWithRules(benchmark::State& st) { RunWithRules(st, false); }
void BM_CycleFairSharingWithRules(benchmark::State& st) { RunWithRules(st, true); }

// A rule set as a cluster's administrators would write it, of `count` rules
// (at least 6): stdlib/scheduling.cedar's four rules, a protected priority
// that is never evicted nor preempted, then per-team rules in turn: a cap
// on the GPUs a team's queue borrows (64, above what Build's queues reach)
// and a cap on the size of a
// job it admits (both scoped to the team's queue, so the scope index skips
// them for other queues), and a team whose SRE-owned workloads only its own
// queue may preempt (a `when` over the victim, asked at every preemption).
// In Build's states none refuses anything: the outcome is the one without
// rules, and the difference in time is what the rules cost.
std::string RuleSetText(int count, int queues) {
  std::string text = ReadSource("stdlib/scheduling.cedar");
  absl::StrAppend(&text, R"(
@id("protected-priority-never-evicted")
forbid (principal, action == Scheduling::Action::"evict", resource) when { principal.priority >= 1000000 };
@id("protected-priority-never-preempted")
forbid (principal, action == Scheduling::Action::"preempt", resource) when { resource.priority >= 1000000 };
)");
  for (int i = 0; i + 6 < count; ++i) {
    const std::string team = absl::StrCat("team-", (i / 3) % queues);
    switch (i % 3) {
      case 0:
        absl::StrAppend(&text, "@id(\"", team, "-gpu-borrow-cap\")\n",
                        "forbid (principal, action == Scheduling::Action::\"borrow\", resource == Scheduling::ClusterQueue::\"",
                        team, "\")\n  when { context.resource == \"nvidia.com/gpu\" && context.borrowed > 64 };\n");
        break;
      case 1:
        absl::StrAppend(&text, "@id(\"", team, "-job-size-cap\")\n",
                        "forbid (principal, action == Scheduling::Action::\"admit\", resource == Scheduling::ClusterQueue::\"",
                        team, "\")\n  when { principal.requests.hasTag(\"nvidia.com/gpu\") && ",
                        "principal.requests.getTag(\"nvidia.com/gpu\") > 64 };\n");
        break;
      default:
        absl::StrAppend(&text, "@id(\"", team, "-sre-workloads-stay\")\n",
                        "forbid (principal, action == Scheduling::Action::\"preempt\", resource)\n",
                        "  when { resource.queue.name == \"", team, "\" && resource.annotations.hasTag(\"owner\") && ",
                        "resource.annotations.getTag(\"owner\") == \"sre\" && principal.queue != resource.queue };\n");
        break;
    }
  }
  return text;
}

charter::schedule::SchedulingRules RuleSet(int count, int queues) {
  charter::Diagnostics diagnostics;
  absl::StatusOr<charter::Schema> schema = charter::Schema::Parse(
      charter::SourceFile("stdlib", ReadSource("stdlib/governance.cedarschema") + "\n" +
                                        ReadSource("stdlib/scheduling.cedarschema")),
      {}, &diagnostics);
  if (!schema.ok()) std::abort();
  charter::CompileOptions options;
  options.schema = &*schema;
  const charter::SourceFile source("rules.cedar", RuleSetText(count, queues));
  absl::StatusOr<charter::Bundle> bundle = charter::Compile(source, options, &diagnostics);
  if (!bundle.ok()) {
    std::fputs(diagnostics.Render(source).c_str(), stderr);
    std::abort();
  }
  absl::StatusOr<charter::Engine> engine = charter::Engine::Create(*std::move(bundle));
  if (!engine.ok()) std::abort();
  absl::StatusOr<charter::schedule::SchedulingRules> rules = charter::schedule::SchedulingRules::Create({*engine});
  if (!rules.ok() || rules->rule_ids().size() != static_cast<size_t>(count)) {
    std::fprintf(stderr, "%s: %zu rules\n", rules.status().ToString().c_str(), rules.ok() ? rules->rule_ids().size() : 0);
    std::abort();
  }
  return *std::move(rules);
}

// Args: pending, queues, cohorts, rules.
void BM_CycleWithRuleSet(benchmark::State& st) {
  const State s = Build(static_cast<int>(st.range(0)), static_cast<int>(st.range(1)), static_cast<int>(st.range(2)));
  const charter::schedule::SchedulingRules rules = RuleSet(static_cast<int>(st.range(3)), static_cast<int>(st.range(1)));
  charter::schedule::CycleOptions options;
  options.rules = &rules;
  absl::StatusOr<charter::schedule::CycleResult> plain = charter::schedule::RunCycle(s);
  absl::StatusOr<charter::schedule::CycleResult> with = charter::schedule::RunCycle(s, options);
  if (!plain.ok() || !with.ok() || plain->ToJson() != with->ToJson()) {
    std::fputs("the rule set changed the cycle's outcome\n", stderr);
    if (plain.ok() && with.ok()) {
      const std::string a = plain->ToJson(), b = with->ToJson();
      size_t i = 0;
      while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
      std::fprintf(stderr, "%s\n---\n%s\n", a.substr(i > 300 ? i - 300 : 0, 600).c_str(), b.substr(i > 300 ? i - 300 : 0, 600).c_str());
    }
    std::abort();
  }
  for (auto _ : st) {
    absl::StatusOr<charter::schedule::CycleResult> r = charter::schedule::RunCycle(s, options);
    benchmark::DoNotOptimize(r);
  }
  st.counters["pending"] = static_cast<double>(st.range(0));
  st.counters["queues"] = static_cast<double>(st.range(1));
  st.counters["rules"] = static_cast<double>(st.range(3));
}

// The target shape first, then pending workloads × queues.
void Grid(benchmark::internal::Benchmark* b) {
  b->Args({10000, 100, 3});
  for (int pending : {1000, 10000, 100000}) {
    for (int queues : {10, 100, 1000}) {
      if (pending != 10000 || queues != 100) b->Args({pending, queues, 3});
    }
  }
  b->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_Cycle)->Apply(Grid);
BENCHMARK(BM_CycleFairSharing)->Args({10000, 100, 3})->Args({10000, 1000, 3})->Args({100000, 1000, 3})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CycleWithRules)->Args({10000, 100, 3})->Args({10000, 1000, 3})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CycleFairSharingWithRules)->Args({10000, 100, 3})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CycleWithRuleSet)->Args({10000, 100, 3, 10})->Args({10000, 100, 3, 100})->Unit(benchmark::kMillisecond);

}  // namespace
