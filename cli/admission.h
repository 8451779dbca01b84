// Deciding Kubernetes objects and reviews offline, as `charter serve`
// decides them: the server's policy state, mapping and answers
// (server/decide.h), loaded from a bundle or policy files. Shared by
// `charter admit` and the admission cases of `charter test`.
//
//   absl::StatusOr<Admission> a = LoadAdmission(setup);
//   absl::StatusOr<std::vector<AdmissionInput>> in = ReadAdmissionInputs("pod.yaml", text, Requester{});
//   server::ReviewDecision d = a->Decide((*in)[0]);
#ifndef CHARTER_CLI_ADMISSION_H_
#define CHARTER_CLI_ADMISSION_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "decide.h"
#include "object_review.h"
#include "policy_state.h"

namespace charter::cli {

struct AdmissionSetup {
  std::string bundle;                 // a bundle, or
  std::vector<std::string> policies;  // policy files, compiled with the schemas as `charter build` compiles them
  std::vector<std::string> schemas;   // read as one schema, in this order
  std::string entities;               // the configured entities' file (optional), or
  std::optional<std::string> entities_json;  // their text (named by `entities`)
  std::string config;                 // `charter serve --config` (optional): mapping, join, reasons, enforcement
  std::string enforcement;            // `charter serve --enforcement` (optional): over the configuration's
};

struct Admission {
  std::shared_ptr<const server::PolicyState> state;
  server::MappingOptions mapping;
  server::AnswerOptions answers;  // the configured reasons, the bundle's hash
};

// Loads what `charter serve` would serve with; faults one a line, each
// naming its file.
absl::StatusOr<Admission> LoadAdmission(const AdmissionSetup& setup);

// One review to decide, read from an input.
struct AdmissionInput {
  std::string where;  // "FILE:LINE:COL" of the object or review
  server::ReviewKind kind = server::ReviewKind::kAdmission;
  std::string body;   // the review's JSON
  bool wrapped = false;  // a plain object, wrapped as the review of its CREATE
  std::string label;     // "Pod hyperpod-ns-team-a/train" (for faults before it is mapped)
};

// The reviews of one input (YAML or JSON, `name` for messages): an
// AdmissionReview or SubjectAccessReview as it is; any other object (every
// item of a List) as the AdmissionReview of its CREATE by `who`.
absl::StatusOr<std::vector<AdmissionInput>> ReadAdmissionInputs(const std::string& name, std::string_view text,
                                                                const server::Requester& who);

// Decides one input, as the server's endpoint for its kind would.
server::ReviewDecision Decide(const Admission& admission, const AdmissionInput& input);

// A mapping message about a plain object, with the object's fields named
// as in its own file ("spec.containers[0]...", not
// "request.object.spec.containers[0]...").
std::string AboutObject(const AdmissionInput& input, std::string message);

// How the input was answered: "allowed", "denied", or "no opinion" (a
// SubjectAccessReview that no policy decided).
std::string_view Verdict(const AdmissionInput& input, const server::ReviewDecision& d);

// What was decided, for a line of text: "Pod hyperpod-ns-team-a/train",
// "UPDATE PyTorchJob ns/name", "create pods hyperpod-ns-team-a/ by
// Kubernetes::User::\"alice\"".
std::string Describe(const AdmissionInput& input, const server::ReviewDecision& d);

}  // namespace charter::cli

#endif  // CHARTER_CLI_ADMISSION_H_
