// In process, no HTTP: one AdmissionReview (the bare 8-GPU pod of
// tests/serve/reviews/) parsed and mapped, its entities joined, its request
// read, decided, and answered, as `charter serve` does for each review; and
// each step alone. Issue 18's target: under 10 µs for the whole.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "policy_state.h"
#include "admission_review.h"

namespace {

using charter::server::MappedReview;
using charter::server::PolicyState;

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Fixture {
  std::shared_ptr<const PolicyState> state;
  std::string review;
  charter::server::MappingOptions mapping;
  Fixture() {
    std::string root = CHARTER_SOURCE_DIR;
    std::string bundle = "/tmp/charter-review-bench.bundle";
    std::string cmd = "\"" CHARTER_BINARY "\" build --policies " + root + "/examples/webhook/policies.cedar --schema " +
                      root + "/stdlib/governance.cedarschema --schema " + root +
                      "/stdlib/kubernetes.cedarschema -o " + bundle;
    if (std::system(cmd.c_str()) != 0) std::abort();
    auto loaded = PolicyState::Load({bundle, root + "/examples/webhook/entities.json",
                                     {root + "/stdlib/governance.cedarschema", root + "/stdlib/kubernetes.cedarschema"}});
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s\n", std::string(loaded.status().message()).c_str());
      std::abort();
    }
    state = *loaded;
    review = Read(root + "/tests/serve/reviews/pod-create-bare-gpu.json");
  }
};

Fixture& F() {
  static Fixture* f = new Fixture();
  return *f;
}

void BM_Map(benchmark::State& s) {
  for (auto _ : s) benchmark::DoNotOptimize(charter::server::MapAdmissionReview(F().review, F().mapping));
}
BENCHMARK(BM_Map);

void BM_JoinEntities(benchmark::State& s) {
  MappedReview m = *charter::server::MapAdmissionReview(F().review, F().mapping);
  for (auto _ : s) benchmark::DoNotOptimize(F().state->EntitiesFor(m));
}
BENCHMARK(BM_JoinEntities);

void BM_ReadRequest(benchmark::State& s) {
  MappedReview m = *charter::server::MapAdmissionReview(F().review, F().mapping);
  for (auto _ : s) benchmark::DoNotOptimize(F().state->RequestFor(m));
}
BENCHMARK(BM_ReadRequest);

void BM_Decide(benchmark::State& s) {
  MappedReview m = *charter::server::MapAdmissionReview(F().review, F().mapping);
  auto entities = *F().state->EntitiesFor(m);
  auto request = *F().state->RequestFor(m);
  for (auto _ : s) benchmark::DoNotOptimize(F().state->engine().Authorize(request, entities));
}
BENCHMARK(BM_Decide);

// The whole review, as the server's handler does it (without HTTP).
void BM_Review(benchmark::State& s) {
  charter::server::AnswerOptions answers;
  answers.bundle_hash = F().state->bundle_hash();
  for (auto _ : s) {
    auto m = charter::server::MapAdmissionReview(F().review, F().mapping);
    auto entities = F().state->EntitiesFor(*m);
    auto request = F().state->RequestFor(*m);
    charter::Decision d = F().state->engine().Authorize(*request, *entities);
    benchmark::DoNotOptimize(charter::server::AdmissionAnswer(*m, d, answers));
  }
}
BENCHMARK(BM_Review);

}  // namespace
