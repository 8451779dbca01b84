// The governance example's requests (examples/governance/) decided with a
// reusable EvalContext, the allocation-free path: one iteration decides
// every request once; items are decisions.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/gen/workload.h"
#include "benchmark/benchmark.h"

#ifndef CHARTER_BENCH_SOURCE_DIR
#define CHARTER_BENCH_SOURCE_DIR "."  // run from the source tree
#endif
#include "charter/charter.h"

namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void BM_GovernanceEvalContext(benchmark::State& state) {
  std::string dir = std::string(CHARTER_BENCH_SOURCE_DIR) + "/examples/governance/";
  std::string text = Read(dir + "policies.cedar");
  charter::SourceFile source("policies.cedar", text);
  absl::StatusOr<charter::Bundle> bundle = charter::Compile(source, {}, nullptr);
  if (!bundle.ok()) return state.SkipWithError("compile failed");
  absl::StatusOr<charter::Engine> engine = charter::Engine::Create(*std::move(bundle));
  absl::StatusOr<charter::Entities> entities = charter::Entities::FromJson(Read(dir + "entities.json"));
  absl::StatusOr<std::vector<charter::Request>> requests =
      charter::Request::ArrayFromJson(Read(dir + "requests.json"));
  if (!engine.ok() || !entities.ok() || !requests.ok()) return state.SkipWithError("load failed");
  charter::EvalContext context;
  for (auto _ : state) {
    for (const charter::Request& r : *requests) {
      benchmark::DoNotOptimize(engine->Authorize(r, *entities, &context));
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(requests->size()));
}
BENCHMARK(BM_GovernanceEvalContext);

// The generated workloads (bench/gen) of N policies over 10,000 entities,
// decided with one reusable EvalContext: the path where the program's
// constants are bound to the entity store once (vm/vm.h StoreBinding).
void BM_GeneratedEvalContext(benchmark::State& state) {
  charter::bench::WorkloadOptions options;
  options.policies = static_cast<size_t>(state.range(0));
  options.requests = 200;
  charter::bench::Workload w = charter::bench::GenerateWorkload(options);
  charter::SourceFile source("generated.cedar", w.policies);
  absl::StatusOr<charter::Bundle> bundle = charter::Compile(source, {}, nullptr);
  if (!bundle.ok()) return state.SkipWithError("compile failed");
  absl::StatusOr<charter::Engine> engine = charter::Engine::Create(*std::move(bundle));
  absl::StatusOr<charter::Entities> entities = charter::Entities::FromJson(w.entities);
  absl::StatusOr<std::vector<charter::Request>> requests = charter::Request::ArrayFromJson(w.requests);
  if (!engine.ok() || !entities.ok() || !requests.ok()) return state.SkipWithError("load failed");
  charter::EvalContext context;
  for (auto _ : state) {
    for (const charter::Request& r : *requests) {
      benchmark::DoNotOptimize(engine->Authorize(r, *entities, &context));
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(requests->size()));
}
BENCHMARK(BM_GeneratedEvalContext)->Arg(10)->Arg(1000)->Arg(10000);

}  // namespace
