// charter/prove.h: the signatures a schema allows, one Z3 query per
// property and signature, and every counterexample replayed in the
// evaluator before it is returned.
#include "charter/prove.h"

#include <z3.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "charter/bundle.h"
#include "charter/compiler.h"
#include "charter/decision.h"
#include "charter/engine.h"
#include "charter/entities.h"
#include "charter/json.h"
#include "charter/request.h"
#include "charter/schema.h"
#include "charter_support/status_macros.h"
#include "charter_support/strings.h"
#include "common/arena.h"
#include "interp/interp.h"
#include "policy_set/policy_set.h"
#include "prove/encode.h"
#include "unwrap/unwrap.h"
#include "verify/verifier.h"

namespace charter {
namespace {

using internal::prove::Encoder;
using internal::prove::PolicyOutcome;
using internal::prove::PolicyRef;
using support::Cat;

// Counterexamples hold Longs in [-kSmallLong, kSmallLong] where they can.
constexpr int64_t kSmallLong = 1000;

// A Z3 context whose errors are recorded, never fatal (Z3's default
// handler exits the process).
void IgnoreZ3Error(Z3_context, Z3_error_code) {}

class Z3Context {
 public:
  Z3Context() {
    Z3_config cfg = Z3_mk_config();
    c_ = Z3_mk_context(cfg);
    Z3_del_config(cfg);
    Z3_set_error_handler(c_, IgnoreZ3Error);
  }
  ~Z3Context() { Z3_del_context(c_); }
  Z3Context(const Z3Context&) = delete;
  Z3Context& operator=(const Z3Context&) = delete;
  Z3_context get() const { return c_; }

 private:
  Z3_context c_;
};

// A policy set as the prover needs it: the ASTs to encode and the engine
// that replays counterexamples.
struct Loaded {
  std::vector<std::unique_ptr<internal::ast::PolicySet>> asts;
  std::vector<PolicyRef> refs;
  std::optional<Engine> engine;
  std::string outside;  // not empty: why every answer is unknown
};

absl::StatusOr<std::unique_ptr<Loaded>> Load(const std::vector<SourceFile>& sources, const Schema& schema) {
  auto out = std::make_unique<Loaded>();
  CompileOptions options;
  options.schema = &schema;
  std::vector<Diagnostics> diagnostics;
  ASSIGN_OR_RETURN(Bundle bundle, Compile(sources, {}, options, &diagnostics));
  ASSIGN_OR_RETURN(Engine engine, Engine::Create(std::move(bundle)));
  out->engine.emplace(std::move(engine));
  std::vector<TemplateLink> links;
  size_t next = 0;
  for (const SourceFile& source : sources) {
    Diagnostics read;  // none: Compile read the same text cleanly
    out->asts.push_back(std::make_unique<internal::ast::PolicySet>(
        internal::ReadPolicySource(source, CompileOptions{}, &read, next, &links)));
    next += out->asts.back()->policies.size();
    for (const internal::ast::Policy& p : out->asts.back()->policies) {
      // A template is no policy until it is linked.
      if (!p.is_template()) out->refs.push_back(PolicyRef{&p, &source});
    }
  }
  if (!links.empty()) out->outside = "template links are outside the encoding";
  return out;
}

// What a counterexample is replayed into: the decision of each set (by the
// engine), and for a policy property each policy's outcome (by the reference
// interpreter, which evaluates one policy alone).
struct Replay {
  Decision old_d, new_d;
  std::vector<internal::interp::Outcome> outcomes;  // of the old set's policies
};

struct Query {
  Z3_ast goal;  // satisfiable: the property fails
  // Whether the replay shows the failure.
  std::function<bool(const Replay&)> shows;
  std::string label;
};

// Outcome of one query: unsat (holds), a replayed counterexample, or unknown.
struct Solved {
  ProofResult result = ProofResult::kUnknown;
  std::string reason;
  std::optional<Counterexample> counterexample;
};

std::string_view OutcomeName(internal::interp::Outcome o) {
  switch (o) {
    case internal::interp::Outcome::kTrue: return "satisfied";
    case internal::interp::Outcome::kFalse: return "not-satisfied";
    case internal::interp::Outcome::kError: return "error";
  }
  return "error";
}

// Whether the set allows, from its policies' outcomes, leaving out `skip`.
bool AllowsWithout(const std::vector<PolicyRef>& refs, const std::vector<internal::interp::Outcome>& outcomes,
                   size_t skip) {
  bool permit = false, forbid = false;
  for (size_t i = 0; i < refs.size(); ++i) {
    if (i == skip || outcomes[i] != internal::interp::Outcome::kTrue) continue;
    (refs[i].policy->effect == internal::ast::Effect::kPermit ? permit : forbid) = true;
  }
  return permit && !forbid;
}

// `policy`: the index among the old set's policies of a policy property's
// policy, or npos.
// What every query of a signature shares beyond the axioms: the policies
// that restrict the requests asked about (ProveOptions::where), and the
// policies left out as outside the encoding (a sound over-approximation).
struct Scope {
  const Loaded* where = nullptr;
  std::vector<std::string> left_out;
};

std::string LeftOutText(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += Cat(out.empty() ? "" : ", ", "`", id, "`");
  return out;
}

Solved Solve(Z3_context c, Encoder& encoder, const std::vector<Z3_ast>& axioms, const Query& q,
             const Schema& schema, const Loaded& old_set, const Loaded* new_set, size_t policy,
             uint32_t timeout_ms, const Scope& scope) {
  Solved out;
  Z3_solver solver = Z3_mk_solver(c);
  Z3_solver_inc_ref(c, solver);
  Z3_params params = Z3_mk_params(c);
  Z3_params_inc_ref(c, params);
  Z3_params_set_uint(c, params, Z3_mk_string_symbol(c, "timeout"), timeout_ms);
  Z3_solver_set_params(c, solver, params);
  for (Z3_ast a : axioms) Z3_solver_assert(c, solver, a);
  Z3_solver_assert(c, solver, q.goal);
  Z3_lbool r = Z3_solver_check(c, solver);
  if (Z3_get_error_code(c) != Z3_OK) {
    out.reason = Cat("the solver failed: ", Z3_get_error_msg(c, Z3_get_error_code(c)));
  } else if (r == Z3_L_FALSE) {
    out.result = ProofResult::kHolds;
  } else if (r == Z3_L_UNDEF) {
    out.reason = Cat("the solver gave up (", Z3_solver_get_reason_unknown(c, solver), ") after at most ",
                     timeout_ms, " ms");
  } else {
    // Small numbers where the property fails with them too (a counterexample
    // easier to read, and one JavaScript's numbers carry exactly); else the
    // model found first.
    Z3_model m = Z3_solver_get_model(c, solver);
    Z3_model_inc_ref(c, m);
    Z3_solver_push(c, solver);
    Z3_solver_assert(c, solver, encoder.SmallLongs(kSmallLong));
    if (Z3_solver_check(c, solver) == Z3_L_TRUE && Z3_get_error_code(c) == Z3_OK) {
      Z3_model small = Z3_solver_get_model(c, solver);
      Z3_model_inc_ref(c, small);
      Z3_model_dec_ref(c, m);
      m = small;
    }
    Encoder::Rendered cx = encoder.Render(m);
    Z3_model_dec_ref(c, m);
    // The counterexample must load as the schema says and decide as claimed.
    absl::StatusOr<Entities> entities = Entities::FromJson(cx.entities_json, schema, "counterexample entities");
    absl::StatusOr<Request> request = Request::FromJson(cx.request_json, schema, "counterexample request");
    if (!entities.ok() || !request.ok()) {
      out.reason = Cat("the solver's counterexample is not valid for the schema (",
                       !entities.ok() ? entities.status().message() : request.status().message(),
                       "): the property is not proved either way");
    } else {
      Replay replay;
      replay.old_d = old_set.engine->Authorize(*request, *entities);
      replay.new_d = new_set != nullptr ? new_set->engine->Authorize(*request, *entities) : replay.old_d;
      bool consistent = true;
      if (policy != std::string::npos) {
        internal::EntityRef refs[3];
        internal::interp::Env env = internal::interp::MakeEnv(*request, *entities, refs);
        internal::Arena scratch;
        for (const PolicyRef& ref : old_set.refs) {
          internal::PolicyInstance instance;
          instance.id = ref.policy->id;
          instance.policy = ref.policy;
          replay.outcomes.push_back(internal::interp::EvaluatePolicy(instance, env, &scratch).outcome);
        }
        // The interpreter and the engine must agree on the set's decision.
        consistent = AllowsWithout(old_set.refs, replay.outcomes, std::string::npos) == replay.old_d.allowed;
      }
      // A restricted question's counterexample must be one of its requests.
      const bool inside = scope.where == nullptr || scope.where->engine->Authorize(*request, *entities).allowed;
      if (consistent && inside && !q.shows(replay) && !scope.left_out.empty()) {
        out.reason = Cat("the counterexample without ", LeftOutText(scope.left_out),
                         " (outside the encoding, left out) does not break it with them: the property is not "
                         "proved either way");
      } else if (!consistent || !inside || !q.shows(replay)) {
        out.reason = "the solver's counterexample does not decide as the encoding claimed: the property is not "
                     "proved either way";
      } else {
        out.result = ProofResult::kDoesNotHold;
        Counterexample ce;
        ce.entities_json = std::move(cx.entities_json);
        ce.request_json = std::move(cx.request_json);
        if (new_set != nullptr) {
          ce.decision_json = Cat("{\"old\":", replay.old_d.ToJson(), ",\"new\":", replay.new_d.ToJson(), "}");
        } else if (policy != std::string::npos) {
          // The set's decision, with the policy's outcome and the decision
          // the set would make without it.
          std::string d = replay.old_d.ToJson();
          d.pop_back();
          std::string id;
          AppendJsonQuoted(&id, old_set.refs[policy].policy->id);
          ce.decision_json = Cat(d, ",\"policy\":{\"id\":", id, ",\"outcome\":\"",
                                 OutcomeName(replay.outcomes[policy]), "\"},\"withoutPolicy\":\"",
                                 AllowsWithout(old_set.refs, replay.outcomes, policy) ? "allow" : "deny", "\"}");
        } else {
          ce.decision_json = replay.old_d.ToJson();
        }
        ce.label = q.label;
        out.counterexample = std::move(ce);
      }
    }
  }
  Z3_params_dec_ref(c, params);
  Z3_solver_dec_ref(c, solver);
  return out;
}

absl::StatusOr<std::vector<ProofSignature>> Signatures(const internal::SchemaModel& model,
                                                       const ProveOptions& options) {
  if (!options.principal_type.empty() && model.FindEntityType(options.principal_type) == nullptr) {
    return absl::InvalidArgumentError(Cat("the schema declares no entity type `", options.principal_type, "`"));
  }
  if (!options.resource_type.empty() && model.FindEntityType(options.resource_type) == nullptr) {
    return absl::InvalidArgumentError(Cat("the schema declares no entity type `", options.resource_type, "`"));
  }
  if (options.action && model.FindAction({options.action->type, options.action->id}) == nullptr) {
    return absl::InvalidArgumentError(Cat("the schema declares no action `", options.action->ToString(), "`"));
  }
  std::vector<ProofSignature> out;
  for (const auto& [key, info] : model.actions) {
    if (!info.applies) continue;
    if (options.action) {
      const internal::ActionKey asked{options.action->type, options.action->id};
      if (!(asked == key) && info.ancestors.count(asked) == 0) continue;
    }
    for (const std::string& p : info.principals) {
      if (!options.principal_type.empty() && p != options.principal_type) continue;
      for (const std::string& r : info.resources) {
        if (!options.resource_type.empty() && r != options.resource_type) continue;
        out.push_back(ProofSignature{p, EntityUid{key.type, key.id}, r});
      }
    }
  }
  if (out.empty()) {
    return absl::InvalidArgumentError("no request signature of the schema matches the principal type, action and "
                                      "resource type asked for");
  }
  return out;
}

using internal::interp::Outcome;

// The answer of a single-query property.
void FromSolved(const Solved& s, ProofAnswer* answer) {
  answer->result = s.result;
  answer->reason = s.reason;
  if (s.counterexample) answer->counterexamples.push_back(*s.counterexample);
}

// The queries of a set property (or a change), and the answer from them.
void AnswerSetProperty(ProofProperty property, Z3_context c, Encoder& encoder, const std::vector<Z3_ast>& axioms,
                       Z3_ast allow_old, Z3_ast allow_new, const Schema& schema, const Loaded& old_set,
                       const Loaded* new_set, const ProveOptions& options, const Scope& scope,
                       ProofAnswer* answer) {
  std::vector<Query> queries;
  auto shows_new = [](const Replay& r) { return r.new_d.allowed && !r.old_d.allowed; };
  auto shows_lost = [](const Replay& r) { return r.old_d.allowed && !r.new_d.allowed; };
  switch (property) {
    case ProofProperty::kAlwaysAllows:
      queries.push_back({Z3_mk_not(c, allow_old), [](const Replay& r) { return !r.old_d.allowed; }, ""});
      break;
    case ProofProperty::kAlwaysDenies:
      queries.push_back({allow_old, [](const Replay& r) { return r.old_d.allowed; }, ""});
      break;
    case ProofProperty::kImplies: {
      Z3_ast both[2] = {allow_new, Z3_mk_not(c, allow_old)};
      queries.push_back({Z3_mk_and(c, 2, both), shows_new, ""});
      break;
    }
    case ProofProperty::kEquivalent:
      queries.push_back({Z3_mk_not(c, Z3_mk_eq(c, allow_old, allow_new)),
                         [](const Replay& r) { return r.old_d.allowed != r.new_d.allowed; }, ""});
      break;
    case ProofProperty::kDisjoint: {
      Z3_ast both[2] = {allow_old, allow_new};
      queries.push_back(
          {Z3_mk_and(c, 2, both), [](const Replay& r) { return r.old_d.allowed && r.new_d.allowed; }, ""});
      break;
    }
    case ProofProperty::kCompare: {
      Z3_ast more[2] = {allow_new, Z3_mk_not(c, allow_old)};
      Z3_ast less[2] = {allow_old, Z3_mk_not(c, allow_new)};
      queries.push_back({Z3_mk_and(c, 2, more), shows_new, "more permissive"});
      queries.push_back({Z3_mk_and(c, 2, less), shows_lost, "less permissive"});
      break;
    }
    default: break;  // kNeverErrors: the caller's; policy properties: AnswerPolicyProperty
  }
  std::vector<Solved> solved;
  for (const Query& q : queries) {
    solved.push_back(
        Solve(c, encoder, axioms, q, schema, old_set, new_set, std::string::npos, options.timeout_ms, scope));
  }
  if (property != ProofProperty::kCompare) {
    FromSolved(solved[0], answer);
    return;
  }
  // holds: nothing more permissive. The verdict is the reason.
  const Solved& more = solved[0];
  const Solved& less = solved[1];
  for (const Solved* s : {&more, &less}) {
    if (s->counterexample) answer->counterexamples.push_back(*s->counterexample);
  }
  if (more.result == ProofResult::kUnknown) {
    answer->result = ProofResult::kUnknown;
    answer->reason = more.reason;
  } else if (more.result == ProofResult::kDoesNotHold) {
    answer->result = ProofResult::kDoesNotHold;
    answer->reason = less.result == ProofResult::kDoesNotHold ? "incomparable"
                     : less.result == ProofResult::kHolds
                         ? "more permissive"
                         : "more permissive (less permissive: unknown, " + less.reason + ")";
  } else {
    answer->result = ProofResult::kHolds;
    answer->reason = less.result == ProofResult::kDoesNotHold ? "less permissive"
                     : less.result == ProofResult::kHolds
                         ? "equivalent"
                         : "not more permissive (less permissive: unknown, " + less.reason + ")";
  }
}

// A policy property of the policy at `index` of the set.
void AnswerPolicyProperty(ProofProperty property, size_t index, Z3_context c, Encoder& encoder,
                          const std::vector<Z3_ast>& axioms, const std::vector<PolicyOutcome>& outcomes,
                          const Schema& schema, const Loaded& set, const ProveOptions& options, const Scope& scope,
                          ProofAnswer* answer) {
  const std::vector<PolicyRef>& refs = set.refs;
  const internal::ast::Effect effect = refs[index].policy->effect;
  Z3_ast matches = outcomes[index].satisfied;
  // Whether another policy of the effect, or a forbid, matches.
  Z3_ast others = Z3_mk_false(c), forbids = Z3_mk_false(c);
  for (size_t i = 0; i < refs.size(); ++i) {
    if (i == index) continue;
    Z3_ast two[2];
    if (refs[i].policy->effect == effect) {
      two[0] = others;
      two[1] = outcomes[i].satisfied;
      others = Z3_mk_or(c, 2, two);
    }
    if (refs[i].policy->effect == internal::ast::Effect::kForbid) {
      two[0] = forbids;
      two[1] = outcomes[i].satisfied;
      forbids = Z3_mk_or(c, 2, two);
    }
  }
  auto others_match = [&refs, index, effect](const Replay& r) {
    for (size_t i = 0; i < refs.size(); ++i) {
      if (i != index && refs[i].policy->effect == effect && r.outcomes[i] == Outcome::kTrue) return true;
    }
    return false;
  };
  auto solve = [&](Z3_ast goal, std::function<bool(const Replay&)> shows, std::string label) {
    return Solve(c, encoder, axioms, Query{goal, std::move(shows), std::move(label)}, schema, set, nullptr, index,
                 options.timeout_ms, scope);
  };
  auto and2 = [c](Z3_ast a, Z3_ast b) {
    Z3_ast two[2] = {a, b};
    return Z3_mk_and(c, 2, two);
  };
  switch (property) {
    case ProofProperty::kVacuous: {
      Solved hit = solve(matches, [index](const Replay& r) { return r.outcomes[index] == Outcome::kTrue; }, "matched");
      if (hit.result == ProofResult::kHolds) {
        answer->result = ProofResult::kHolds;
        answer->reason = "it matches no request of the signature, in any store";
        return;
      }
      Solved miss = solve(Z3_mk_not(c, matches),
                          [index](const Replay& r) { return r.outcomes[index] != Outcome::kTrue; }, "not matched");
      if (miss.result == ProofResult::kHolds) {
        answer->result = ProofResult::kHolds;
        answer->reason = "it matches every request of the signature, in every store";
        return;
      }
      if (hit.result == ProofResult::kUnknown || miss.result == ProofResult::kUnknown) {
        answer->result = ProofResult::kUnknown;
        answer->reason = hit.result == ProofResult::kUnknown ? hit.reason : miss.reason;
        return;
      }
      answer->result = ProofResult::kDoesNotHold;
      answer->reason = "it matches some requests and not others";
      answer->counterexamples.push_back(*hit.counterexample);
      answer->counterexamples.push_back(*miss.counterexample);
      return;
    }
    case ProofProperty::kShadowed:
      FromSolved(solve(and2(matches, Z3_mk_not(c, others)),
                       [index, others_match](const Replay& r) {
                         return r.outcomes[index] == Outcome::kTrue && !others_match(r);
                       },
                       ""),
                 answer);
      if (answer->result != ProofResult::kUnknown) {
        bool permit = effect == internal::ast::Effect::kPermit;
        answer->reason = answer->result == ProofResult::kHolds
                             ? (permit ? "whenever it matches, another permit matches too"
                                       : "whenever it matches, another forbid matches too")
                             : (permit ? "it matches a request no other permit matches"
                                       : "it matches a request no other forbid matches");
      }
      return;
    case ProofProperty::kOverridden:
      FromSolved(solve(and2(matches, Z3_mk_not(c, forbids)),
                       [index](const Replay& r) { return r.outcomes[index] == Outcome::kTrue && r.old_d.allowed; },
                       ""),
                 answer);
      if (answer->result != ProofResult::kUnknown) {
        answer->reason = answer->result == ProofResult::kHolds ? "whenever it matches, a forbid matches too"
                                                               : "it matches a request no forbid matches";
      }
      return;
    case ProofProperty::kRedundant: {
      std::vector<PolicyOutcome> without = outcomes;
      without[index].satisfied = Z3_mk_false(c);
      Z3_ast with_it = encoder.Allows(refs, outcomes), without_it = encoder.Allows(refs, without);
      FromSolved(solve(Z3_mk_not(c, Z3_mk_eq(c, with_it, without_it)),
                       [&refs, index](const Replay& r) {
                         return r.old_d.allowed != AllowsWithout(refs, r.outcomes, index);
                       },
                       ""),
                 answer);
      if (answer->result != ProofResult::kUnknown) {
        answer->reason = answer->result == ProofResult::kHolds ? "removing it changes no decision"
                                                               : "removing it changes the decision";
      }
      return;
    }
    default: return;
  }
}

// Which policies of each set may be left out when outside the encoding:
// those whose absence can only make the property harder to hold, so that
// "holds" stays sound (a forbid only denies: without it, more is allowed).
struct LeaveOut {
  std::optional<internal::ast::Effect> old_set, new_set;
};

LeaveOut LeaveOutFor(ProofProperty property) {
  using internal::ast::Effect;
  switch (property) {
    case ProofProperty::kAlwaysDenies: return {Effect::kForbid, std::nullopt};
    case ProofProperty::kAlwaysAllows: return {Effect::kPermit, std::nullopt};
    case ProofProperty::kImplies: return {Effect::kPermit, Effect::kForbid};
    case ProofProperty::kDisjoint: return {Effect::kForbid, Effect::kForbid};
    default: return {};
  }
}

absl::StatusOr<std::vector<ProofAnswer>> Run(ProofProperty property, const Loaded& old_set, const Loaded* new_set,
                                             const Loaded* where_set, const Schema& schema,
                                             const ProveOptions& options) {
  const internal::SchemaModel& model = internal::Unwrap::Model(schema);
  ASSIGN_OR_RETURN(std::vector<ProofSignature> signatures, Signatures(model, options));
  // A policy property's policies, by index in the set.
  std::vector<size_t> targets;
  const bool per_policy = IsPolicyProperty(property);
  if (per_policy) {
    for (size_t i = 0; i < old_set.refs.size(); ++i) {
      const internal::ast::Policy& p = *old_set.refs[i].policy;
      if (!options.policy_id.empty() && p.id != options.policy_id) continue;
      if (property == ProofProperty::kOverridden && p.effect != internal::ast::Effect::kPermit) {
        if (!options.policy_id.empty()) {
          return absl::InvalidArgumentError(
              Cat("`overridden` is a property of a permit; policy `", p.id, "` is a forbid"));
        }
        continue;
      }
      targets.push_back(i);
    }
    if (!options.policy_id.empty() && targets.empty()) {
      return absl::InvalidArgumentError(Cat("the policy set has no policy `", options.policy_id, "`"));
    }
  }
  std::vector<ProofAnswer> answers;
  std::vector<bool> answered(old_set.refs.size(), false);
  for (const ProofSignature& sig : signatures) {
    std::string outside = !old_set.outside.empty() ? old_set.outside : new_set != nullptr ? new_set->outside : "";
    Z3Context ctx;
    Z3_context c = ctx.get();
    Encoder encoder(c, model, sig, options.max_depth);
    // The policies this signature is about (a policy property: those whose
    // scope can match it).
    std::vector<size_t> here;
    for (size_t i : targets) {
      if (encoder.CanApply(*old_set.refs[i].policy)) here.push_back(i);
    }
    if (per_policy && here.empty()) continue;
    std::vector<ProofAnswer> sig_answers(per_policy ? here.size() : 1);
    for (size_t k = 0; k < sig_answers.size(); ++k) {
      sig_answers[k].signature = sig;
      if (per_policy) {
        sig_answers[k].policy = old_set.refs[here[k]].policy->id;
        answered[here[k]] = true;
      }
    }
    std::string unknown = outside;
    absl::StatusOr<std::vector<PolicyOutcome>> old_out = std::vector<PolicyOutcome>{};
    absl::StatusOr<std::vector<PolicyOutcome>> new_out = std::vector<PolicyOutcome>{};
    absl::StatusOr<std::vector<PolicyOutcome>> where_out = std::vector<PolicyOutcome>{};
    absl::StatusOr<std::vector<Z3_ast>> axioms = std::vector<Z3_ast>{};
    Scope scope;
    scope.where = where_set;
    if (unknown.empty() && where_set != nullptr && !where_set->outside.empty()) unknown = where_set->outside;
    if (unknown.empty()) {
      const LeaveOut leave = LeaveOutFor(property);
      old_out = encoder.EncodeSet(old_set.refs, leave.old_set, &scope.left_out);
      if (new_set != nullptr) new_out = encoder.EncodeSet(new_set->refs, leave.new_set, &scope.left_out);
      if (where_set != nullptr) where_out = encoder.EncodeSet(where_set->refs);
      if (old_out.ok() && new_out.ok() && where_out.ok()) axioms = encoder.Axioms();
      for (const absl::Status& s : {old_out.status(), new_out.status(), where_out.status(), axioms.status()}) {
        if (!s.ok() && s.code() != absl::StatusCode::kUnimplemented) return s;
        if (!s.ok() && unknown.empty()) unknown = std::string(s.message());
      }
      // Only the requests the `where` policies allow are asked about.
      if (unknown.empty() && where_set != nullptr) axioms->push_back(encoder.Allows(where_set->refs, *where_out));
    }
    for (size_t k = 0; k < sig_answers.size(); ++k) {
      ProofAnswer& answer = sig_answers[k];
      if (!unknown.empty()) {
        answer.reason = unknown;
      } else if (per_policy) {
        AnswerPolicyProperty(property, here[k], c, encoder, *axioms, *old_out, schema, old_set, options, scope,
                             &answer);
      } else if (property == ProofProperty::kNeverErrors) {
        FromSolved(Solve(c, encoder, *axioms,
                         Query{encoder.AnyError(*old_out), [](const Replay& r) { return !r.old_d.errors.empty(); }, ""},
                         schema, old_set, nullptr, std::string::npos, options.timeout_ms, scope),
                   &answer);
      } else {
        Z3_ast allow_old = encoder.Allows(old_set.refs, *old_out);
        Z3_ast allow_new = new_set != nullptr ? encoder.Allows(new_set->refs, *new_out) : allow_old;
        AnswerSetProperty(property, c, encoder, *axioms, allow_old, allow_new, schema, old_set, new_set, options,
                          scope, &answer);
      }
      if (answer.reason.empty()) {
        answer.reason = answer.result == ProofResult::kHolds ? "for every store and request of the signature"
                                                             : "the counterexample breaks it";
        if (answer.result == ProofResult::kHolds && !scope.left_out.empty()) {
          answer.reason += Cat(", even without ", LeftOutText(scope.left_out),
                               " (outside the encoding, left out: without them it can only be harder to hold)");
        }
      }
      answers.push_back(std::move(answer));
    }
  }
  // A policy whose scope matches no signature asked for: it matches nothing,
  // and removing it changes nothing.
  for (size_t i : targets) {
    if (answered[i]) continue;
    ProofAnswer answer;
    answer.policy = old_set.refs[i].policy->id;
    answer.result = ProofResult::kHolds;
    answer.reason = "its scope matches no request signature asked for";
    answers.push_back(std::move(answer));
  }
  return answers;
}

}  // namespace

std::string_view ProofResultName(ProofResult r) {
  switch (r) {
    case ProofResult::kHolds: return "holds";
    case ProofResult::kDoesNotHold: return "does-not-hold";
    case ProofResult::kUnknown: return "unknown";
  }
  return "unknown";
}

namespace {
constexpr std::pair<ProofProperty, std::string_view> kPropertyNames[] = {
    {ProofProperty::kAlwaysAllows, "always-allows"}, {ProofProperty::kAlwaysDenies, "always-denies"},
    {ProofProperty::kNeverErrors, "never-errors"},   {ProofProperty::kImplies, "implies"},
    {ProofProperty::kEquivalent, "equivalent"},      {ProofProperty::kCompare, "compare"},
    {ProofProperty::kDisjoint, "disjoint"},          {ProofProperty::kVacuous, "vacuous"},
    {ProofProperty::kShadowed, "shadowed"},          {ProofProperty::kRedundant, "redundant"},
    {ProofProperty::kOverridden, "overridden"},
};
}  // namespace

std::string_view ProofPropertyName(ProofProperty p) {
  for (const auto& [property, name] : kPropertyNames) {
    if (property == p) return name;
  }
  return "";
}

std::optional<ProofProperty> ProofPropertyFromName(std::string_view name) {
  for (const auto& [property, n] : kPropertyNames) {
    if (n == name) return property;
  }
  return std::nullopt;
}

bool IsTwoSetProperty(ProofProperty p) {
  return p == ProofProperty::kImplies || p == ProofProperty::kEquivalent || p == ProofProperty::kCompare ||
         p == ProofProperty::kDisjoint;
}

bool IsPolicyProperty(ProofProperty p) {
  return p == ProofProperty::kVacuous || p == ProofProperty::kShadowed || p == ProofProperty::kRedundant ||
         p == ProofProperty::kOverridden;
}

std::string ProofSignature::ToString() const {
  return Cat(principal_type, ", ", action.ToString(), ", ", resource_type);
}

absl::StatusOr<std::vector<ProofAnswer>> Prove(ProofProperty property, const std::vector<SourceFile>& policies,
                                               const Schema& schema, const ProveOptions& options) {
  if (IsTwoSetProperty(property)) {
    return absl::InvalidArgumentError(Cat("`", ProofPropertyName(property), "` compares two policy sets"));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Loaded> set, Load(policies, schema));
  std::unique_ptr<Loaded> where;
  if (!options.where.empty()) {
    ASSIGN_OR_RETURN(where, Load(options.where, schema));
  }
  return Run(property, *set, nullptr, where.get(), schema, options);
}

absl::StatusOr<std::vector<ProofAnswer>> ProveChange(ProofProperty property,
                                                     const std::vector<SourceFile>& old_policies,
                                                     const std::vector<SourceFile>& new_policies,
                                                     const Schema& schema, const ProveOptions& options) {
  if (!IsTwoSetProperty(property)) {
    return absl::InvalidArgumentError(Cat("`", ProofPropertyName(property), "` is a property of one policy set"));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Loaded> old_set, Load(old_policies, schema));
  ASSIGN_OR_RETURN(std::unique_ptr<Loaded> new_set, Load(new_policies, schema));
  std::unique_ptr<Loaded> where;
  if (!options.where.empty()) {
    ASSIGN_OR_RETURN(where, Load(options.where, schema));
  }
  return Run(property, *old_set, new_set.get(), where.get(), schema, options);
}

absl::StatusOr<std::vector<std::string>> BundleSources(const Bundle& bundle) {
  ASSIGN_OR_RETURN(const internal::fb::Bundle* root, internal::VerifyBundle(bundle.bytes(), VerifyOptions{}));
  std::vector<std::string> out;
  if (root->sources() != nullptr) {
    for (const flatbuffers::String* s : *root->sources()) out.push_back(s->str());
  }
  return out;
}

}  // namespace charter
