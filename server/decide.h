// One review decided: mapped (admission_review.h), its entities laid over
// the configured ones (PolicyState::EntitiesFor), decided by the engine and
// answered (AdmissionAnswer, AuthorizationAnswer, AdmissionRefusal). The
// server's /v1/admission and /v1/authorization call it for each request, and
// `charter admit` for each review it reads, so that the two answer alike by
// construction:
//
//   ReviewDecision d = DecideReview(ReviewKind::kAdmission, body, mapping, *state, answers);
//   if (d.outcome == ReviewDecision::kMalformed) -> HTTP 400 with d.error's message
//   else                                         -> d.answer (JSON, one line)
//
// Pure but for the engine: no I/O, no clock, no metrics, no log.
#ifndef CHARTER_SERVER_DECIDE_H_
#define CHARTER_SERVER_DECIDE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "admission_review.h"
#include "charter/decision.h"
#include "charter/entities.h"
#include "charter/request.h"
#include "enforcement.h"
#include "policy_state.h"

namespace charter::server {

enum class ReviewKind { kAdmission, kAuthorization };

struct ReviewDecision {
  enum Outcome {
    // Decided by the policies: `answer` is the review's answer.
    kDecided,
    // An admission review whose object asks for more than can be counted
    // (MappedReview::refused): denied before any policy is asked, `answer`
    // is AdmissionRefusal's, and `decision` holds the reason as an error of
    // the policy "(mapping)".
    kRefused,
    // Not a review that can be decided (malformed, the wrong kind, or an
    // admission review that maps to a request the schema refuses): `error`
    // says why, and the server answers 400 with its message. No answer.
    kMalformed,
  };
  Outcome outcome = kMalformed;
  absl::Status error;   // kMalformed
  MappedReview review;  // kDecided, kRefused
  Decision decision;    // kDecided, kRefused: what the answer says
  // What the rollout set aside (enforcement.h), and then the policies' own
  // decision (with every forbid enforced), which the decision log keeps.
  std::vector<Unenforced> unenforced;
  Decision policies;
  std::string answer;   // the answer's JSON, without a line break
  // What the engine decided with (kDecided, unless a SubjectAccessReview's
  // request did not read: then "no opinion" with the reason as an error of
  // "(mapping)"). The entities lie over the state's: they live no longer
  // than it.
  std::optional<Request> request;
  std::optional<Entities> entities;
};

// Decides the review `body` (JSON text) with `state`. A SubjectAccessReview
// that maps to a request the schema refuses is no opinion (kDecided, its
// reason in the answer's evaluationError), so that the apiserver asks its
// next authorizer; an AdmissionReview that does is kMalformed.
ReviewDecision DecideReview(ReviewKind kind, std::string_view body, const MappingOptions& mapping,
                            const PolicyState& state, const AnswerOptions& answers);

}  // namespace charter::server

#endif  // CHARTER_SERVER_DECIDE_H_
