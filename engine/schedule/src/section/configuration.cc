// ReadConfiguration: the scheduling configuration an engine's bundle carries,
// read back (and verified) from its `scheduling` section (bundle_table.h).
#include <optional>
#include <string_view>
#include <utility>

#include "charter/engine.h"
#include "charter/schedule.h"
#include "common/strings.h"
#include "section/bundle_table.h"

namespace charter::schedule {

absl::StatusOr<std::optional<State>> ReadConfiguration(const Engine& engine) {
  std::optional<std::string_view> bytes = engine.section(internal::schedule::kSchedulingSection);
  if (!bytes.has_value()) return std::nullopt;
  absl::StatusOr<State> config = internal::schedule::ReadSchedulingSection(*bytes);
  if (!config.ok()) {
    return absl::InvalidArgumentError(internal::Cat("invalid bundle: ", config.status().message()));
  }
  return std::optional<State>(*std::move(config));
}

}  // namespace charter::schedule
