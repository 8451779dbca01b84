// Lowering: AST -> bytecode, written into a FlatBuffers bundle.
#ifndef CHARTER_COMPILE_LOWER_H_
#define CHARTER_COMPILE_LOWER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "charter/diagnostics.h"
#include "policy_set/policy_set.h"

namespace charter::internal {

struct LowerOptions {
  // The policy set validated against a schema: emit typed code (no checks of
  // the types the validator proved) and record the schema's fingerprint.
  bool typed = false;
  std::string schema_fingerprint;
  // The bundle's sections (name, bytes): what the libraries above the core
  // compiled from the sources' declarations (CompileOptions::declarations).
  std::vector<std::pair<std::string, std::string>> sections;
  // The bundle's limits (CompileOptions'): each is a diagnostic at the
  // clause or policy that crosses it (CH0202, CH0203, CH0205); CH0204 is
  // the bytecode's own limit on record shapes.
  size_t max_code_words = size_t{1} << 20;
  size_t max_policies = 1'000'000;
  size_t max_bundle_bytes = size_t{1} << 30;
  size_t max_bundle_tables = 10'000'000;
};

// Returns the bundle's bytes: one policy for each of the set's instances, a
// template once per link with the link's slot values. A policy too complex
// for the VM (CH0201), or past a limit of the bundle (CH0202 to CH0205), is
// a diagnostic with its span, and the returned bytes are then empty. A set whose templates did not link (`set.linked`) is that
// Status error.
absl::StatusOr<std::string> LowerToBundle(const PolicySet& set, const SourceFile& source,
                                          const LowerOptions& options, Diagnostics* diagnostics);

// The same for a set read from several sources: a policy's faults go to
// diagnostics[policy.source]; the bundle names every source.
absl::StatusOr<std::string> LowerToBundle(const PolicySet& set, const std::vector<const SourceFile*>& sources,
                                          const LowerOptions& options, const std::vector<Diagnostics*>& diagnostics);

}  // namespace charter::internal

#endif  // CHARTER_COMPILE_LOWER_H_
