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
// for people asking "why", not for the request path. The same machinery
// gives Coverage (what a series of requests exercised, for `charter test
// --coverage`) and EvaluateExpression (one expression's value, for the REPL).
#ifndef CHARTER_EXPLAIN_H_
#define CHARTER_EXPLAIN_H_

#include <cstddef>
#include <memory>
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
  size_t source = 0;         // the source its text is in (an index of those given to Explain)
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

struct CHARTER_API Explanation {
  Decision decision;
  std::vector<PolicyExplanation> policies;  // every policy, in policy-set order

  // {"decision", "reasons", "errors" (as Decision::ToJson), "policies": [{
  //   "id", "effect", "template"?, "outcome": "satisfied" | "not-satisfied" |
  //   "error" | "not-applicable", "determining", "source" (the index of the
  //   policy's source among those given to Explain), "line", "column",
  //   "scope"?, "clause"?: {"kind", "index", "line", "column"}, "error"?,
  //   "conditions": [{"expression", "value", "line", "column",
  //                   "saw": [{"expression", "value"}]}]}]}
  std::string ToJson() const;
  // For people: the decision, then each policy that applies with the source
  // lines of its deciding conditions underlined, then the policies that do
  // not apply. `source` (or `sources`) is the text given to Explain;
  // `color` adds ANSI colours (for a terminal). With several sources each
  // policy's place says its file.
  std::string ToText(const SourceFile& source, bool color = false) const;
  std::string ToText(const std::vector<SourceFile>& sources, bool color = false) const;
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
// The same over several sources read as one policy set, as Compile reads
// them (charter/compiler.h): each PolicyExplanation::source says which.
CHARTER_API absl::StatusOr<Explanation> Explain(const std::vector<SourceFile>& sources,
                                                const std::vector<TemplateLink>& links,
                                                const Request& request, const Entities& entities,
                                                const ExplainOptions& options = {});

// ---------------------------------------------------------------- coverage
//
// Which parts of a policy set a series of requests exercised: for `charter
// test --coverage`. Each request is decided as Explain decides it, and
// counted: per policy, how often its scope matched, it was satisfied, it
// determined the decision or it erred; per `when`/`unless` clause, how often
// its condition was true, false or failed; and the same for each
// sub-condition of a clause, the operands of its `&&`, `||`, `!` and
// `if-then-else` down to the first expression that is none of those.
//
//   absl::StatusOr<charter::Coverage> coverage = charter::Coverage::Create(source, {});
//   for (const charter::Request& r : requests) coverage->Record(r, entities);
//   for (const charter::PolicyCoverage& p : coverage->policies()) ...
//
// A condition is covered when it was seen both true and false. A Coverage
// accumulates: it is not thread-safe.

// How often a condition had each outcome.
struct ConditionCoverage {
  std::string expression;   // its source text
  SourceRange where;
  size_t true_count = 0;
  size_t false_count = 0;
  size_t error_count = 0;   // its evaluation failed, or gave no boolean
  bool covered() const { return true_count > 0 && false_count > 0; }
  bool evaluated() const { return true_count + false_count + error_count > 0; }
};

struct ClauseCoverage {
  bool when = true;          // false for `unless`
  ConditionCoverage condition;  // the body between the braces; `where` is the keyword
  // The sub-conditions, in source order; empty when the body is a single
  // condition (no `&&`, `||`, `!` or `if` at its top), which `condition` covers.
  std::vector<ConditionCoverage> conditions;
};

struct PolicyCoverage {
  std::string policy_id;
  std::string template_id;  // for a template-linked policy, its template
  bool forbid = false;
  SourceRange where;        // its `permit`/`forbid` keyword
  size_t applicable = 0;    // requests whose scope matched
  size_t satisfied = 0;
  size_t determining = 0;   // requests it was among the reasons of
  size_t errored = 0;
  std::vector<ClauseCoverage> clauses;
  // Among the reasons or the errors of some request (`charter test`'s
  // policy coverage).
  bool exercised() const { return determining > 0 || errored > 0; }
};

class CHARTER_API Coverage {
 public:
  // Reads the policies as Explain does; a fault in them is InvalidArgument.
  static absl::StatusOr<Coverage> Create(const SourceFile& policies,
                                         const std::vector<TemplateLink>& links,
                                         const CompileOptions& options = {});
  Coverage(Coverage&&) noexcept;
  Coverage& operator=(Coverage&&) noexcept;
  ~Coverage();

  // Decides the request (the decision is Explain's and the Engine's) and
  // counts what it exercised.
  Decision Record(const Request& request, const Entities& entities);

  size_t requests() const;
  const std::vector<PolicyCoverage>& policies() const;  // in policy-set order

  // {"requests": N, "policies": [{"id", "effect", "template"?, "line",
  //  "column", "applicable", "satisfied", "determining", "errors",
  //  "exercised", "clauses": [{"kind": "when"|"unless", "index", "line",
  //  "column", "expression", "true", "false", "errors", "covered",
  //  "conditions": [{"expression", "line", "column", "true", "false",
  //  "errors", "covered"}]}]}]}
  std::string ToJson() const;

 private:
  struct State;
  explicit Coverage(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// ---------------------------------------------------------------- expressions
//
// The value of one Cedar expression against entities and, optionally, a
// request: for tools that let people try expressions (`charter repl`).
//
//   charter::SourceFile e("<repl>", "User::\"alice\" in Team::\"ml\"");
//   absl::StatusOr<charter::ExpressionValue> v = charter::EvaluateExpression(e, &request, entities);
//   // v->ok, v->value == "true"

struct ExpressionValue {
  bool ok = false;
  std::string value;        // when ok: the value in Cedar's text form
  // When ok: the value in Cedar's JSON value encoding, as a request's
  // context or an entity's attributes are written: entities as
  // {"__entity": {"type", "id"}}, extension values as {"__extn": {"fn",
  // "arg"}}, sets as arrays, records as objects.
  std::string json;
  // When ok: the attribute names the value has, sorted: a record's keys, or
  // the attributes of an entity that the store has (for completion).
  std::vector<std::string> attributes;
  std::string error;        // otherwise: the evaluation error, as a Decision words it
  SourceRange error_where;  // and the sub-expression that failed
};

// Parses and evaluates `expression`. A syntax fault is InvalidArgument
// ("name:line:col: message" of the first; every fault goes to
// `diagnostics` when it is not null). Without a request (`request` null),
// an expression that names `principal`, `action`, `resource` or `context`
// fails to evaluate, at the first variable it names.
CHARTER_API absl::StatusOr<ExpressionValue> EvaluateExpression(const SourceFile& expression,
                                                               const Request* request,
                                                               const Entities& entities,
                                                               const CompileOptions& options = {},
                                                               Diagnostics* diagnostics = nullptr);

}  // namespace charter

#endif  // CHARTER_EXPLAIN_H_
