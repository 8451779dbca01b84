// Decision: the answer to one request. Cedar's semantics: deny by default;
// any satisfied forbid denies; otherwise any satisfied permit allows. A
// policy whose evaluation errs is skipped and reported in `errors`.
#ifndef CHARTER_DECISION_H_
#define CHARTER_DECISION_H_

#include <string>
#include <vector>

#include "charter/diagnostics.h"
#include "charter/export.h"

namespace charter {

struct PolicyError {
  std::string policy_id;
  std::string message;
  // Where the expression that failed is in the policy source: byte offsets,
  // as in a Diagnostic (SourceFile::PositionOf gives its line and column).
  // Empty (begin == end == 0) when unknown: a bundle without source spans.
  Span span;
};

struct CHARTER_API Decision {
  bool allowed = false;
  // The determining policies: the satisfied forbids when any is satisfied,
  // else the satisfied permits (empty on default deny), in policy-set order.
  std::vector<std::string> reasons;
  std::vector<PolicyError> errors;

  // {"decision":"allow"|"deny","reasons":[ids],"errors":[{"policy":id,"message":text}]}
  // (without the errors' spans: the object other Cedar tools give, and compare).
  std::string ToJson() const;
  // The same object, each error whose span is known also saying where it
  // happened: "begin" and "end", its byte offsets, then, given the policy
  // source the spans point into, the "line" and "column" (1-based) of begin.
  //   {"policy":id,"message":text,"begin":120,"end":139,"line":4,"column":18}
  std::string ToJsonWithPositions(const SourceFile* source = nullptr) const;
};

}  // namespace charter

#endif  // CHARTER_DECISION_H_
