// The benchmarks behind the targets of issue 5 (docs/performance.md reports
// them; bench/perf/report.js runs them):
//   BM_GovernanceDecision         the governance example's requests, one decision an
//                                 iteration, with one reusable EvalContext
//   BM_GovernanceDecisionOwned    the same through Authorize's owning Decision
//   BM_PolicySetDecision/N        generated sets of N policies over 10,000 entities
//                                 (bench/gen/workload.h), one decision an iteration,
//                                 with one reusable EvalContext
//   BM_BundleLoadVerify/N         map a bundle file of N policies and verify it into an Engine
//   BM_Compile/N                  compile N policies of policy text into a bundle
//   BM_EntitiesFromJson/N         build the store of N entities from Cedar JSON (bytes/s)
// Each decision benchmark cycles through its requests, so the figure is the
// mean over the whole batch, with the entity store already built. They also
// report `allocs_per_decision`: this binary replaces the global operator new
// to count heap allocations (the target is zero in the steady state).
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/gen/workload.h"
#include "benchmark/benchmark.h"
#include "charter/charter.h"

namespace {
std::atomic<uint64_t> g_allocations{0};
}  // namespace

// Counting replacements of the global allocation functions (the aligned and
// nothrow forms forward to these in libstdc++).
void* operator new(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) { return operator new(size); }
// The replacements allocate with malloc, so free is the match; GCC cannot
// see that through the replaced operator new.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace {

struct Inputs {
  std::string error;  // empty when usable
  std::string policies_text;
  std::string entities_json;
  std::unique_ptr<charter::Bundle> bundle;
  std::unique_ptr<charter::Engine> engine;
  std::unique_ptr<charter::Entities> entities;
  std::vector<charter::Request> requests;
};

// Compiles, verifies and loads; records the first failure in `error`.
void Load(Inputs* in, const std::string& requests_json) {
  charter::SourceFile source("bench.cedar", in->policies_text);
  charter::Diagnostics diagnostics;
  absl::StatusOr<charter::Bundle> bundle = charter::Compile(source, {}, &diagnostics);
  if (!bundle.ok()) {
    in->error = absl::StrCat("compile: ", bundle.status().ToString());
    return;
  }
  in->bundle = std::make_unique<charter::Bundle>(*bundle);
  absl::StatusOr<charter::Engine> engine = charter::Engine::Create(*std::move(bundle));
  if (!engine.ok()) {
    in->error = absl::StrCat("engine: ", engine.status().ToString());
    return;
  }
  in->engine = std::make_unique<charter::Engine>(*std::move(engine));
  absl::StatusOr<charter::Entities> entities = charter::Entities::FromJson(in->entities_json);
  if (!entities.ok()) {
    in->error = absl::StrCat("entities: ", entities.status().ToString());
    return;
  }
  in->entities = std::make_unique<charter::Entities>(*std::move(entities));
  absl::StatusOr<std::vector<charter::Request>> requests =
      charter::Request::ArrayFromJson(requests_json);
  if (!requests.ok()) {
    in->error = absl::StrCat("requests: ", requests.status().ToString());
    return;
  }
  in->requests = *std::move(requests);
  if (in->requests.empty()) in->error = "no requests";
}

std::string ReadSourceFile(const std::string& relative, std::string* error) {
  std::ifstream f(std::string(CHARTER_SOURCE_DIR) + "/" + relative, std::ios::binary);
  if (!f) {
    *error = "cannot read " + relative;
    return "";
  }
  std::stringstream text;
  text << f.rdbuf();
  return text.str();
}

const Inputs& Governance() {
  static const Inputs* inputs = [] {
    auto* in = new Inputs;
    in->policies_text = ReadSourceFile("examples/governance/policies.cedar", &in->error);
    in->entities_json = ReadSourceFile("examples/governance/entities.json", &in->error);
    std::string requests = ReadSourceFile("examples/governance/requests.json", &in->error);
    if (in->error.empty()) Load(in, requests);
    return in;
  }();
  return *inputs;
}

// The generated workload of `policies` policies (10,000 entities, 1,000
// requests, seed 1: what `charter_workload --policies N` writes).
const Inputs& Generated(size_t policies) {
  static auto* cache = new std::map<size_t, std::unique_ptr<Inputs>>;
  std::unique_ptr<Inputs>& slot = (*cache)[policies];
  if (slot == nullptr) {
    slot = std::make_unique<Inputs>();
    charter::bench::Workload w = charter::bench::GenerateWorkload({.policies = policies});
    slot->policies_text = std::move(w.policies);
    slot->entities_json = std::move(w.entities);
    Load(slot.get(), w.requests);
  }
  return *slot;
}

bool Usable(benchmark::State& state, const Inputs& in) {
  if (in.error.empty()) return true;
  state.SkipWithError(in.error.c_str());
  return false;
}

enum class Path { kContext, kOwned };

void Decide(benchmark::State& state, const Inputs& in, Path path) {
  if (!Usable(state, in)) return;
  const size_t n = in.requests.size();
  size_t i = 0;
  size_t allowed = 0;
  size_t evaluated = 0;
  charter::EvalContext context;
  // One pass before counting: the context grows to the policy set and the
  // entity store (the steady state starts after it).
  for (const charter::Request& r : in.requests) in.engine->Authorize(r, *in.entities, &context);
  uint64_t allocations_before = g_allocations.load(std::memory_order_relaxed);
  if (path == Path::kContext) {
    for (auto _ : state) {
      bool allow = in.engine->Authorize(in.requests[i], *in.entities, &context);
      allowed += allow ? 1 : 0;
      evaluated += context.policies_evaluated();
      benchmark::DoNotOptimize(allow);
      if (++i == n) i = 0;
    }
  } else {
    for (auto _ : state) {
      charter::Decision decision = in.engine->Authorize(in.requests[i], *in.entities);
      allowed += decision.allowed ? 1 : 0;
      benchmark::DoNotOptimize(decision);
      if (++i == n) i = 0;
    }
  }
  uint64_t allocations = g_allocations.load(std::memory_order_relaxed) - allocations_before;
  state.SetItemsProcessed(state.iterations());
  state.counters["allocs_per_decision"] =
      state.iterations() ? static_cast<double>(allocations) / static_cast<double>(state.iterations())
                         : 0;
  state.counters["requests"] = static_cast<double>(n);
  state.counters["policies"] = static_cast<double>(in.engine->policy_count());
  state.counters["allow_share"] =
      state.iterations() ? static_cast<double>(allowed) / static_cast<double>(state.iterations()) : 0;
  if (path == Path::kContext) {
    state.counters["evaluated_per_decision"] =
        state.iterations()
            ? static_cast<double>(evaluated) / static_cast<double>(state.iterations())
            : 0;
  }
}

void BM_GovernanceDecision(benchmark::State& state) {
  Decide(state, Governance(), Path::kContext);
}
BENCHMARK(BM_GovernanceDecision);

void BM_GovernanceDecisionOwned(benchmark::State& state) {
  Decide(state, Governance(), Path::kOwned);
}
BENCHMARK(BM_GovernanceDecisionOwned);

void BM_PolicySetDecision(benchmark::State& state) {
  Decide(state, Generated(static_cast<size_t>(state.range(0))), Path::kContext);
}
BENCHMARK(BM_PolicySetDecision)->Arg(10)->Arg(1000)->Arg(10000);

void BM_BundleLoadVerify(benchmark::State& state) {
  const Inputs& in = Generated(static_cast<size_t>(state.range(0)));
  if (!Usable(state, in)) return;
  std::string path = absl::StrCat("/tmp/charter-bench-", getpid(), "-", state.range(0), ".bundle");
  if (absl::Status written = in.bundle->WriteFile(path); !written.ok()) {
    state.SkipWithError(written.ToString().c_str());
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<charter::Bundle> bundle = charter::Bundle::FromFile(path);
    absl::StatusOr<charter::Engine> engine =
        bundle.ok() ? charter::Engine::Create(*std::move(bundle)) : bundle.status();
    if (!engine.ok()) {
      state.SkipWithError(engine.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(engine);
  }
  state.counters["bundle_bytes"] = static_cast<double>(in.bundle->bytes().size());
  std::remove(path.c_str());
}
BENCHMARK(BM_BundleLoadVerify)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_Compile(benchmark::State& state) {
  const Inputs& in = Generated(static_cast<size_t>(state.range(0)));
  if (!Usable(state, in)) return;
  charter::SourceFile source("bench.cedar", in.policies_text);
  for (auto _ : state) {
    charter::Diagnostics diagnostics;
    absl::StatusOr<charter::Bundle> bundle = charter::Compile(source, {}, &diagnostics);
    if (!bundle.ok()) {
      state.SkipWithError(bundle.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(bundle);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(in.policies_text.size()));
}
BENCHMARK(BM_Compile)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_EntitiesFromJson(benchmark::State& state) {
  charter::bench::Workload w =
      charter::bench::GenerateWorkload({.entities = static_cast<size_t>(state.range(0))});
  for (auto _ : state) {
    absl::StatusOr<charter::Entities> entities = charter::Entities::FromJson(w.entities);
    if (!entities.ok()) {
      state.SkipWithError(entities.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(entities);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(w.entities.size()));
  state.counters["json_bytes"] = static_cast<double>(w.entities.size());
}
BENCHMARK(BM_EntitiesFromJson)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
