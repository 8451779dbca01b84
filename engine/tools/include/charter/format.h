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
//
// Charter text (a `.charter` source, or CompileOptions::language) may hold
// scheduling declarations among its policies; they are printed in their
// place in the layout of schedule::PrintDeclarations (docs/scheduling.md):
//
//   flavor a100;
//   queue training { // the ML teams
//     cohort: "ml";
//     resources cpu, "nvidia.com/gpu" {
//       flavor a100 { cpu: 96; "nvidia.com/gpu": 8 borrow 4; }
//     }
//   }
//
// Before it returns, the formatter reads its output again and checks that it
// holds the same policies and declarations (spans aside) and the same
// comments in order. Text it cannot format whole is refused, never
// shortened: a CH0900 diagnostic at the construct, and InvalidArgument.
#ifndef CHARTER_FORMAT_H_
#define CHARTER_FORMAT_H_

#include <string>

#include "absl/status/statusor.h"
#include "charter/compiler.h"
#include "charter/diagnostics.h"
#include "charter/export.h"
#include "charter/schema.h"

namespace charter {

struct FormatOptions {
  int line_width = 80;
  int indent_width = 2;
  // Limits of the parse, as for Compile().
  CompileOptions parse;
  // Limits of the parse of a schema, as for Schema::Parse().
  SchemaOptions schema;
};

// Formats Cedar policy text or Charter text (not Cedar's JSON policy format,
// nor schemas: see FormatSchema() below). Text that does not parse, or that the formatter cannot keep
// whole (CH0900), is not formatted: its faults go to `diagnostics` (which may
// be null) and the result is InvalidArgument, as for Compile().
CHARTER_API absl::StatusOr<std::string> FormatPolicies(const SourceFile& source,
                                                       const FormatOptions& options,
                                                       Diagnostics* diagnostics);

// Formats Cedar's schema text (a `.cedarschema` file; not Cedar's JSON
// schema format, which is refused):
//
//   namespace Org {
//     // A person.
//     entity User in [Team] {
//       email: String,
//       manager?: User,  // absent for the head of the organization
//     };
//     action view appliesTo { principal: [User], resource: [Doc] };
//   }
//
// A namespace's body is indented; one declaration a line, each annotation on
// a line of its own; a record (an entity's shape, a common type, a context)
// and `appliesTo` on one line when they fit and otherwise one entry a line,
// each entry followed by a comma, the last one too. `appliesTo` that does not
// fit on the action's line goes on the next one, indented. A list broken
// over lines has no comma after its last item (Cedar's grammar allows none
// there). Lists of types are always bracketed (`in [Team]`); an entity's record is written without `=`;
// names, attribute keys and action names are bare or quoted as the source
// writes them; type names are kept as written (qualified or not); entries
// of `appliesTo` keep their order. Comments stay where they were, as for
// policies, and an empty line between declarations is kept. The output is
// read again and checked as FormatPolicies() checks its own (CH0900).
CHARTER_API absl::StatusOr<std::string> FormatSchema(const SourceFile& source,
                                                     const FormatOptions& options,
                                                     Diagnostics* diagnostics);

}  // namespace charter

#endif  // CHARTER_FORMAT_H_
