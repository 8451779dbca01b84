// Residuals as Kubernetes label selectors. The unknown's tags are its
// labels (the standard model maps a Kubernetes object's labels to its
// tags), and a residual that is a conjunction of tests on them becomes a
// selector that selects exactly the entities the request is allowed on:
//
//   permit when { resource.getTag("team") == "ml" && resource.hasTag("gpu") }
//   forbid when { ["frozen", "gone"].contains(resource.getTag("state")) }
//     -> team=ml,gpu,state notin (frozen,gone)
//
// Exactness, errors included: getTag on a missing tag fails, which skips a
// permit (the entity is not selected: `team=ml` needs the label) and skips a
// forbid (the entity stays: `state notin (...)`, like Kubernetes' `!=` and
// `notin`, selects objects without the label). A forbid becomes one
// requirement, so only forbids of one test reduce; permits reduce when one
// may apply. Anything else (disjunctions, other attributes, several
// permits, non-string values) has no selector.
#ifndef CHARTER_QUERY_LABEL_SELECTOR_H_
#define CHARTER_QUERY_LABEL_SELECTOR_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ast/ast.h"

namespace charter::internal::residual {

// A residual policy as the selector reads it: one that may hold.
struct SelectorInput {
  bool forbid = false;
  const ast::Expr* condition = nullptr;
};

// The selector of the policies (those that may hold, of a residual whose
// outcome depends on the unknown or allows it), or nullopt.
std::optional<std::string> LabelSelector(const std::vector<SelectorInput>& policies, ast::Var unknown);

// Kubernetes' semantics of a selector as LabelSelector writes it, over an
// object's labels: `labels` maps a key to its value, or to nullopt for a
// label whose value is no string (it equals no string). For tests.
bool SelectorMatches(std::string_view selector,
                     const std::map<std::string, std::optional<std::string>>& labels);

// Whether `key` and `value` are a valid Kubernetes label key and value.
bool ValidLabelKey(std::string_view key);
bool ValidLabelValue(std::string_view value);

}  // namespace charter::internal::residual

#endif  // CHARTER_QUERY_LABEL_SELECTOR_H_
