// The mapping from Kubernetes reviews to Charter requests (docs/server.md,
// "The mapping"), over the Kubernetes schema (stdlib/kubernetes.cedarschema):
//
//   AdmissionReview (admission.k8s.io/v1)      -> principal Kubernetes::User or
//     Kubernetes::ServiceAccount (in its Kubernetes::Group entities), action
//     Kubernetes::Action::"CREATE" | "UPDATE" | "DELETE" | "CONNECT", resource the
//     object (Kubernetes::Pod, Job, PyTorchJob, Workload, or Object for any other
//     kind) with its labels as tags and the fields governance needs as attributes.
//   SubjectAccessReview (authorization.k8s.io/v1) -> the same principal, action the
//     verb (Kubernetes::Action::"get", "create", "delete", ...), resource a
//     Kubernetes::Resource or Kubernetes::NonResourceURL.
//
// A mapped review is the request's parts and the entities the review itself
// defines (principal, object), built in code (charter/value.h), plus the
// uids of the configured entities those refer to (groups, the namespace),
// which the server lays them over (PolicyState::EntitiesFor). Pure functions: no I/O, no state, so
// that the fuzz target and the in-process benchmark call them as the
// server does.
#ifndef CHARTER_SERVER_REVIEW_H_
#define CHARTER_SERVER_REVIEW_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "charter/decision.h"
#include "charter/entities.h"
#include "enforcement.h"

namespace charter::server {

// A Kubernetes name joined to an entity of the governance model (the
// configuration's `join`; docs/server.md, "Joining the governance model").
struct GovernanceJoin {
  EntityUid target;   // Governance::Member::"alice", Governance::Namespace::"..."
  std::string where;  // "config.json:12:7": where the configuration says so
};
struct GovernanceJoins {
  // A user name as the apiserver sends it (userInfo.username, spec.user;
  // "system:serviceaccount:NS:NAME" for a service account) -> the entity
  // the principal's attribute `governance` names. The mapping sets it.
  std::map<std::string, GovernanceJoin, std::less<>> users;
  // A namespace -> the entity its Kubernetes::Namespace's attribute
  // `governance` names. PolicyState::Load sets it on the configured
  // namespace, and checks every join against the schema and the entities.
  std::map<std::string, GovernanceJoin, std::less<>> namespaces;
  bool empty() const { return users.empty() && namespaces.empty(); }
};

// What the mapping reads from objects; set by the server's configuration.
struct MappingOptions {
  // Extended resources summed into an object's `gpus` attribute: distinct
  // names (LoadConfig refuses a repeated one, which would count twice).
  std::vector<std::string> accelerators = {"nvidia.com/gpu"};
  std::string queue_label = "kueue.x-k8s.io/queue-name";
  std::string priority_label = "kueue.x-k8s.io/priority-class";
  // Reviews nested deeper than this are refused (the JSON reader has its
  // own limit too).
  size_t max_pod_templates = 1000;
  GovernanceJoins join;
};

struct MappedReview {
  std::string uid;            // request.uid of an AdmissionReview; empty for a SAR
  // What the engine decides: the request's context (a record), the
  // review's principal entity, then its other entities (the object, its
  // annotations, the principal's Kubernetes::Extra). Empty when the review
  // is refused (`refused`): there is nothing to decide.
  Value context;
  std::vector<Entity> entities;  // [0] is the principal
  std::vector<EntityUid> joins;  // configured entities they refer to
  // The same in Cedar's JSON forms, for the decision log and for messages
  // (empty when refused): {"principal":...,"action":...,"resource":...,
  // "context":...}; the principal entity; the other entities joined by ",".
  std::string request_json() const;
  std::string principal_json() const;
  std::string entities_json() const;
  // For decision logs and messages.
  EntityUid principal, action, resource;
  std::string operation;      // "CREATE", ... ; the verb for a SAR
  std::string kind;           // the object's kind ("Pod"); the resource for a SAR
  std::string namespace_name, name;
  bool dry_run = false;
  // Why the object is denied before any policy is asked (it asks for more
  // than can be counted); empty for a review to decide.
  std::string refused;
};

// Fails with InvalidArgument, in words a cluster operator can act on, for
// anything but a well-formed review of the right kind and version. A
// well-formed object that asks for more than can be counted (a count, a
// quantity or their total over 2^31) maps as far as its name, with the
// reason in `refused`: it is to be denied (AdmissionRefusal), never wrapped.
absl::StatusOr<MappedReview> MapAdmissionReview(std::string_view body, const MappingOptions& options);
absl::StatusOr<MappedReview> MapSubjectAccessReview(std::string_view body, const MappingOptions& options);

// Messages for the answers: why a policy decided, by policy id (from the
// configuration); a policy without one is named by its id alone.
struct AnswerOptions {
  std::vector<std::pair<std::string, std::string>> reasons;  // policy id -> why
  std::string bundle_hash;                                   // "sha256:..."
};

// The AdmissionReview answer (admission.k8s.io/v1, response.uid echoing
// the request's). `unenforced` (Enforce's) are what would have denied it:
// warnings for those in warn mode when it is allowed, and the audit
// annotation `wouldDeny` naming them all.
std::string AdmissionAnswer(const MappedReview& review, const Decision& decision,
                            const AnswerOptions& options, const std::vector<Unenforced>& unenforced = {});
// The denial of a review whose object was refused (MappedReview::refused),
// with the reason in its message.
std::string AdmissionRefusal(const MappedReview& review, const AnswerOptions& options);
// Whether a forbid determined the decision: a SubjectAccessReview is
// denied only then; a deny for want of a permit is "no opinion", so that
// the apiserver asks its next authorizer.
inline bool ForbidDetermined(const Decision& decision) { return !decision.allowed && !decision.reasons.empty(); }

// The SubjectAccessReview answer: allowed when permitted; denied only when
// a forbid matched (no permit and no forbid is "no opinion").
std::string AuthorizationAnswer(const MappedReview& review, const Decision& decision,
                                const AnswerOptions& options);

}  // namespace charter::server

#endif  // CHARTER_SERVER_REVIEW_H_
