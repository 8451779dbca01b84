// Decision: the answer to one request. Cedar's semantics: deny by default;
// any satisfied forbid denies; otherwise any satisfied permit allows. A
// policy whose evaluation errs is skipped and reported in `errors`.
#ifndef CHARTER_DECISION_H_
#define CHARTER_DECISION_H_

#include <string>
#include <vector>

#include "charter/export.h"

namespace charter {

struct PolicyError {
  std::string policy_id;
  std::string message;
};

struct CHARTER_API Decision {
  bool allowed = false;
  // The determining policies: the satisfied forbids when any is satisfied,
  // else the satisfied permits (empty on default deny), in policy-set order.
  std::vector<std::string> reasons;
  std::vector<PolicyError> errors;

  // {"decision":"allow"|"deny","reasons":[ids],"errors":[{"policy":id,"message":text}]}
  std::string ToJson() const;
};

}  // namespace charter

#endif  // CHARTER_DECISION_H_
