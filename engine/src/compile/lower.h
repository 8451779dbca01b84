// Lowering: AST -> bytecode, written into a FlatBuffers bundle.
#ifndef CHARTER_COMPILE_LOWER_H_
#define CHARTER_COMPILE_LOWER_H_

#include <string>

#include "ast/ast.h"
#include "charter/compiler.h"
#include "charter/diagnostics.h"
#include "absl/status/statusor.h"
#include <vector>

namespace charter::internal {

struct LowerOptions {
  // The policy set validated against a schema: emit typed code (no checks of
  // the types the validator proved) and record the schema's fingerprint.
  bool typed = false;
  std::string schema_fingerprint;
};

// Returns the bundle's bytes. Constructs the bytecode cannot express yet are
// diagnostics (code CH0200) with their spans; the result is then empty.
// Templates are lowered once per link, with the link's slot values. A link
// that does not fit its template is a Status error; faults in the text are
// diagnostics, and then the returned bytes are empty.
absl::StatusOr<std::string> LowerToBundle(const ast::PolicySet& set,
                                          const std::vector<TemplateLink>& links,
                                          const SourceFile& source, const LowerOptions& options,
                                          Diagnostics* diagnostics);

}  // namespace charter::internal

#endif  // CHARTER_COMPILE_LOWER_H_
