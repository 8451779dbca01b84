// The formatter (issue 31's target: `charter fmt` of a 10,000-policy file
// under 1 s). FormatPolicies parses, prints, and reads its output again to
// check it holds what the input held, so a run is two parses and a print.
//
//   BM_FormatPolicies/N      N generated governance policies (.cedar text,
//                            one a line, as bench/gen writes them)
//   BM_FormatDeclarations/N  N queues of scheduling declarations (.charter)
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/gen/workload.h"
#include "benchmark/benchmark.h"
#include "charter/format.h"

namespace {

void Run(benchmark::State& state, const std::string& name, const std::string& text) {
  charter::SourceFile source(name, text);
  for (auto _ : state) {
    absl::StatusOr<std::string> out = charter::FormatPolicies(source, {}, nullptr);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(out->data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}

void BM_FormatPolicies(benchmark::State& state) {
  charter::bench::WorkloadOptions options;
  options.policies = static_cast<size_t>(state.range(0));
  options.requests = 1;
  Run(state, "policies.cedar", charter::bench::GenerateWorkload(options).policies);
}
BENCHMARK(BM_FormatPolicies)->Arg(1'000)->Arg(10'000)->Unit(benchmark::kMillisecond);

void BM_FormatDeclarations(benchmark::State& state) {
  std::string text = "flavor \"a100\";\ncohort \"root\";\n";
  for (int64_t q = 0; q < state.range(0); ++q) {
    absl::StrAppend(&text, "queue \"q", q, "\" {\n  cohort: \"root\"; // its cohort\n",
                    "  resources cpu, memory {\n    flavor \"a100\" { cpu: 96 borrow 8; memory: 768Gi; }\n  }\n",
                    "  local_queue \"ns", q, "/default\";\n}\n");
  }
  Run(state, "cluster.charter", text);
}
BENCHMARK(BM_FormatDeclarations)->Arg(1'000)->Unit(benchmark::kMillisecond);

}  // namespace
