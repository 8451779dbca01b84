// The scheduling configuration in a bundle: the `scheduling` section
// (bundle.fbs's Section), whose bytes are a FlatBuffer of scheduling.fbs's
// `Scheduling` table. Written by the scheduling library's declarations
// compiler from the model, read back by ReadSchedulingSection, which checks
// it as it reads (the FlatBuffers Verifier, every index in range, then
// Kueue's rules of config_check.h), so that only a configuration LoadState
// would accept is ever used. The core keeps the section's bytes and never
// reads them.
#ifndef CHARTER_SECTION_BUNDLE_TABLE_H_
#define CHARTER_SECTION_BUNDLE_TABLE_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "charter/schedule.h"

namespace charter::internal::schedule {

// The name of the section.
inline constexpr std::string_view kSchedulingSection = "scheduling";

// The section's bytes for the configuration of `state` (its tables, not its
// workloads).
std::string WriteSchedulingSection(const ::charter::schedule::State& state);

// The configuration the section's bytes hold, as a State without workloads.
// Bytes that are not one are InvalidArgument saying what is wrong, as
// "scheduling: ..." (without the "invalid bundle: " a caller puts before it).
absl::StatusOr<::charter::schedule::State> ReadSchedulingSection(std::string_view bytes);

}  // namespace charter::internal::schedule

#endif  // CHARTER_SECTION_BUNDLE_TABLE_H_
