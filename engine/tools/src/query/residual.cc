// charter::PartialEvaluator and charter::Residual: the policy set's residual
// for a query, policy by policy (partial_eval.h), combined into one
// condition, a label selector where there is one, and its printed forms.
#include <utility>
#include <vector>

#include "unwrap/unwrap.h"
#include "query/query_unwrap.h"
#include "charter/query.h"
#include "common/combine.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "interp/interp.h"
#include "json/json.h"
#include "policy_set/policy_set.h"
#include "query/label_selector.h"
#include "query/partial_eval.h"
#include "query/query_internal.h"
#include "query/residual_expr.h"
#include "request/request_data.h"

namespace charter {
namespace internal {

struct PartialEvaluatorData {
  std::unique_ptr<PolicySet> set;
  std::unique_ptr<residual::Mentions> principal;
  std::unique_ptr<residual::Mentions> resource;
};

struct ResidualItem {
  std::string id;
  bool forbid = false;
  residual::PolicyState state = residual::PolicyState::kFalse;
  residual::ExprPtr condition;
  std::string error;
  bool may_hold = true;
  std::vector<std::pair<std::string, std::string>> annotations;  // but `id`
};

struct ResidualData {
  Entities entities;
  std::shared_ptr<const RequestData> query;
  QueryRequest::Unknown unknown = QueryRequest::Unknown::kResource;
  std::string type;
  std::vector<ResidualItem> items;  // in policy-set order; none kFalse
  residual::ExprPtr combined;
  Residual::Outcome outcome = Residual::Outcome::kDeny;
  std::vector<ResidualPolicy> policies;
  std::vector<PolicyError> errors;
  std::string condition, condition_json;
  bool exact = true;
  std::optional<std::string> selector;

  ast::Var unknown_var() const {
    return unknown == QueryRequest::Unknown::kResource ? ast::Var::kResource : ast::Var::kPrincipal;
  }
};

namespace {

using residual::ExprPtr;
using residual::PolicyState;

void Quoted(std::string* out, std::string_view s) { json::AppendQuoted(out, s); }

// The combined condition, the outcome and the selector of `data`'s items.
void Combine(ResidualData* data) {
  ast::Var unknown = data->unknown_var();
  ExprPtr permits;
  bool permit_all = false, forbid_all = false;
  std::vector<residual::SelectorInput> selector_input;
  const ResidualItem* any_permit = nullptr;
  for (const ResidualItem& item : data->items) {
    bool holds = item.state == PolicyState::kTrue || (item.state == PolicyState::kDepends && item.may_hold);
    if (!holds) continue;
    if (item.forbid) {
      forbid_all = forbid_all || item.state == PolicyState::kTrue;
      continue;
    }
    if (item.state == PolicyState::kTrue) {
      permit_all = true;
      any_permit = &item;
      continue;
    }
    ExprPtr c = ast::Clone(*item.condition);
    permits = permits == nullptr ? std::move(c) : residual::Binary(ast::BinaryOp::kOr, std::move(permits), std::move(c));
    selector_input.push_back({false, item.condition.get()});
  }
  if (forbid_all || (!permit_all && permits == nullptr)) {
    data->outcome = Residual::Outcome::kDeny;
    data->combined = residual::Bool(false);
    return;
  }
  if (permit_all) {
    // Every entity is permitted: only the forbids count.
    permits = nullptr;
    selector_input.clear();
    selector_input.push_back({false, any_permit->condition.get()});
  }
  ExprPtr combined = std::move(permits);
  for (const ResidualItem& item : data->items) {
    if (!item.forbid || item.state != PolicyState::kDepends || !item.may_hold) continue;
    ExprPtr not_forbidden = residual::Negate(ast::Clone(*item.condition));
    combined = combined == nullptr ? std::move(not_forbidden)
                                   : residual::Binary(ast::BinaryOp::kAnd, std::move(combined), std::move(not_forbidden));
    selector_input.push_back({true, item.condition.get()});
  }
  if (combined == nullptr) {
    data->outcome = Residual::Outcome::kAllow;
    data->combined = residual::Bool(true);
  } else {
    data->outcome = Residual::Outcome::kDepends;
    data->combined = std::move(combined);
  }
  data->selector = residual::LabelSelector(selector_input, unknown);
}

void Finish(ResidualData* data) {
  ast::Var unknown = data->unknown_var();
  for (ResidualItem& item : data->items) {
    if (item.state == PolicyState::kError) {
      data->errors.push_back(PolicyError{item.id, item.error, {}});
      continue;
    }
    item.may_hold = residual::MayHold(*item.condition);
    ResidualPolicy p;
    p.id = item.id;
    p.forbid = item.forbid;
    p.condition = residual::ToCedar(*item.condition);
    p.condition_json = residual::ToEst(*item.condition);
    p.may_error = residual::CanError(*item.condition, unknown);
    p.may_hold = item.may_hold;
    data->policies.push_back(std::move(p));
  }
  Combine(data);
  data->condition = residual::ToCedar(*data->combined);
  data->condition_json = residual::ToEst(*data->combined);
  data->exact = !residual::CanError(*data->combined, unknown);
}

// The interpreter's environment for the request with `uid` on the unknown side.
interp::Env EnvFor(const ResidualData& data, const EntityUid& uid, EntityRef refs[3]) {
  const RequestData& q = *data.query;
  refs[0] = q.principal_ref;
  refs[1] = q.action_ref;
  refs[2] = q.resource_ref;
  int unknown = data.unknown == QueryRequest::Unknown::kResource ? 2 : 0;
  refs[unknown] = EntityRef{uid.type, uid.id, kNoUid};
  interp::Env env;
  for (int i = 0; i < 3; ++i) {
    refs[i].uid = kNoUid;
    env.vars[i] = Value::Entity(&refs[i]);
  }
  env.vars[3] = q.context;
  env.store = &Unwrap::Store(data.entities);
  return env;
}

absl::Status CheckType(const ResidualData& data, const EntityUid& uid) {
  if (uid.type != data.type) {
    return absl::InvalidArgumentError(Cat("`", uid.ToString(), "` is not of the residual's type `", data.type, "`"));
  }
  return absl::OkStatus();
}

const char* OutcomeName(Residual::Outcome o) {
  switch (o) {
    case Residual::Outcome::kAllow: return "allow";
    case Residual::Outcome::kDeny: return "deny";
    case Residual::Outcome::kDepends: return "depends";
  }
  return "depends";
}

// One residual policy in Cedar's JSON policy format.
void AppendPolicyJson(std::string* out, const ResidualData& data, const ResidualItem& item) {
  bool resource_unknown = data.unknown == QueryRequest::Unknown::kResource;
  std::string is;
  CatAppend(&is, "{\"op\":\"is\",\"entity_type\":");
  Quoted(&is, data.type);
  is += "}";
  CatAppend(out, "{\"effect\":", item.forbid ? "\"forbid\"" : "\"permit\"",
            ",\"principal\":", resource_unknown ? std::string("{\"op\":\"All\"}") : is,
            ",\"action\":{\"op\":\"All\"}", ",\"resource\":", resource_unknown ? is : std::string("{\"op\":\"All\"}"),
            ",\"conditions\":[");
  if (item.state != PolicyState::kTrue) {
    *out += "{\"kind\":\"when\",\"body\":";
    residual::AppendEst(out, *item.condition);
    *out += "}";
  }
  *out += "],\"annotations\":{\"id\":";
  Quoted(out, item.id);
  for (const auto& [key, value] : item.annotations) {
    out->push_back(',');
    Quoted(out, key);
    out->push_back(':');
    Quoted(out, value);
  }
  *out += "}}";
}

}  // namespace
}  // namespace internal

// ---------------------------------------------------------------- Residual

Residual::Outcome Residual::outcome() const { return data_->outcome; }
const std::vector<ResidualPolicy>& Residual::policies() const { return data_->policies; }
const std::vector<PolicyError>& Residual::errors() const { return data_->errors; }
const std::string& Residual::condition() const { return data_->condition; }
const std::string& Residual::condition_json() const { return data_->condition_json; }
bool Residual::exact() const { return data_->exact; }
const std::optional<std::string>& Residual::label_selector() const { return data_->selector; }

std::string Residual::PoliciesText() const {
  const internal::ResidualData& d = *data_;
  bool resource_unknown = d.unknown == QueryRequest::Unknown::kResource;
  std::string out;
  for (const internal::ResidualItem& item : d.items) {
    if (!out.empty()) out += "\n";
    out += "@id(";
    internal::AppendQuotedCedar(&out, item.id);
    out += ")\n";
    for (const auto& [key, value] : item.annotations) {
      internal::CatAppend(&out, "@", key, "(");
      internal::AppendQuotedCedar(&out, value);
      out += ")\n";
    }
    internal::CatAppend(&out, item.forbid ? "forbid" : "permit", " (",
                        resource_unknown ? "principal" : internal::Cat("principal is ", d.type), ", action, ",
                        resource_unknown ? internal::Cat("resource is ", d.type) : "resource", ")");
    if (item.state != internal::residual::PolicyState::kTrue) {
      internal::CatAppend(&out, "\nwhen { ", internal::residual::ToCedar(*item.condition), " }");
    }
    out += ";\n";
  }
  return out;
}

std::string Residual::PoliciesJson() const {
  std::string out = "{\"staticPolicies\":{";
  bool first = true;
  for (const internal::ResidualItem& item : data_->items) {
    if (!first) out.push_back(',');
    first = false;
    internal::Quoted(&out, item.id);
    out.push_back(':');
    internal::AppendPolicyJson(&out, *data_, item);
  }
  out += "},\"templates\":{},\"templateLinks\":[]}";
  return out;
}

std::string Residual::ToJson() const {
  const internal::ResidualData& d = *data_;
  std::string out = "{\"outcome\":";
  internal::Quoted(&out, internal::OutcomeName(d.outcome));
  internal::CatAppend(&out, ",\"unknown\":",
                      d.unknown == QueryRequest::Unknown::kResource ? "\"resource\"" : "\"principal\"", ",\"type\":");
  internal::Quoted(&out, d.type);
  out += ",\"condition\":";
  internal::Quoted(&out, d.condition);
  internal::CatAppend(&out, ",\"conditionJson\":", d.condition_json, ",\"exact\":", d.exact ? "true" : "false",
                      ",\"labelSelector\":");
  if (d.selector.has_value()) {
    internal::Quoted(&out, *d.selector);
  } else {
    out += "null";
  }
  out += ",\"policies\":[";
  for (size_t i = 0; i < d.policies.size(); ++i) {
    const ResidualPolicy& p = d.policies[i];
    out += i > 0 ? ",{\"id\":" : "{\"id\":";
    internal::Quoted(&out, p.id);
    internal::CatAppend(&out, ",\"effect\":", p.forbid ? "\"forbid\"" : "\"permit\"", ",\"condition\":");
    internal::Quoted(&out, p.condition);
    internal::CatAppend(&out, ",\"conditionJson\":", p.condition_json, ",\"mayError\":",
                        p.may_error ? "true" : "false", ",\"mayHold\":", p.may_hold ? "true" : "false", "}");
  }
  out += "],\"errors\":[";
  for (size_t i = 0; i < d.errors.size(); ++i) {
    out += i > 0 ? ",{\"policy\":" : "{\"policy\":";
    internal::Quoted(&out, d.errors[i].policy_id);
    out += ",\"message\":";
    internal::Quoted(&out, d.errors[i].message);
    out += "}";
  }
  out += "]}";
  return out;
}

std::string Residual::ToText() const {
  const internal::ResidualData& d = *data_;
  std::string_view role = d.unknown == QueryRequest::Unknown::kResource ? "resource" : "principal";
  std::string out;
  switch (d.outcome) {
    case Outcome::kAllow: internal::CatAppend(&out, "allowed for every ", role, " of type ", d.type, "\n"); break;
    case Outcome::kDeny: internal::CatAppend(&out, "denied for every ", role, " of type ", d.type, "\n"); break;
    case Outcome::kDepends:
      internal::CatAppend(&out, "allowed for a ", role, " of type ", d.type, " where\n  ", d.condition, "\n");
      if (!d.exact) {
        out += "  (a filter: where it fails to evaluate, the policies below decide)\n";
      }
      break;
  }
  if (d.selector.has_value() && d.outcome == Outcome::kDepends) {
    internal::CatAppend(&out, "label selector: ", *d.selector, "\n");
  }
  if (!d.policies.empty()) {
    out += "policies that may apply:\n";
    for (const ResidualPolicy& p : d.policies) {
      internal::CatAppend(&out, "  ", p.forbid ? "forbid " : "permit ", p.id, ": ", p.condition,
                          !p.may_hold ? "  (never holds; may fail)" : "", "\n");
    }
  }
  if (!d.errors.empty()) {
    out += "policies that fail for every one (skipped):\n";
    for (const PolicyError& e : d.errors) internal::CatAppend(&out, "  ", e.policy_id, ": ", e.message, "\n");
  }
  return out;
}

absl::StatusOr<Decision> Residual::Decide(const EntityUid& uid) const {
  const internal::ResidualData& d = *data_;
  RETURN_IF_ERROR(internal::CheckType(d, uid));
  internal::EntityRef refs[3];
  internal::interp::Env env = internal::EnvFor(d, uid, refs);
  internal::Arena scratch;
  std::vector<std::string> permits, forbids;
  Decision decision;
  for (const internal::ResidualItem& item : d.items) {
    std::string error;
    bool satisfied = false;
    if (item.state == internal::residual::PolicyState::kTrue) {
      satisfied = true;
    } else if (item.state == internal::residual::PolicyState::kError) {
      error = item.error;
    } else {
      internal::Value v;
      const internal::ast::Expr* at = nullptr;
      if (!internal::interp::EvaluateExpression(*item.condition, env, &scratch, &v, &error, &at)) {
        // error set
      } else if (v.type != internal::Type::kBool) {
        error = internal::Cat("type error: expected bool, got ", internal::TypeName(v.type));
      } else {
        satisfied = v.b;
      }
    }
    if (!error.empty()) {
      decision.errors.push_back(PolicyError{item.id, std::move(error), {}});
    } else if (satisfied) {
      (item.forbid ? forbids : permits).push_back(item.id);
    }
  }
  decision.allowed = internal::CombinedAllows(permits, forbids);
  decision.reasons = std::move(internal::DeterminingPolicies(permits, forbids));
  return decision;
}

absl::StatusOr<std::optional<bool>> Residual::ConditionHolds(const EntityUid& uid) const {
  const internal::ResidualData& d = *data_;
  RETURN_IF_ERROR(internal::CheckType(d, uid));
  internal::EntityRef refs[3];
  internal::interp::Env env = internal::EnvFor(d, uid, refs);
  internal::Arena scratch;
  internal::Value v;
  std::string error;
  const internal::ast::Expr* at = nullptr;
  if (!internal::interp::EvaluateExpression(*d.combined, env, &scratch, &v, &error, &at) ||
      v.type != internal::Type::kBool) {
    return std::optional<bool>();
  }
  return std::optional<bool>(v.b);
}

// ---------------------------------------------------------------- PartialEvaluator

absl::StatusOr<PartialEvaluator> PartialEvaluator::Create(const SourceFile& policies,
                                                          const std::vector<TemplateLink>& links,
                                                          const CompileOptions& options) {
  return Create(std::vector<SourceFile>{policies}, links, options);
}

absl::StatusOr<PartialEvaluator> PartialEvaluator::Create(const std::vector<SourceFile>& sources,
                                                          const std::vector<TemplateLink>& links,
                                                          const CompileOptions& options) {
  auto data = std::make_shared<internal::PartialEvaluatorData>();
  ASSIGN_OR_RETURN(data->set, internal::ReadLinkedPolicySet(sources, links, options));
  data->principal = std::make_unique<internal::residual::Mentions>(data->set->ast, internal::ast::Var::kPrincipal);
  data->resource = std::make_unique<internal::residual::Mentions>(data->set->ast, internal::ast::Var::kResource);
  return PartialEvaluator(std::move(data));
}

size_t PartialEvaluator::policy_count() const { return data_->set->instances.size(); }

absl::StatusOr<Residual> PartialEvaluator::Evaluate(const QueryRequest& query, const Entities& entities,
                                                    const ResidualOptions& options) const {
  const internal::PolicySet& set = *data_->set;
  const internal::EntityStore& store = internal::Unwrap::Store(entities);
  if (options.check_query) {
    RETURN_IF_ERROR(internal::CheckQuery(query, store, [&](std::string_view type, std::string_view id) {
      for (const internal::PolicyInstance& p : set.instances) {
        for (const internal::ast::EntityRef& e : p.policy->action.entities) {
          if (e.type == type && e.id == id) return true;
        }
      }
      return false;
    }));
  }
  auto data = std::make_shared<internal::ResidualData>();
  data->entities = entities;
  data->query = internal::QueryUnwrap::SharedData(query);
  data->unknown = query.unknown();
  data->type = query.unknown_type();

  const internal::RequestData& q = *data->query;
  internal::EntityRef refs[3] = {q.principal_ref, q.action_ref, q.resource_ref};
  internal::residual::PartialEnv env;
  for (int i = 0; i < 3; ++i) {
    refs[i].uid = internal::kNoUid;
    env.env.vars[i] = internal::Value::Entity(&refs[i]);
  }
  env.env.vars[3] = q.context;
  env.env.store = &store;
  bool resource_unknown = query.unknown() == QueryRequest::Unknown::kResource;
  env.unknown = resource_unknown ? internal::ast::Var::kResource : internal::ast::Var::kPrincipal;
  env.unknown_type = data->type;
  env.mentions = resource_unknown ? data_->resource.get() : data_->principal.get();
  env.max_depth = options.max_depth;

  internal::Arena scratch;
  for (const internal::PolicyInstance& instance : set.instances) {
    ASSIGN_OR_RETURN(internal::residual::PolicyResidual r,
                     internal::residual::EvaluatePolicy(instance, env, &scratch));
    if (r.state == internal::residual::PolicyState::kFalse) continue;
    internal::ResidualItem item;
    item.id = instance.id;
    item.forbid = instance.policy->effect == internal::ast::Effect::kForbid;
    item.state = r.state;
    item.condition = std::move(r.condition);
    item.error = std::move(r.error);
    for (const internal::ast::Annotation& a : instance.policy->annotations) {
      if (a.key != "id") item.annotations.emplace_back(a.key, a.value);
    }
    data->items.push_back(std::move(item));
  }
  internal::Finish(data.get());
  return Residual(std::move(data));
}

}  // namespace charter
