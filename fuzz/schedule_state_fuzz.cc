// libFuzzer target for the scheduling state loaders (LoadState and
// LoadHyperPodState): any input loads or fails with "SOURCE:LINE:COL: message";
// a state that loads runs one cycle and its outcome applies, and both
// serialize. The loaders' quota-cell cap keeps every loaded state small
// enough to run.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "absl/status/status.h"

#include "charter/schedule.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "schedule_state_fuzz invariant failed: %s\n", what);
    std::abort();
  }
}

// "s:LINE:COL: " with LINE and COL positive decimal numbers.
bool HasLocation(std::string_view m) {
  if (m.substr(0, 2) != "s:") return false;
  size_t i = 2;
  for (int part = 0; part < 2; ++part) {
    const size_t start = i;
    while (i < m.size() && m[i] >= '0' && m[i] <= '9') ++i;
    if (i == start || m[start] == '0' || i >= m.size() || m[i] != ':') return false;
    ++i;
  }
  return i < m.size() && m[i] == ' ';
}

void Run(const absl::StatusOr<charter::schedule::State>& state) {
  if (!state.ok()) {
    Check(state.status().code() == absl::StatusCode::kInvalidArgument, "a load error is InvalidArgument");
    std::string_view m(state.status().message().data(), state.status().message().size());
    Check(HasLocation(m), "error reads SOURCE:LINE:COL: message");
    return;
  }
  // Keep hostile inputs cheap.
  if (state->pending.size() + state->admitted.size() > 200) return;
  absl::StatusOr<charter::schedule::CycleResult> result = charter::schedule::RunCycle(*state);
  Check(result.ok(), "a loaded state runs");
  Check(!result->ToJson().empty() && !result->ToText().empty(), "outcome serializes");
  absl::StatusOr<charter::schedule::State> next = charter::schedule::ApplyCycle(*state, *result);
  Check(next.ok(), "the outcome applies");
  Check(next->admitted.size() + next->pending.size() == state->admitted.size() + state->pending.size(),
        "no workload is lost");
  Check(charter::schedule::RunCycle(*next).ok(), "the next state runs");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  charter::schedule::LoadOptions options;
  options.source_name = "s";
  Run(charter::schedule::LoadState(input, options));
  Run(charter::schedule::LoadHyperPodState(input, options));
  return 0;
}
