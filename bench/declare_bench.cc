// Scheduling declarations (issue 16's target: loading the scheduling part of
// a bundle for 1,000 queues in under 1 ms).
//
//   BM_LoadSchedulingBundle/N   Engine::Create over a bundle of N queues
//                               (map, verify, read the Scheduling table)
//   BM_CompileDeclarations/N    charter::Compile of the .charter text
//
// The configuration: N queues in N/10 cohorts under one root, each queue
// with one resource group (cpu, memory, nvidia.com/gpu) over two flavors,
// preemption and a local queue.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "charter/charter.h"
#include "charter/schedule.h"

namespace {

std::string Declarations(int queues) {
  std::string out = "flavor \"a100\";\nflavor \"cpu-only\";\npriority_class \"high\": 100;\ncohort \"root\";\n";
  const int cohorts = queues / 10 > 0 ? queues / 10 : 1;
  for (int c = 0; c < cohorts; ++c) absl::StrAppend(&out, "cohort \"c", c, "\" { parent: \"root\"; }\n");
  for (int q = 0; q < queues; ++q) {
    absl::StrAppend(&out, "queue \"q", q, "\" {\n  cohort: \"c", q % cohorts, "\";\n",
                    "  preemption { within_queue: LowerPriority; reclaim_within_cohort: Any; }\n",
                    "  resources cpu, memory, \"nvidia.com/gpu\" {\n",
                    "    flavor \"a100\" { cpu: 96; memory: 768Gi; \"nvidia.com/gpu\": 8 borrow 4 lend 2; }\n",
                    "    flavor \"cpu-only\" { cpu: 500m; memory: 64Gi; \"nvidia.com/gpu\": 0; }\n  }\n",
                    "  local_queue \"ns", q, "/default\";\n}\n");
  }
  return out;
}

charter::Bundle MustCompile(const std::string& text) {
  std::vector<charter::SourceFile> sources{{"cluster.charter", text}};
  charter::CompileOptions options;
  options.declarations = &charter::schedule::Declarations();
  absl::StatusOr<charter::Bundle> bundle = charter::Compile(sources, {}, options, nullptr);
  if (!bundle.ok()) std::abort();
  return *std::move(bundle);
}

void BM_LoadSchedulingBundle(benchmark::State& st) {
  const charter::Bundle bundle = MustCompile(Declarations(static_cast<int>(st.range(0))));
  for (auto _ : st) {
    // Loading a bundle's configuration: the engine, then its section read
    // and verified (what the core did alone before the section was the
    // scheduling library's).
    absl::StatusOr<charter::Engine> engine = charter::Engine::Create(bundle);
    if (!engine.ok()) {
      st.SkipWithError("the bundle does not load");
      return;
    }
    absl::StatusOr<std::optional<charter::schedule::State>> config = charter::schedule::ReadConfiguration(*engine);
    if (!config.ok() || !config->has_value()) {
      st.SkipWithError("the bundle's configuration does not load");
      return;
    }
    benchmark::DoNotOptimize(*config);
  }
  st.counters["queues"] = static_cast<double>(st.range(0));
}

void BM_CompileDeclarations(benchmark::State& st) {
  const std::string text = Declarations(static_cast<int>(st.range(0)));
  for (auto _ : st) benchmark::DoNotOptimize(MustCompile(text));
  st.counters["queues"] = static_cast<double>(st.range(0));
}

}  // namespace

BENCHMARK(BM_LoadSchedulingBundle)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CompileDeclarations)->Arg(1000)->Unit(benchmark::kMillisecond);
