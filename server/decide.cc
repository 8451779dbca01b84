// A review from its JSON text to its answer (decide.h).
#include "decide.h"

#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "charter/eval_context.h"
#include "charter_support/strings.h"
#include "enforcement.h"

namespace charter::server {
namespace {

using support::Cat;
using support::OneLine;
using support::S;

}  // namespace

ReviewDecision DecideReview(ReviewKind kind, std::string_view body, const MappingOptions& mapping,
                            const PolicyState& state, const AnswerOptions& answers) {
  const bool admission = kind == ReviewKind::kAdmission;
  ReviewDecision d;
  absl::StatusOr<MappedReview> review =
      admission ? MapAdmissionReview(body, mapping) : MapSubjectAccessReview(body, mapping);
  if (!review.ok()) {
    d.error = review.status();
    return d;
  }
  d.review = *std::move(review);
  if (!d.review.refused.empty()) {
    // A well-formed object asking for more than can be counted: denied, so
    // that no failure policy lets it through.
    d.outcome = ReviewDecision::kRefused;
    d.decision.errors.push_back(PolicyError{"(mapping)", OneLine(d.review.refused), {}});
    d.answer = AdmissionRefusal(d.review, answers);
    return d;
  }
  absl::StatusOr<Entities> entities = state.EntitiesFor(d.review);
  absl::StatusOr<Request> request =
      entities.ok() ? state.RequestFor(d.review) : absl::StatusOr<Request>(entities.status());
  if (!request.ok()) {
    if (admission) {
      d.error = absl::InvalidArgumentError(Cat("the review does not map to a request the policies accept: ",
                                               S(request.status().message())));
      return d;
    }
    // An authorizer that cannot read a request has no opinion on it; the
    // apiserver asks the next one.
    d.decision.errors.push_back(PolicyError{"(mapping)", OneLine(S(request.status().message())), {}});
  } else {
    EvalContext context;
    state.engine().Authorize(*request, *entities, &context);
    // The rollout's modes (enforcement.h): forbids not enforced set aside.
    d.decision = Enforce(context, state.enforcement(), admission, &d.unenforced);
    if (!d.unenforced.empty()) d.policies = context.ToDecision();
    d.request = *std::move(request);
    d.entities = *std::move(entities);
  }
  d.outcome = ReviewDecision::kDecided;
  d.answer = admission ? AdmissionAnswer(d.review, d.decision, answers, d.unenforced)
                       : AuthorizationAnswer(d.review, d.decision, answers);
  return d;
}

}  // namespace charter::server
