// Query: what a principal may do, and to what. A query is a request with one
// side unknown: the resource ("which tasks may alice view?") or the
// principal ("who may view task t1?"). Charter answers it two ways:
//
//   - by listing: every entity of the unknown's type in the store that the
//     request is allowed on, each with the policies that decided it. The
//     listing is brute-force authorization of each of them with the Engine,
//     so it is exactly what Engine::Authorize would answer one by one.
//
//       absl::StatusOr<charter::QueryRequest> q = charter::QueryRequest::ForResources(
//           {"User", "alice"}, {"Action", "viewTask"}, "Task");
//       absl::StatusOr<charter::ListPage> page = charter::ListAllowed(engine, *q, entities);
//       for (const charter::QueryMatch& m : page->matches) std::cout << m.uid.ToString() << "\n";
//
//   - by partial evaluation: the condition on the unknown's attributes,
//     ancestors and tags under which the request is allowed (a residual),
//     computed from the policy text with everything known folded away. A
//     residual is a filter to push into a database query or a Kubernetes
//     label selector, and it is exact: deciding the residual for any entity
//     of the type gives the decision Engine::Authorize gives (the
//     differential test of tests/tools/query checks it on generated policy sets).
//
//       absl::StatusOr<charter::PartialEvaluator> pe = charter::PartialEvaluator::Create(source, {});
//       absl::StatusOr<charter::Residual> r = pe->Evaluate(*q, entities);
//       std::cout << r->condition() << "\n";   // Group::"ml" in resource.namespace.team
//
// docs/query.md explains both, with the `charter query` command.
#ifndef CHARTER_QUERY_H_
#define CHARTER_QUERY_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "charter/compiler.h"
#include "charter/decision.h"
#include "charter/diagnostics.h"
#include "charter/engine.h"
#include "charter/entities.h"
#include "charter/eval_context.h"
#include "charter/export.h"
#include "charter/request.h"

namespace charter {

namespace internal {
class QueryUnwrap;  // query/query_unwrap.h
struct RequestData;
struct ResidualData;
struct PartialEvaluatorData;
}  // namespace internal

class Schema;

// ---------------------------------------------------------------- the query

class CHARTER_API QueryRequest {
 public:
  enum class Unknown : uint8_t { kResource, kPrincipal };

  // "Which entities of type `resource_type` may `principal` do `action` on?"
  // The context is a JSON object in Cedar's value encoding (empty text: no
  // context), read as Request::Create reads it. With a schema (which must
  // outlive the call) the action must be declared and apply to the
  // principal's type and to `resource_type`, and the context must conform to
  // it. Faults are InvalidArgument; those in the context start with
  // "SOURCE_NAME:LINE:COL: ".
  static absl::StatusOr<QueryRequest> ForResources(EntityUid principal, EntityUid action,
                                                   std::string resource_type,
                                                   std::string_view context_json = "",
                                                   const Schema* schema = nullptr,
                                                   std::string_view source_name = "context.json");
  // "Which entities of type `principal_type` may do `action` on `resource`?"
  static absl::StatusOr<QueryRequest> ForPrincipals(std::string principal_type, EntityUid action,
                                                    EntityUid resource,
                                                    std::string_view context_json = "",
                                                    const Schema* schema = nullptr,
                                                    std::string_view source_name = "context.json");

  Unknown unknown() const { return unknown_; }
  // The entity type of the unknown side.
  const std::string& unknown_type() const;
  // The known side, and the action. The unknown side's uid has the unknown
  // type and an empty id.
  const EntityUid& principal() const;
  const EntityUid& action() const;
  const EntityUid& resource() const;
  // Whether it was checked against a schema.
  bool schema_checked() const { return schema_checked_; }
  // The context as a Cedar record literal.
  std::string ContextToCedar() const;
  // The whole request, with `uid` (of any type) on the unknown side.
  Request With(const EntityUid& uid) const;

 private:
  friend class internal::QueryUnwrap;
  QueryRequest(std::shared_ptr<const internal::RequestData> data, Unknown unknown, bool schema_checked)
      : data_(std::move(data)), unknown_(unknown), schema_checked_(schema_checked) {}
  std::shared_ptr<const internal::RequestData> data_;
  Unknown unknown_ = Unknown::kResource;
  bool schema_checked_ = false;
};

// ---------------------------------------------------------------- listing
//
// The candidates are the entities of the unknown's type that the store
// holds data for (Entities::Uids), in the store's order. Faults in the query
// itself are InvalidArgument, worded for a person:
//   - the known side is not in the store;
//   - without a schema, no entity of the store has the unknown's type;
//   - without a schema, the action is neither in the store nor named by any
//     policy of the engine.

// One entity the request is allowed on.
struct QueryMatch {
  EntityUid uid;
  std::vector<std::string> reasons;   // the determining policies, as in Decision
  std::vector<PolicyError> errors;    // policies skipped on it
};

struct ListOptions {
  // Where to start among the candidates: 0, or a ListPage::next.
  size_t start = 0;
  // At most this many matches a page.
  size_t limit = std::numeric_limits<size_t>::max();
  // The checks above; false answers whatever is asked (a known side that
  // is not in the store is an entity without attributes or ancestors).
  bool check_query = true;
};

struct ListPage {
  std::vector<QueryMatch> matches;
  // The position to resume from (ListOptions::start) for the next page, or
  // 0 when every candidate has been examined.
  size_t next = 0;
  size_t examined = 0;  // candidates decided for this page
};

// Lists the allowed entities, a page at a time. The same entity store and
// query give the same pages.
CHARTER_API absl::StatusOr<ListPage> ListAllowed(const Engine& engine, const QueryRequest& query,
                                                 const Entities& entities, const ListOptions& options = {});

// One match as ForEachAllowed reports it: views that stay valid during the call.
struct QueryMatchView {
  std::string_view type;
  std::string_view id;
  std::span<const std::string_view> reasons;
  std::span<const PolicyErrorView> errors;
  EntityUid ToUid() const { return EntityUid{std::string(type), std::string(id)}; }
};

// Streams the allowed entities to `visit`, in the store's order from
// options.start (options.limit is not used), deciding them with `context`
// (a fresh one when null): once the context has grown, nothing is
// allocated per candidate. `visit` returns false to stop.
CHARTER_API absl::Status ForEachAllowed(const Engine& engine, const QueryRequest& query,
                                        const Entities& entities,
                                        absl::FunctionRef<bool(const QueryMatchView&)> visit,
                                        EvalContext* context = nullptr, const ListOptions& options = {});

// ---------------------------------------------------------------- residuals

// One policy that may still apply, with what remains of its scope and
// conditions once the known side, the action and the context are folded in:
// it is satisfied by an entity of the unknown's type exactly when
// `condition` evaluates to true for it (with the unknown as `resource`, or
// `principal`), skipped when it fails.
struct ResidualPolicy {
  std::string id;
  bool forbid = false;
  std::string condition;       // Cedar text; "true" when it holds for every entity of the type
  std::string condition_json;  // the same as Cedar's JSON expression (the EST of its policy format)
  bool may_error = true;       // false when evaluating it can never fail
  bool may_hold = true;        // false when it can only be false or fail (it never decides)
};

struct ResidualOptions {
  // Nesting of the evaluation, as the reference interpreter counts it;
  // deeper policies fail the call (InvalidArgument), never the stack.
  int max_depth = 2000;
  // The checks of ListAllowed; false answers whatever is asked.
  bool check_query = true;
};

class CHARTER_API Residual {
 public:
  enum class Outcome : uint8_t {
    kAllow,    // allowed on every entity of the type
    kDeny,     // denied on every entity of the type
    kDepends,  // allowed exactly where condition() holds
  };
  Outcome outcome() const;

  // The policies that may apply, in policy-set order; the others can never
  // be satisfied for an entity of the type and are left out.
  const std::vector<ResidualPolicy>& policies() const;
  // The policies that fail on every entity of the type (they are skipped),
  // as Decision::errors.
  const std::vector<PolicyError>& errors() const;

  // The request is allowed on an entity where this is true:
  //   (permit_1 || permit_2 ...) && !(forbid_1) && !(forbid_2) ...
  // over the policies that may hold, simplified ("true" or "false" when it
  // does not depend on the unknown). Where it evaluates without error its
  // answer is the decision; where it fails the decision is that of the
  // residual policies (an erring permit is skipped, an erring forbid does
  // not deny), so a filter that drops what fails never lets through what
  // is denied. exact() says that it cannot fail.
  const std::string& condition() const;
  const std::string& condition_json() const;
  bool exact() const;
  // The condition as a Kubernetes label selector over the unknown's tags
  // (its labels, in the standard model), when it reduces to equality and
  // set membership on them: "team=ml,tier in (gold,silver),!frozen". It
  // selects exactly the entities the request is allowed on, errors
  // included; "" (everything) when the outcome is kAllow; nullopt when
  // there is none (always for kDeny, which no selector expresses).
  const std::optional<std::string>& label_selector() const;

  // The residual policies as a Cedar policy set: text, and Cedar's JSON
  // policy format. Either, compiled and authorized for an entity of the
  // type, decides as the original policy set does.
  std::string PoliciesText() const;
  std::string PoliciesJson() const;
  // {"outcome": "allow"|"deny"|"depends", "unknown": "resource"|"principal",
  //  "type": T, "condition": text, "conditionJson": EST, "exact": bool,
  //  "labelSelector": text|null,
  //  "policies": [{"id", "effect", "condition", "conditionJson", "mayError"}],
  //  "errors": [{"policy", "message"}]}
  std::string ToJson() const;
  // For people: the outcome, the condition, the selector, the policies.
  std::string ToText() const;

  // The decision on the whole request with `uid` on the unknown side,
  // computed from the residual alone, against the entities it was computed
  // with: the decision Engine::Authorize gives for it, reasons and errors
  // included (the errors without their spans). `uid` must be of the
  // unknown's type.
  absl::StatusOr<Decision> Decide(const EntityUid& uid) const;
  // The combined condition for `uid`: true or false, or nullopt where it
  // fails (then Decide says what the policies decide).
  absl::StatusOr<std::optional<bool>> ConditionHolds(const EntityUid& uid) const;

 private:
  friend class PartialEvaluator;
  explicit Residual(std::shared_ptr<const internal::ResidualData> data) : data_(std::move(data)) {}
  std::shared_ptr<const internal::ResidualData> data_;
};

// The policy text read once, for any number of partial evaluations (a
// residual for one action of a 1,000-policy set costs well under a
// millisecond; docs/performance.md). Immutable and thread-safe.
class CHARTER_API PartialEvaluator {
 public:
  // Reads the policies as Compile and Explain do (text or Cedar's JSON
  // policy format, with `links` for templates); a fault is InvalidArgument.
  static absl::StatusOr<PartialEvaluator> Create(const SourceFile& policies,
                                                 const std::vector<TemplateLink>& links,
                                                 const CompileOptions& options = {});
  // The same over several sources, read as one policy set as Compile reads
  // them (charter/compiler.h).
  static absl::StatusOr<PartialEvaluator> Create(const std::vector<SourceFile>& sources,
                                                 const std::vector<TemplateLink>& links,
                                                 const CompileOptions& options = {});
  // The residual of `query` against `entities`. The query's faults are
  // those of ListAllowed (with "named by no policy" for the action).
  absl::StatusOr<Residual> Evaluate(const QueryRequest& query, const Entities& entities,
                                    const ResidualOptions& options = {}) const;
  size_t policy_count() const;

 private:
  explicit PartialEvaluator(std::shared_ptr<const internal::PartialEvaluatorData> data)
      : data_(std::move(data)) {}
  std::shared_ptr<const internal::PartialEvaluatorData> data_;
};

}  // namespace charter

#endif  // CHARTER_QUERY_H_
