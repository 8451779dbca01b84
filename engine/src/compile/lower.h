// Lowering: AST -> bytecode, written into a FlatBuffers bundle.
#ifndef CHARTER_COMPILE_LOWER_H_
#define CHARTER_COMPILE_LOWER_H_

#include <string>

#include "absl/status/statusor.h"
#include "charter/diagnostics.h"
#include "policy_set/policy_set.h"

namespace charter::internal {

struct LowerOptions {
  // The policy set validated against a schema: emit typed code (no checks of
  // the types the validator proved) and record the schema's fingerprint.
  bool typed = false;
  std::string schema_fingerprint;
};

// Returns the bundle's bytes: one policy for each of the set's instances, a
// template once per link with the link's slot values. A policy too complex
// for the VM is a diagnostic (CH0201) with its span, and the returned bytes
// are then empty. A set whose templates did not link (`set.linked`) is that
// Status error.
absl::StatusOr<std::string> LowerToBundle(const PolicySet& set, const SourceFile& source,
                                          const LowerOptions& options, Diagnostics* diagnostics);

}  // namespace charter::internal

#endif  // CHARTER_COMPILE_LOWER_H_
