// Prove: properties of a policy set over every entity store and every
// request a schema allows, decided by an SMT solver (Z3) instead of by trying
// requests one by one. A property is asked of one request signature
// (principal type, action, resource type) at a time, or of every signature
// the schema's actions apply to:
//
//   absl::StatusOr<std::vector<charter::ProofAnswer>> answers = charter::Prove(
//       charter::ProofProperty::kAlwaysDenies, {policies}, {}, schema, {});
//   for (const charter::ProofAnswer& a : *answers)
//     std::cout << a.signature.ToString() << ": " << charter::ProofResultName(a.result) << "\n";
//
// Every answer is one of three: the property holds (for every store and
// request of the signature that the schema allows), it does not hold (with a
// counterexample: an entity store and a request in Cedar's JSON formats that
// the evaluator, Engine::Authorize, has decided as claimed before it is
// returned), or unknown, with the reason (a construct outside the encoding,
// named with its policy and position; a solver timeout). "Unknown" never
// passes as "holds". docs/proving.md says what the encoding covers.
//
// The prover lives in its own library, charter::prover (it links libz3), so
// that a program that only authorizes, or only uses the other tools, links
// no solver.
#ifndef CHARTER_PROVE_H_
#define CHARTER_PROVE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "charter/diagnostics.h"
#include "charter/entities.h"
#include "charter/export.h"

namespace charter {

class Bundle;
class Schema;

enum class ProofProperty : uint8_t {
  // One policy set.
  kAlwaysAllows,  // every request of the signature is allowed, in every store
  kAlwaysDenies,  // no request of the signature is allowed, in any store
  kNeverErrors,   // no policy's evaluation errs on any request, in any store
  // Two policy sets, old and new.
  kImplies,     // the new set allows only requests the old one allows (grants nothing new)
  kEquivalent,  // the two sets allow the same requests, in every store
  kCompare,     // classifies: equivalent, less or more permissive, or incomparable
  kDisjoint,    // no request is allowed by both sets, in any store
  // One policy of a set (ProveOptions::policy_id, or each in turn). A policy
  // "matches" a request when its scope and conditions are satisfied without
  // an error.
  kVacuous,     // it matches no request of the signature, or every one
  kShadowed,    // whenever it matches, another policy of its effect matches too
  kRedundant,   // removing it changes no decision (allow or deny)
  kOverridden,  // (a permit) whenever it matches, a forbid matches too
};

enum class ProofResult : uint8_t { kHolds, kDoesNotHold, kUnknown };

// "holds", "does-not-hold", "unknown".
CHARTER_API std::string_view ProofResultName(ProofResult r);
// The property's command-line name ("always-allows", ...), and back.
CHARTER_API std::string_view ProofPropertyName(ProofProperty p);
CHARTER_API std::optional<ProofProperty> ProofPropertyFromName(std::string_view name);
// Whether the property compares two policy sets.
CHARTER_API bool IsTwoSetProperty(ProofProperty p);
// Whether the property is of one policy of a set.
CHARTER_API bool IsPolicyProperty(ProofProperty p);

struct ProofSignature {
  std::string principal_type;
  EntityUid action;
  std::string resource_type;
  // `User, Action::"view", Photo`
  CHARTER_API std::string ToString() const;
};

// A store and a request on which the property fails, in Cedar's JSON
// formats (valid for the schema: Entities::FromJson and Request::FromJson
// with it accept them), and what the evaluator decided on them.
struct Counterexample {
  std::string entities_json;  // Cedar's entity format: an array
  std::string request_json;   // {"principal": "T::\"id\"", "action": ..., "resource": ..., "context": {...}}
  // Decision::ToJson() of the set (one set), or {"old": ..., "new": ...}.
  std::string decision_json;
  // For kCompare: "more permissive" or "less permissive"; for kVacuous:
  // "matched" or "not matched"; else empty.
  std::string label;
};

struct ProofAnswer {
  // Empty for a policy property whose policy's scope can match no signature
  // asked for (the answer is then about every one).
  ProofSignature signature;
  // For a policy property: the policy's id.
  std::string policy;
  ProofResult result = ProofResult::kUnknown;
  // Why: for unknown, the construct and where it is ("`like` in policy
  // `p3` at policies.cedar:4:7 is outside the encoding"), or the solver's
  // timeout; for kCompare, the verdict ("equivalent", "more permissive",
  // "less permissive", "incomparable"); otherwise a short sentence.
  std::string reason;
  // When the property does not hold (kCompare: one for each direction that
  // differs).
  std::vector<Counterexample> counterexamples;
};

struct ProveOptions {
  // Restrict the signatures (empty / unset: every one the schema allows).
  // `action` may be an action group: the actions in it (transitively) and
  // itself where it applies.
  std::string principal_type;
  std::optional<EntityUid> action;
  std::string resource_type;
  // Restrict the requests: when not empty, the property is asked only of the
  // requests (with their stores) that these policies allow, as a policy set
  // of their own (a `permit (principal, action, resource) when { C };` asks
  // it of the requests on which C is true without an error). They must be
  // inside the encoding (otherwise every answer is unknown), and a
  // counterexample is one they allow too.
  std::vector<SourceFile> where;
  // For a policy property: the policy (empty: each policy in turn; for
  // kOverridden, each permit).
  std::string policy_id;
  // Per solver query; a query that runs out is unknown.
  uint32_t timeout_ms = 10000;
  // Policy nesting deeper than this is unknown (the encoder recurses).
  uint32_t max_depth = 200;
};

// Proves `property` (one of the single-set ones, or a policy property) of the policies (Cedar
// policy text or Cedar's JSON policy format, as Compile reads them; they must
// validate against the schema) for each signature (a policy property: for
// each policy and each signature its scope can match). InvalidArgument for
// faults in the inputs (a policy that does not compile, a signature filter
// the schema does not have); the answers are in the schema's order.
CHARTER_API absl::StatusOr<std::vector<ProofAnswer>> Prove(ProofProperty property,
                                                           const std::vector<SourceFile>& policies,
                                                           const Schema& schema, const ProveOptions& options);

// The same for a two-set property: `old_policies` against `new_policies`.
CHARTER_API absl::StatusOr<std::vector<ProofAnswer>> ProveChange(ProofProperty property,
                                                                 const std::vector<SourceFile>& old_policies,
                                                                 const std::vector<SourceFile>& new_policies,
                                                                 const Schema& schema,
                                                                 const ProveOptions& options);

// The names of the policy sources a bundle was compiled from, in order (as
// `charter build` was given them). A bundle holds compiled code, not policy
// text: to prove a bundle's policies, read these sources, compile them as
// the bundle was compiled, and check that the bytes are the bundle's
// (`charter prove --bundle` does). InvalidArgument for a bundle that does
// not verify.
CHARTER_API absl::StatusOr<std::vector<std::string>> BundleSources(const Bundle& bundle);

}  // namespace charter

#endif  // CHARTER_PROVE_H_
