// Governance reviews over the standard model (stdlib/governance.cedarschema,
// docs/governance.md): the two questions a governance reviewer asks of the
// connections between projects and clusters, answered from the policies and
// the entity store.
//
//   - ReviewAccess: before a cluster is connected to a project, and whenever
//     the access path changes, who may do what through one connection:
//     every principal in the store that each action of each layer allows on
//     what the connection reaches, with the determining policies and the
//     memberships that grant it, and what the model forbids or finds
//     suspicious. Exact: each answer is Engine::Authorize's.
//
//       absl::StatusOr<charter::AccessReport> access =
//           charter::ReviewAccess(engine, entities, schema, connection, {.at = "2026-01-15"});
//       std::cout << access->ToText();
//
//   - Audit: through each connection's life, the review of every connection
//     contract: reviews due, owners missing or gone, changes since an
//     earlier snapshot that call for a review, connections to revoke. The
//     audit rules are Cedar policies (stdlib/audit.cedar), so that an
//     organization adds its own in the same language.
//
//       absl::StatusOr<charter::AuditRules> rules = charter::AuditRules::Standard(schema);
//       absl::StatusOr<charter::AuditReport> audit =
//           charter::Audit(schema, entities, &previous, {&*rules}, {.at = "2026-01-15"});
//
//   - RecordReview: writes a review into the connection's contract in the
//     entity file's text, leaving every other byte as it was.
#ifndef CHARTER_REVIEW_H_
#define CHARTER_REVIEW_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "charter/decision.h"
#include "charter/diagnostics.h"
#include "charter/engine.h"
#include "charter/entities.h"
#include "charter/export.h"
#include "charter/schema.h"

namespace charter {

// The standard model as shipped in stdlib/, built into the library: the
// schema (stdlib/governance.cedarschema) and the audit rules
// (stdlib/audit.cedar). Their source names are these paths.
CHARTER_API std::string_view StandardGovernanceSchemaText();
CHARTER_API std::string_view StandardAuditRulesText();
inline constexpr std::string_view kStandardGovernanceSchemaName = "stdlib/governance.cedarschema";
inline constexpr std::string_view kStandardAuditRulesName = "stdlib/audit.cedar";

// "sha256:" and the SHA-256 of `bytes` in hex: what `charter audit` prints of
// the entity file it read, and `charter audit record --expect` compares.
CHARTER_API std::string ContentFingerprint(std::string_view bytes);

// A date as the reviews take it: "YYYY-MM-DD", or any string Cedar's
// datetime() reads ("2026-01-15T09:00:00Z"). Milliseconds since the Unix
// epoch, or InvalidArgument "`TEXT` is not a date (YYYY-MM-DD): why".
CHARTER_API absl::StatusOr<int64_t> ParseReviewDate(std::string_view text);

// A connection named on a command line: `Governance::Connection::"vision/gpu-east"`,
// or only its id (`vision/gpu-east`), of the type `connection_type`.
CHARTER_API absl::StatusOr<EntityUid> ParseConnectionUid(
    std::string_view text, std::string_view connection_type = "Governance::Connection");

// ------------------------------------------------------------------- access

struct AccessOptions {
  // The date of the requests' `context.now`, as ParseReviewDate reads it.
  std::string at;
  // Context attributes of Bool type (`mfa`) are given this value.
  bool bool_context = true;
  // Decide every principal of each action's principal types, without
  // pruning: the brute force the exactness test compares with.
  bool brute_force = false;
};

// A principal allowed an action on a resource.
struct AccessGrant {
  EntityUid principal;
  std::vector<std::string> reasons;  // the determining permits
  // How the first determining permit reaches the principal: the principal,
  // then each group it is in up to the entity the permit names (`principal
  // in resource.namespace.team`: the team). Just the principal when the
  // permit names it itself (`resource.owner == principal`); empty when the
  // permit names no entity the principal must be in or be.
  std::vector<EntityUid> path;
};

// A principal that a permit grants the action to, refused by forbids.
struct AccessRefusal {
  EntityUid principal;
  std::vector<std::string> permits;  // the satisfied permits
  std::vector<std::string> forbids;  // the satisfied forbids that refuse it
};

// One action on one resource the connection reaches, with the context the
// requests were decided with.
struct AccessRow {
  std::string layer;  // the action's top group without "Actions": organization, project, cluster, workload
  EntityUid action;
  EntityUid resource;
  std::string context;       // a Cedar record literal (ToText)
  std::string context_json;  // the same in Cedar's JSON value form, entities as {"__entity": ...} (ToJson)
  std::vector<AccessGrant> allowed;
  std::vector<AccessRefusal> refused;
  // Policies that erred on some principal's request, each named once.
  std::vector<std::string> erring;
};

// What the governance model forbids or finds suspicious: each finding is of
// one of the kinds AccessFindingKinds lists, with that kind's severity.
struct AccessFinding {
  std::string kind;
  std::string severity;  // low, medium, high
  std::string message;
  std::optional<EntityUid> principal;
  EntityUid action;
};

// A kind of AccessFinding: its name, its severity (low, medium, high) and
// what it flags.
struct AccessFindingKind {
  std::string_view kind;
  std::string_view severity;
  std::string_view what;
};
// Every kind of finding ReviewAccess reports:
//   workload-identity-lifecycle  (high)    a workload identity allowed a cluster-lifecycle action
//   workload-identity-held-back  (medium)  a permit grants a workload identity a lifecycle
//                                          action; only a forbid refuses it
//   suspended-member             (high)    a suspended member allowed an action
//   identity-owner-suspended     (high)    an identity allowed an action whose owner is suspended
//   identity-owner-gone          (high)    ... whose owner is not in the store
//   outside-member               (medium)  a member of another project (or of none) allowed
//                                          an action on what the project's connection reaches
//   foreign-identity             (medium)  an identity of another cluster allowed an action
//   nobody                       (low)     an action nobody may perform on anything the
//                                          connection reaches
CHARTER_API std::span<const AccessFindingKind> AccessFindingKinds();

struct AccessReport {
  EntityUid connection;
  std::optional<EntityUid> project, cluster;  // when the store has them
  std::vector<EntityUid> namespaces;          // that the connection opens
  std::string at;                             // the date of context.now, as given
  std::vector<AccessRow> rows;                // by layer, action, resource
  std::vector<AccessFinding> findings;
  // Actions on what the connection reaches that were not reviewed, and why
  // (a required context attribute the review cannot fill).
  std::vector<std::string> skipped;
  // Requests a brute-force review would decide (every principal of the
  // action's principal types, for every row), and those decided: the rest
  // were ruled out by the policies' scopes and conditions.
  size_t combinations = 0;
  size_t decided = 0;

  // For people: the connection and what it reaches, then each layer's rows,
  // then the findings.
  std::string ToText() const;
  // {"connection", "project", "cluster", "namespaces", "at", "rows": [{"layer",
  //  "action", "resource", "context", "allowed": [{"principal", "reasons",
  //  "path"}], "refused": [{"principal", "permits", "forbids"}], "erring"}],
  //  "findings": [{"kind", "severity", "message", "principal"?, "action"}],
  //  "skipped", "combinations", "decided"}; entities as {"type": T, "id": I}.
  std::string ToJson() const;
  // A Graphviz digraph of the access path: principals, the groups they come
  // through and the resources, with an edge for each grant labelled with its
  // actions; findings in red.
  std::string ToDot() const;
};

// Reviews the access through `connection`. The engine's policies are
// decided against `entities`, which must conform to `schema` (read them with
// it); the schema's actions say which principals and resources each action
// takes and what its context holds. Actions in no group, and actions whose
// resource the connection does not reach, are not reviewed. NotFound when the
// store has no such connection; InvalidArgument for a bad date, or an engine
// compiled against another schema.
CHARTER_API absl::StatusOr<AccessReport> ReviewAccess(const Engine& engine, const Entities& entities,
                                                      const Schema& schema, const EntityUid& connection,
                                                      const AccessOptions& options);

// -------------------------------------------------------------------- audit

// One audit rule: a forbid on Action::"reviewConnection" with
//   @id("...")         its name
//   @severity("...")   low, medium or high
//   @message("...")    the finding; {context.PATH} and {resource.PATH} are
//                      replaced by those values (entities by their ids, sets
//                      as lists)
//   @revoke("...")     optional: the connection goes on the revoke list, for
//                      this reason
struct AuditRule {
  std::string id;
  std::string severity;
  std::string message;
  std::string revoke;  // empty: not a revoke rule
  std::string source;  // "file:line:col" of the rule
};

class CHARTER_API AuditRules {
 public:
  // Compiles audit rules validated against `schema` (which declares the
  // reviewConnection action and its AuditContext, as the standard model
  // does). Faults in the text go to `diagnostics` (may be null); a rule that
  // is no forbid, or lacks @id, @severity or @message, or has a severity
  // other than low, medium or high, is an InvalidArgument error
  // "file:line:col: message".
  static absl::StatusOr<AuditRules> Create(const SourceFile& rules, const Schema& schema,
                                           Diagnostics* diagnostics = nullptr);
  // The standard rules, stdlib/audit.cedar.
  static absl::StatusOr<AuditRules> Standard(const Schema& schema);

  const std::vector<AuditRule>& rules() const;

 private:
  friend struct AuditRulesAccess;
  struct Data;
  explicit AuditRules(std::shared_ptr<const Data> data);
  std::shared_ptr<const Data> data_;
};

struct AuditOptions {
  std::string at;          // "now", as ParseReviewDate reads it
  int64_t within_days = 30;  // a review due this soon is reported
  // For the report's header: the files the entities came from, and the
  // fingerprint of the current one (ContentFingerprint).
  std::string entities_name;
  std::string entities_fingerprint;
  std::string previous_name;
};

struct AuditFinding {
  std::string rule;
  std::string severity;
  std::string message;
  std::string revoke;  // the rule's @revoke reason; empty if none
};

// The last review a contract records.
struct AuditReview {
  std::string date;
  EntityUid by;
  std::string decision;
  std::string note;
};

struct AuditConnection {
  EntityUid uid;
  bool in_store = true;  // false: only namespaces name it
  std::optional<EntityUid> project, cluster;
  std::string last_reviewed;  // "" if never
  std::string review_date;    // "" when not in the store
  int64_t days_to_review = 0;
  std::string revoked;        // the date it was revoked; "" if it was not
  std::optional<AuditReview> last_review;
  std::vector<EntityUid> namespaces;
  std::vector<AuditFinding> findings;
  std::vector<PolicyError> errors;  // audit rules that erred on this connection
};

struct AuditReport {
  std::string at;
  int64_t within_days = 0;
  std::string entities_name, entities_fingerprint, previous_name;
  std::vector<AuditConnection> connections;  // the store's order; then those only namespaces name

  // The number of findings of `severity`, and whether any finding is at or
  // above it (low < medium < high).
  size_t Count(std::string_view severity) const;
  bool AnyAtLeast(std::string_view severity) const;

  // For people: a header, each connection with its review state and its
  // findings, then the revoke list.
  std::string ToText() const;
  // {"at", "within", "entities", "fingerprint", "previous"?, "counts": {"high",
  //  "medium", "low"}, "connections": [{"connection", "inStore", "project"?,
  //  "cluster"?, "lastReviewed"?, "reviewDate"?, "daysToReview"?, "revoked"?,
  //  "lastReview"?, "namespaces", "findings": [{"rule", "severity",
  //  "message", "revoke"?}], "errors"}], "revoke": [{"connection", "rules"}]}; entities
  //  as {"type": T, "id": I}.
  std::string ToJson() const;
};

// Audits every connection in `current` (and every connection a namespace
// names that the store lacks) against `previous` when it is not null: both
// must conform to `schema`. Each rule set is decided on each connection with
// the context the audit computes (stdlib/governance.cedarschema,
// AuditContext).
CHARTER_API absl::StatusOr<AuditReport> Audit(const Schema& schema, const Entities& current,
                                              const Entities* previous,
                                              const std::vector<const AuditRules*>& rules,
                                              const AuditOptions& options);

// ------------------------------------------------------------------- record

struct ReviewRecord {
  EntityUid connection;
  std::string decision;  // "keep" or "revoke"
  EntityUid by;          // a member of the store, not suspended
  std::string note;      // may be empty
  std::string at;        // the review's date
  std::string next;      // keep: the next review's date (default: a year after `at`)
};

// The entity file's text with the review written into the connection's
// contract: `lastReviewed` set to the review's date, the review added to
// `reviews`; for keep `reviewDate` set to the next date (and `revoked`
// removed: keeping a revoked connection reinstates it); for revoke `revoked`
// set to the review's date. Members are replaced where they are and added
// after the contract's last member, laid out as their neighbours are;
// nothing else changes. The text must conform to `schema`, and so does the
// result. InvalidArgument naming the fault otherwise.
CHARTER_API absl::StatusOr<std::string> RecordReview(std::string_view entities_json,
                                                     std::string_view source_name, const Schema& schema,
                                                     const ReviewRecord& record);

}  // namespace charter

#endif  // CHARTER_REVIEW_H_
