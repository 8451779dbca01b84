// What explain reports about a place in the policy text: where it is, and
// its text on one line. Shared by the explanation, coverage, expression
// evaluation and rendering.
#ifndef CHARTER_EXPLAIN_SOURCE_TEXT_H_
#define CHARTER_EXPLAIN_SOURCE_TEXT_H_

#include <string>

#include "charter/diagnostics.h"
#include "charter/explain.h"

namespace charter::internal {

// The span with the line and column where it starts.
SourceRange RangeOf(const SourceFile& source, Span span);

// The source text of a span, with each run of whitespace made one space.
std::string TextOf(const SourceFile& source, Span span);

}  // namespace charter::internal

#endif  // CHARTER_EXPLAIN_SOURCE_TEXT_H_
