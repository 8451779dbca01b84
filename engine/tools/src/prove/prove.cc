// charter/prove.h: the signatures a schema allows, one Z3 query per
// property and signature, and every counterexample replayed in the
// evaluator before it is returned.
#include "charter/prove.h"

#include <z3.h>

#include <memory>
#include <utility>
#include <vector>

#include "charter/bundle.h"
#include "charter/compiler.h"
#include "charter/decision.h"
#include "charter/engine.h"
#include "charter/entities.h"
#include "charter/request.h"
#include "charter/schema.h"
#include "charter_support/status_macros.h"
#include "charter_support/strings.h"
#include "policy_set/policy_set.h"
#include "prove/encode.h"
#include "unwrap/unwrap.h"

namespace charter {
namespace {

using internal::prove::Encoder;
using internal::prove::PolicyOutcome;
using internal::prove::PolicyRef;
using support::Cat;

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

struct Query {
  Z3_ast goal;  // satisfiable: the property fails
  // Whether the decisions replayed show the failure.
  bool (*shows)(const Decision& old_d, const Decision& new_d);
  std::string label;
};

bool ShowsDenied(const Decision& d, const Decision&) { return !d.allowed; }
bool ShowsAllowed(const Decision& d, const Decision&) { return d.allowed; }
bool ShowsError(const Decision& d, const Decision&) { return !d.errors.empty(); }
bool ShowsNew(const Decision& o, const Decision& n) { return n.allowed && !o.allowed; }
bool ShowsLost(const Decision& o, const Decision& n) { return o.allowed && !n.allowed; }
bool ShowsDifferent(const Decision& o, const Decision& n) { return o.allowed != n.allowed; }

// Outcome of one query: unsat (holds), a replayed counterexample, or unknown.
struct Solved {
  ProofResult result = ProofResult::kUnknown;
  std::string reason;
  std::optional<Counterexample> counterexample;
};

Solved Solve(Z3_context c, Encoder& encoder, const std::vector<Z3_ast>& axioms, const Query& q,
             const Schema& schema, const Engine& old_engine, const Engine* new_engine, uint32_t timeout_ms) {
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
    Z3_model m = Z3_solver_get_model(c, solver);
    Z3_model_inc_ref(c, m);
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
      Decision old_d = old_engine.Authorize(*request, *entities);
      Decision new_d = new_engine != nullptr ? new_engine->Authorize(*request, *entities) : old_d;
      if (!q.shows(old_d, new_d)) {
        out.reason = "the solver's counterexample does not decide as the encoding claimed: the property is not "
                     "proved either way";
      } else {
        out.result = ProofResult::kDoesNotHold;
        Counterexample ce;
        ce.entities_json = std::move(cx.entities_json);
        ce.request_json = std::move(cx.request_json);
        ce.decision_json = new_engine != nullptr ? Cat("{\"old\":", old_d.ToJson(), ",\"new\":", new_d.ToJson(), "}")
                                                 : old_d.ToJson();
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
    if (options.action && !(options.action->type == key.type && options.action->id == key.id)) continue;
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

absl::StatusOr<std::vector<ProofAnswer>> Run(ProofProperty property, const Loaded& old_set, const Loaded* new_set,
                                             const Schema& schema, const ProveOptions& options) {
  const internal::SchemaModel& model = internal::Unwrap::Model(schema);
  ASSIGN_OR_RETURN(std::vector<ProofSignature> signatures, Signatures(model, options));
  std::vector<ProofAnswer> answers;
  for (const ProofSignature& sig : signatures) {
    ProofAnswer answer;
    answer.signature = sig;
    std::string outside = !old_set.outside.empty() ? old_set.outside : new_set != nullptr ? new_set->outside : "";
    if (!outside.empty()) {
      answer.reason = outside;
      answers.push_back(std::move(answer));
      continue;
    }
    Z3Context ctx;
    Z3_context c = ctx.get();
    Encoder encoder(c, model, sig, options.max_depth);
    absl::StatusOr<std::vector<PolicyOutcome>> old_out = encoder.EncodeSet(old_set.refs);
    absl::StatusOr<std::vector<PolicyOutcome>> new_out =
        new_set != nullptr ? encoder.EncodeSet(new_set->refs) : std::vector<PolicyOutcome>{};
    absl::StatusOr<std::vector<Z3_ast>> axioms =
        old_out.ok() && new_out.ok() ? encoder.Axioms() : absl::StatusOr<std::vector<Z3_ast>>(std::vector<Z3_ast>{});
    for (const absl::Status& s : {old_out.status(), new_out.status(), axioms.status()}) {
      if (!s.ok() && s.code() != absl::StatusCode::kUnimplemented) return s;
      if (!s.ok() && answer.reason.empty()) answer.reason = std::string(s.message());
    }
    if (!answer.reason.empty()) {
      answers.push_back(std::move(answer));
      continue;
    }
    Z3_ast allow_old = encoder.Allows(old_set.refs, *old_out);
    Z3_ast allow_new = new_set != nullptr ? encoder.Allows(new_set->refs, *new_out) : allow_old;
    std::vector<Query> queries;
    switch (property) {
      case ProofProperty::kAlwaysAllows: queries.push_back({Z3_mk_not(c, allow_old), ShowsDenied, ""}); break;
      case ProofProperty::kAlwaysDenies: queries.push_back({allow_old, ShowsAllowed, ""}); break;
      case ProofProperty::kNeverErrors: queries.push_back({encoder.AnyError(*old_out), ShowsError, ""}); break;
      case ProofProperty::kImplies: {
        Z3_ast both[2] = {allow_new, Z3_mk_not(c, allow_old)};
        queries.push_back({Z3_mk_and(c, 2, both), ShowsNew, ""});
        break;
      }
      case ProofProperty::kEquivalent:
        queries.push_back({Z3_mk_not(c, Z3_mk_eq(c, allow_old, allow_new)), ShowsDifferent, ""});
        break;
      case ProofProperty::kCompare: {
        Z3_ast more[2] = {allow_new, Z3_mk_not(c, allow_old)};
        Z3_ast less[2] = {allow_old, Z3_mk_not(c, allow_new)};
        queries.push_back({Z3_mk_and(c, 2, more), ShowsNew, "more permissive"});
        queries.push_back({Z3_mk_and(c, 2, less), ShowsLost, "less permissive"});
        break;
      }
    }
    std::vector<Solved> solved;
    for (const Query& q : queries) {
      solved.push_back(Solve(c, encoder, *axioms, q, schema, *old_set.engine,
                             new_set != nullptr ? &*new_set->engine : nullptr, options.timeout_ms));
    }
    if (property != ProofProperty::kCompare) {
      answer.result = solved[0].result;
      answer.reason = solved[0].reason;
      if (solved[0].counterexample) answer.counterexamples.push_back(*solved[0].counterexample);
    } else {
      // holds: nothing more permissive. The verdict is the reason.
      const Solved& more = solved[0];
      const Solved& less = solved[1];
      for (const Solved* s : {&more, &less}) {
        if (s->counterexample) answer.counterexamples.push_back(*s->counterexample);
      }
      if (more.result == ProofResult::kUnknown) {
        answer.result = ProofResult::kUnknown;
        answer.reason = more.reason;
      } else if (more.result == ProofResult::kDoesNotHold) {
        answer.result = ProofResult::kDoesNotHold;
        answer.reason = less.result == ProofResult::kDoesNotHold ? "incomparable"
                        : less.result == ProofResult::kHolds     ? "more permissive"
                                                                 : "more permissive (less permissive: unknown, " +
                                                                       less.reason + ")";
      } else {
        answer.result = ProofResult::kHolds;
        answer.reason = less.result == ProofResult::kDoesNotHold ? "less permissive"
                        : less.result == ProofResult::kHolds     ? "equivalent"
                                                                 : "not more permissive (less permissive: unknown, " +
                                                                       less.reason + ")";
      }
    }
    if (answer.reason.empty()) {
      answer.reason = answer.result == ProofResult::kHolds ? "for every store and request of the signature"
                                                           : "the counterexample breaks it";
    }
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
  return p == ProofProperty::kImplies || p == ProofProperty::kEquivalent || p == ProofProperty::kCompare;
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
  return Run(property, *set, nullptr, schema, options);
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
  return Run(property, *old_set, new_set.get(), schema, options);
}

}  // namespace charter
