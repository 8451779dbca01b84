// The bundle verifier: the FlatBuffers Verifier with explicit limits, then
// Charter's own table-driven pass over every instruction. Only a bundle that
// passes both can build an Engine.
#ifndef CHARTER_VERIFY_VERIFIER_H_
#define CHARTER_VERIFY_VERIFIER_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "charter/bundle_generated.h"
#include "charter/engine.h"

namespace charter::internal {

// Verifies the bundle. Its sections (the libraries' above the core) are
// checked for their names only: each owner verifies its section's bytes
// when it reads them.
absl::StatusOr<const fb::Bundle*> VerifyBundle(std::string_view bytes, const VerifyOptions& options);

}  // namespace charter::internal

#endif  // CHARTER_VERIFY_VERIFIER_H_
