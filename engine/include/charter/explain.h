// Explain: why a request got its decision. For every policy whose scope
// matches the request it says whether the policy was satisfied, which `when`
// or `unless` clause decided it, and inside that clause which sub-conditions
// decided it, with the values they saw and their places in the source.
//
//   charter::SourceFile source("policies.cedar", text);
//   absl::StatusOr<charter::Explanation> why =
//       charter::Explain(source, {}, request, entities);
//   if (why.ok()) std::cout << why->ToText(source);
//
// Explain evaluates the policy text itself, with Charter's reference
// interpreter (the one the bytecode VM is tested against), so its decision
// is the Engine's; it costs far more than Engine::Authorize and is meant
// for people asking "why", not for the request path.
#ifndef CHARTER_EXPLAIN_H_
#define CHARTER_EXPLAIN_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "charter/compiler.h"
#include "charter/decision.h"
#include "charter/diagnostics.h"
#include "charter/entities.h"
#include "charter/export.h"
#include "charter/request.h"

namespace charter {

// A place in the policy text: its byte span and where it starts.
struct SourceRange {
  Span span;
  uint32_t line = 0;    // 1-based
  uint32_t column = 0;  // 1-based, in Unicode scalar values
};

// A sub-expression and the value it had, in Cedar's text form.
struct ExplainedValue {
  std::string expression;  // its source text
  std::string value;
  SourceRange where;
};

// A sub-condition that decided its clause: its value ("true", "false", or
// "error" for the one that failed) and the values it was computed from.
struct ExplainedCondition {
  std::string expression;
  std::string value;
  SourceRange where;
  std::vector<ExplainedValue> saw;
};

enum class PolicyOutcome {
  kSatisfied,     // scope matched, every clause held
  kNotSatisfied,  // scope matched, a clause did not hold
  kErrored,       // evaluation failed: the policy was skipped
  kNotApplicable, // a scope constraint did not match
};

struct PolicyExplanation {
  std::string policy_id;
  std::string template_id;  // for a template-linked policy, its template
  bool forbid = false;
  PolicyOutcome outcome = PolicyOutcome::kNotApplicable;
  bool determining = false;  // among Decision::reasons
  SourceRange where;         // its `permit`/`forbid` keyword (its template's, for a link)

  // kNotApplicable: "principal", "action" or "resource", and where that
  // constraint is.
  std::string scope;
  SourceRange scope_where;

  // kNotSatisfied and kErrored: the clause that decided (its index among the
  // policy's clauses, `when` or `unless`, and where it is).
  int clause = -1;
  bool clause_when = true;
  SourceRange clause_where;

  // The sub-conditions that decided, in evaluation order: for kNotSatisfied
  // those that made the clause fail; for kSatisfied those that made each
  // clause hold; for kErrored the expression that failed. At most
  // ExplainOptions::max_conditions; `more_conditions` counts the rest.
  std::vector<ExplainedCondition> conditions;
  size_t more_conditions = 0;
  std::string error;  // kErrored: the evaluation error
};

struct Explanation {
  Decision decision;
  std::vector<PolicyExplanation> policies;  // every policy, in policy-set order

  // {"decision", "reasons", "errors" (as Decision::ToJson), "policies": [{
  //   "id", "effect", "template"?, "outcome": "satisfied" | "not-satisfied" |
  //   "error" | "not-applicable", "determining", "line", "column",
  //   "scope"?, "clause"?: {"kind", "index", "line", "column"}, "error"?,
  //   "conditions": [{"expression", "value", "line", "column",
  //                   "saw": [{"expression", "value"}]}]}]}
  std::string ToJson() const;
  // For people: the decision, then each policy that applies with the source
  // lines of its deciding conditions underlined, then the policies that do
  // not apply. `source` is the text given to Explain; `color` adds ANSI
  // colours (for a terminal).
  std::string ToText(const SourceFile& source, bool color = false) const;
};

struct ExplainOptions {
  CompileOptions compile;
  size_t max_conditions = 16;  // per policy
  size_t max_values = 12;      // per condition
};

// Explains the decision on `request`. The policies are text or Cedar's JSON
// policy format, with `links` for templates, as for Compile; a fault in them
// is InvalidArgument, as from Compile.
CHARTER_API absl::StatusOr<Explanation> Explain(const SourceFile& policies,
                                                const std::vector<TemplateLink>& links,
                                                const Request& request, const Entities& entities,
                                                const ExplainOptions& options = {});

}  // namespace charter

#endif  // CHARTER_EXPLAIN_H_
