// The scheduling configuration in a bundle (bundle.fbs's `Scheduling`
// table): written by the compiler from the model, read back by the
// verifier, which checks it as it reads (every index in range, then Kueue's
// rules of config_check.h), so that only a configuration LoadState would
// accept reaches an Engine.
#ifndef CHARTER_ENGINE_SRC_SCHEDULE_BUNDLE_TABLE_H_
#define CHARTER_ENGINE_SRC_SCHEDULE_BUNDLE_TABLE_H_

#include "absl/status/statusor.h"
#include "charter/bundle_generated.h"
#include "charter/schedule.h"
#include "flatbuffers/flatbuffers.h"

namespace charter::internal::schedule {

// The configuration of `state` (its tables, not its workloads).
flatbuffers::Offset<fb::Scheduling> WriteSchedulingTable(flatbuffers::FlatBufferBuilder& fbb,
                                                         const ::charter::schedule::State& state);

// The configuration the table holds, as a State without workloads. A table
// that is not one is InvalidArgument saying what is wrong (without the
// "invalid bundle: " the verifier puts before it).
absl::StatusOr<::charter::schedule::State> ReadSchedulingTable(const fb::Scheduling& table);

}  // namespace charter::internal::schedule

#endif  // CHARTER_ENGINE_SRC_SCHEDULE_BUNDLE_TABLE_H_
