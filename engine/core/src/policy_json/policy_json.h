// Cedar's JSON policy format (the "EST" that `Policy::to_json` and
// cedar-wasm's `policyToJson` write) -> the AST the text parser builds.
//
// The input is either one policy
//
//   {"effect": "permit",
//    "principal": {"op": "==", "entity": {"type": "User", "id": "alice"}},
//    "action": {"op": "All"}, "resource": {"op": "All"},
//    "conditions": [{"kind": "when", "body": {"Value": true}}],
//    "annotations": {"id": "p1"}}
//
// (its id is annotations.id, else "policy0"), or a policy set
//
//   {"staticPolicies": {"p1": {...}}, "templates": {"t1": {...}},
//    "templateLinks": [{"templateId": "t1", "newId": "l1",
//                       "values": {"?principal": {"type": "User", "id": "a"}}}]}
//
// whose map keys are the ids. Both give the same trees as the equivalent
// policy text, so every later stage treats them alike.
#ifndef CHARTER_POLICY_JSON_POLICY_JSON_H_
#define CHARTER_POLICY_JSON_POLICY_JSON_H_

#include <vector>

#include "ast/ast.h"
#include "charter/compiler.h"
#include "charter/diagnostics.h"

namespace charter::internal {

// Reads a JSON policy or policy set. Every fault goes into `diagnostics`
// (codes CH03xx, see policy_json.cc); the returned set holds the policies and
// templates that read cleanly. Templates keep their slots; "templateLinks"
// entries whose template and bindings check out go to *links (if not null).
// A template without slots cannot be told from a policy in the AST, so it is
// not returned itself: each link to it becomes a copy of it under the link's
// id.
ast::PolicySet ParsePolicySetJson(const SourceFile& source, const CompileOptions& options,
                                  Diagnostics* diagnostics, std::vector<TemplateLink>* links);

}  // namespace charter::internal

#endif  // CHARTER_POLICY_JSON_POLICY_JSON_H_
