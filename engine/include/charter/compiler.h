// The compiler: policy text -> parse -> AST -> bytecode -> bundle.
//
//   charter::SourceFile source("policies.cedar", text);
//   charter::Diagnostics diagnostics;
//   absl::StatusOr<charter::Bundle> bundle =
//       charter::Compile(source, {}, &diagnostics);
//   if (!bundle.ok()) std::cerr << diagnostics.Render(source);
#ifndef CHARTER_COMPILER_H_
#define CHARTER_COMPILER_H_

#include <cstddef>

#include "absl/status/statusor.h"
#include "charter/bundle.h"
#include "charter/diagnostics.h"
#include "charter/export.h"

namespace charter {

struct CompileOptions {
  size_t max_source_bytes = size_t{64} << 20;
  // Nesting of brackets, braces, parentheses and `if` in one policy; deeper
  // input is a diagnostic, never a stack overflow.
  int max_nesting = 64;
  // Parsing stops collecting diagnostics after this many.
  size_t max_errors = 100;
};

// Compiles a policy set. Every fault in the text is added to `diagnostics`
// (which may be null); if there is any error the result is InvalidArgument
// whose message is the first diagnostic as "file:line:col: message".
CHARTER_API absl::StatusOr<Bundle> Compile(const SourceFile& source, const CompileOptions& options,
                                           Diagnostics* diagnostics);

}  // namespace charter

#endif  // CHARTER_COMPILER_H_
