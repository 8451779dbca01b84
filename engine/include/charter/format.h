// The formatter: policy text in, the same policy set in canonical layout out.
//
//   charter::SourceFile source("policies.cedar", text);
//   charter::Diagnostics diagnostics;
//   absl::StatusOr<std::string> formatted =
//       charter::FormatPolicies(source, {}, &diagnostics);
//
// The output keeps every `//` comment (each where it was: above a policy,
// between clauses, inside an expression, or at the end of a line), parses to
// the same policies, and is a fixed point: formatting it again changes
// nothing. The layout follows Cedar's own formatter: one annotation a line,
// the scope on one line when it constrains nothing and one element a line
// otherwise, `when { ... }` on one line when it fits and
// `when\n{\n  ...\n}` otherwise, long `&&`/`||` chains one operand a line.
// Strings are written with canonical escapes, attributes as `.name` where
// the name allows it, and parentheses only where precedence needs them.
#ifndef CHARTER_FORMAT_H_
#define CHARTER_FORMAT_H_

#include <string>

#include "absl/status/statusor.h"
#include "charter/compiler.h"
#include "charter/diagnostics.h"
#include "charter/export.h"

namespace charter {

struct FormatOptions {
  int line_width = 80;
  int indent_width = 2;
  // Limits of the parse, as for Compile().
  CompileOptions parse;
};

// Formats Cedar policy text (not Cedar's JSON policy format). Text that does
// not parse is not formatted: its faults go to `diagnostics` (which may be
// null) and the result is InvalidArgument, as for Compile().
CHARTER_API absl::StatusOr<std::string> FormatPolicies(const SourceFile& source,
                                                       const FormatOptions& options,
                                                       Diagnostics* diagnostics);

}  // namespace charter

#endif  // CHARTER_FORMAT_H_
