// Lowering: AST -> bytecode, written into a FlatBuffers bundle.
#ifndef CHARTER_COMPILE_LOWER_H_
#define CHARTER_COMPILE_LOWER_H_

#include <string>

#include "ast/ast.h"
#include "charter/diagnostics.h"

namespace charter::internal {

// Returns the bundle's bytes. Constructs the bytecode cannot express yet are
// diagnostics (code CH0200) with their spans; the result is then empty.
std::string LowerToBundle(const ast::PolicySet& set, const SourceFile& source,
                          Diagnostics* diagnostics);

}  // namespace charter::internal

#endif  // CHARTER_COMPILE_LOWER_H_
