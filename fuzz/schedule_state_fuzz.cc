// libFuzzer target for the scheduling state loader: any input loads or fails
// with "SOURCE:LINE:COL: message"; a state that loads runs one cycle and its
// outcome applies, and both serialize.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "charter/schedule.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "schedule_state_fuzz invariant failed: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  charter::schedule::LoadOptions options;
  options.source_name = "s";
  absl::StatusOr<charter::schedule::State> state = charter::schedule::LoadState(input, options);
  if (!state.ok()) {
    std::string_view m(state.status().message().data(), state.status().message().size());
    Check(m.substr(0, 2) == "s:", "error names the source");
    return 0;
  }
  // Keep hostile inputs cheap.
  if (state->pending.size() + state->admitted.size() > 200) return 0;
  absl::StatusOr<charter::schedule::CycleResult> result = charter::schedule::RunCycle(*state);
  Check(result.ok(), "a loaded state runs");
  Check(!result->ToJson().empty() && !result->ToText().empty(), "outcome serializes");
  absl::StatusOr<charter::schedule::State> next = charter::schedule::ApplyCycle(*state, *result);
  Check(next.ok(), "the outcome applies");
  Check(next->admitted.size() + next->pending.size() == state->admitted.size() + state->pending.size(),
        "no workload is lost");
  Check(charter::schedule::RunCycle(*next).ok(), "the next state runs");
  return 0;
}
