// One scheduling cycle through the public API (RunCycle on a State built in
// memory): Q cluster queues spread over C cohorts, each with two flavors of
// cpu and gpu quota, a few admitted workloads per queue and N pending
// workloads in all. Half the queues borrow, so the cycle does flavor
// assignment, borrowing and preemption searches. The target shape is
// 10,000 pending workloads in 100 queues under 3 cohorts. BM_Cycle runs the
// classical cycle over a grid of sizes; BM_CycleFairSharing the same states
// with fair sharing (the admission tournament and fair-sharing preemption).
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "charter/schedule.h"

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

}  // namespace
