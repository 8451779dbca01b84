// LoadHyperPodState: HyperPod task governance objects into a State.
#include "absl/status/status.h"
#include "charter/schedule.h"

namespace charter::schedule {

absl::StatusOr<State> LoadHyperPodState(std::string_view, const LoadOptions&) {
  return absl::UnimplementedError("HyperPod input is not implemented yet");
}

}  // namespace charter::schedule
