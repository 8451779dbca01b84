// The bundle verifier: the FlatBuffers Verifier with explicit limits, then
// Charter's own table-driven pass over every instruction. Only a bundle that
// passes both can build an Engine.
#ifndef CHARTER_VERIFY_VERIFIER_H_
#define CHARTER_VERIFY_VERIFIER_H_

#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "charter/bundle_generated.h"
#include "charter/engine.h"
#include "charter/schedule.h"

namespace charter::internal {

// Verifies the bundle. Its scheduling configuration, if it has one, is
// read and checked too, and put in *scheduling (when not null): the model
// the verifier checked is the one the engine keeps.
absl::StatusOr<const fb::Bundle*> VerifyBundle(std::string_view bytes, const VerifyOptions& options,
                                               std::optional<::charter::schedule::State>* scheduling = nullptr);

}  // namespace charter::internal

#endif  // CHARTER_VERIFY_VERIFIER_H_
