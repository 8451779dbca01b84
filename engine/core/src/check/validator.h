// Strict validation of a policy set against a schema, with the rules and
// results of Cedar's validator in strict mode.
#ifndef CHARTER_CHECK_VALIDATOR_H_
#define CHARTER_CHECK_VALIDATOR_H_

#include <string>
#include <vector>

#include "ast/ast.h"
#include "charter/diagnostics.h"
#include "policy_set/policy_set.h"
#include "schema/schema_model.h"

namespace charter::internal {

// Adds an error (CH0501 to CH0520) for every fault and a warning (CH0530,
// CH0531) for every policy that cannot apply to any request the schema
// allows. Each policy is type-checked once for every (principal type,
// action, resource type) the schema declares, as Cedar does.
//
// With `types`, each expression the checker gives a type is appended with
// that type's name, once for every request environment it was checked in
// (so an expression may come several times, with the same type or others).
struct TypedSpan {
  Span span;
  std::string type;
};
void ValidatePolicySet(const SchemaModel& schema, const ast::PolicySet& set,
                       Diagnostics* diagnostics, std::vector<TypedSpan>* types = nullptr);

// Validates each linked instance of `instances` as Cedar validates a
// template link: an error (CH0521) for each slot bound to an entity of a
// type the schema does not declare, and a warning (CH0530) when the linked
// scope applies to no action. The templates themselves are validated by
// ValidatePolicySet; static policies are skipped here.
void ValidateTemplateLinks(const SchemaModel& schema, const std::vector<PolicyInstance>& instances,
                           Diagnostics* diagnostics);

}  // namespace charter::internal

#endif  // CHARTER_CHECK_VALIDATOR_H_
