// Audit (charter/governance.h): the lifecycle review of every connection
// contract. For each connection the audit computes the AuditContext of the
// standard model (stdlib/governance.cedarschema) from the store, and from
// the previous snapshot when there is one, then decides
// `Auditor -> reviewConnection -> the connection` with each rule set: every
// rule is a forbid, and each satisfied one is a finding.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "unwrap/unwrap.h"
#include "charter/compiler.h"
#include "charter/governance.h"
#include "common/sha256.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "extensions/extensions.h"
#include "governance/model.h"
#include "governance/render.h"
#include "json/json.h"
#include "policy_set/policy_set.h"
#include "request/request_data.h"
#include "schema/schema_model.h"

namespace charter {

std::string ContentFingerprint(std::string_view bytes) { return "sha256:" + internal::Sha256Hex(bytes); }

struct AuditRules::Data {
  std::vector<AuditRule> rules;
  std::optional<Engine> engine;
  std::string schema_fingerprint;
};

struct AuditRulesAccess {
  static const AuditRules::Data& Of(const AuditRules& r) { return *r.data_; }
};

AuditRules::AuditRules(std::shared_ptr<const Data> data) : data_(std::move(data)) {}

const std::vector<AuditRule>& AuditRules::rules() const { return data_->rules; }

absl::StatusOr<AuditRules> AuditRules::Create(const SourceFile& rules, const Schema& schema,
                                              Diagnostics* diagnostics) {
  using internal::Cat;
  CompileOptions options;
  options.schema = &schema;
  ASSIGN_OR_RETURN(Bundle bundle, Compile(rules, options, diagnostics));
  ASSIGN_OR_RETURN(Engine engine, Engine::Create(std::move(bundle)));
  // The compile succeeded, so the text reads cleanly: read it again for the
  // annotations, which the bundle does not keep.
  ASSIGN_OR_RETURN(std::unique_ptr<internal::PolicySet> set,
                   internal::ReadLinkedPolicySet(rules, {}, CompileOptions{}, nullptr));
  auto data = std::make_shared<Data>();
  auto where = [&rules](Span span) {
    SourceFile::Position p = rules.PositionOf(span.begin);
    return Cat(rules.name(), ":", p.line, ":", p.column);
  };
  for (const internal::PolicyInstance& instance : set->instances) {
    const internal::ast::Policy& p = *instance.policy;
    AuditRule rule;
    rule.source = where(p.span);
    std::string_view severity;
    for (const internal::ast::Annotation& a : p.annotations) {
      if (a.key == "id") rule.id = a.value;
      if (a.key == "severity") {
        rule.severity = a.value;
        if (a.value != "low" && a.value != "medium" && a.value != "high") {
          return absl::InvalidArgumentError(Cat(where(a.span), ": @severity(\"", a.value,
                                                "\") is not low, medium or high"));
        }
      }
      if (a.key == "message") rule.message = a.value;
      if (a.key == "revoke") rule.revoke = a.value;
    }
    if (p.effect != internal::ast::Effect::kForbid) {
      return absl::InvalidArgumentError(
          Cat(where(p.effect_span), ": an audit rule is a forbid: each one that holds is a finding"));
    }
    for (std::string_view key : {"id", "severity", "message"}) {
      bool has = false;
      for (const internal::ast::Annotation& a : p.annotations) has = has || a.key == key;
      if (!has) {
        return absl::InvalidArgumentError(Cat(where(p.span), ": an audit rule needs @", key, "(\"...\")"));
      }
    }
    data->rules.push_back(std::move(rule));
  }
  data->engine.emplace(std::move(engine));
  data->schema_fingerprint = schema.Fingerprint();
  return AuditRules(std::move(data));
}

absl::StatusOr<AuditRules> AuditRules::Standard(const Schema& schema) {
  SourceFile source{std::string(kStandardAuditRulesName), std::string(StandardAuditRulesText())};
  return Create(source, schema);
}

namespace internal::review {
namespace {

constexpr std::string_view kOwnerRoles[3][2] = {
    {"businessOwner", "business"}, {"operationsOwner", "operations"}, {"costOwner", "cost"}};

// What the audit reads of one snapshot.
class Snapshot {
 public:
  Snapshot(const EntityStore& store, const ModelNames& names) : index(store), names_(names) {
    for (uint32_t ns : index.OfType(names.ns_type)) {
      uint32_t c = index.EntityAt(ns, {"connection"});
      if (c != kNoUid) namespaces_of[c].push_back(ns);
    }
    for (uint32_t r : index.OfType(names.project_role)) roles_of[index.EntityAt(r, {"project"})].push_back(r);
  }

  StoreIndex index;
  std::map<uint32_t, std::vector<uint32_t>> namespaces_of;  // connection -> namespaces naming it
  // `project` of each project role -> the roles, in the store's order (so
  // that Watched does not scan every role of the store for each connection).
  std::map<uint32_t, std::vector<uint32_t>> roles_of;

  std::vector<uint32_t> NamespacesOf(uint32_t conn) const {
    auto it = namespaces_of.find(conn);
    return it == namespaces_of.end() ? std::vector<uint32_t>{} : it->second;
  }
  std::string Id(uint32_t u) const { return u == kNoUid ? "none" : std::string(index.store().ref(u).id); }

  // The members (and identities) in `group`, by id, sorted: "a, b" or "none".
  std::string MembersOf(uint32_t group) const {
    if (!index.HasData(group)) return "none";
    std::vector<uint32_t> found;
    index.Descendants(group, &found);
    std::vector<std::string> ids;
    for (uint32_t u : found) {
      std::string_view type = index.store().ref(u).type;
      if (u != group && (type == names_.member || type == names_.identity) && index.HasData(u)) ids.push_back(Id(u));
    }
    return List(std::move(ids));
  }
  static std::string List(std::vector<std::string> ids) {
    if (ids.empty()) return "none";
    std::sort(ids.begin(), ids.end());
    std::string out;
    for (const std::string& s : ids) CatAppend(&out, out.empty() ? "" : ", ", s);
    return out;
  }
  std::string Shown(uint32_t u, std::initializer_list<std::string_view> path) const {
    const Value* v = index.Attr(u, path);
    return v == nullptr ? "none" : Display(*v);
  }

  // The id of the owners role of the connection's project, or "" when the
  // project is not in this snapshot.
  std::string OwnersRoleId(uint32_t conn) const {
    uint32_t role = index.EntityAt(index.EntityAt(conn, {"project"}), {"owners"});
    return role == kNoUid ? "" : Id(role);
  }

  // The values whose change calls for a review, as text, for a connection
  // in this snapshot. `owners_role` is the id of the project's owners role,
  // which the access roles leave out (the project's owners are watched on
  // their own): the same in both snapshots, so that a project gone from one
  // does not move its owners into the access roles.
  std::map<std::string, std::string> Watched(uint32_t conn, std::string_view owners_role) const {
    std::map<std::string, std::string> w;
    uint32_t project = index.EntityAt(conn, {"project"});
    uint32_t cluster = index.EntityAt(conn, {"cluster"});
    w["projectOwners"] = MembersOf(index.EntityAt(project, {"owners"}));
    std::string owners;
    for (const auto& [attr, role] : kOwnerRoles) {
      uint32_t o = index.EntityAt(conn, {"contract", attr});
      CatAppend(&owners, owners.empty() ? "" : ", ", role, ": ", Id(o));
    }
    w["contractOwners"] = owners;
    std::string roles;
    if (auto it = roles_of.find(project); it != roles_of.end()) {
      for (uint32_t r : it->second) {
        if (Id(r) != owners_role) CatAppend(&roles, roles.empty() ? "" : "; ", Id(r), ": ", MembersOf(r));
      }
    }
    std::set<uint32_t> teams;
    for (uint32_t ns : NamespacesOf(conn)) teams.insert(index.EntityAt(ns, {"team"}));
    for (uint32_t t : teams) CatAppend(&roles, roles.empty() ? "" : "; ", "team ", Id(t), ": ", MembersOf(t));
    uint32_t admins = index.EntityAt(cluster, {"admins"});
    if (admins != kNoUid) CatAppend(&roles, roles.empty() ? "" : "; ", Id(admins), ": ", MembersOf(admins));
    w["accessRoles"] = roles.empty() ? "none" : roles;
    w["account"] = Shown(cluster, {"account"});
    std::string allocation, capacity;
    for (uint32_t ns : NamespacesOf(conn)) {
      uint32_t a = index.EntityAt(ns, {"allocation"});
      CatAppend(&allocation, allocation.empty() ? "" : "; ", Id(ns), ": ", Id(a));
      if (!index.HasData(a)) continue;
      CatAppend(&allocation, " (lends idle: ", Shown(a, {"lendsIdle"}), ", weight ", Shown(a, {"fairShareWeight"}),
                ")");
      CatAppend(&capacity, capacity.empty() ? "" : "; ", Id(a), ": ", Shown(a, {"gpus"}), " GPUs");
      if (index.Attr(a, {"borrowLimitGpus"}) != nullptr) {
        CatAppend(&capacity, " + ", Shown(a, {"borrowLimitGpus"}), " borrowed");
      }
    }
    w["allocation"] = allocation.empty() ? "none" : allocation;
    w["capacity"] = capacity.empty() ? "none" : capacity;
    w["dataClassifications"] = Shown(conn, {"contract", "approvedDataClassifications"});
    w["workloadTypes"] = Shown(conn, {"contract", "approvedWorkloadTypes"});
    w["schedulingPolicy"] = Cat("priority classes: ", Shown(conn, {"contract", "schedulingPolicy", "priorityClasses"}),
                                "; queueing: ", Shown(conn, {"contract", "schedulingPolicy", "queueing"}),
                                "; may borrow: ", Shown(conn, {"contract", "schedulingPolicy", "mayBorrow"}));
    return w;
  }

 private:
  const ModelNames& names_;
};

std::string JsonStringSet(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    json::AppendQuoted(&out, items[i]);
  }
  return out + "]";
}

// A value as Cedar's entity JSON writes it, which MakeRequest reads back:
// entities as {"__entity": ...}, extension values as {"__extn": ...}.
void AppendValueJson(std::string* out, const Value& v) {
  switch (v.type) {
    case Type::kBool: *out += v.b ? "true" : "false"; return;
    case Type::kLong: CatAppend(out, v.i); return;
    case Type::kString: json::AppendQuoted(out, v.string()); return;
    case Type::kEntity:
      *out += "{\"__entity\": {\"type\": ";
      json::AppendQuoted(out, v.entity->type);
      *out += ", \"id\": ";
      json::AppendQuoted(out, v.entity->id);
      *out += "}}";
      return;
    case Type::kSet:
      out->push_back('[');
      for (uint32_t i = 0; i < v.size; ++i) {
        if (i > 0) *out += ", ";
        AppendValueJson(out, v.elements[i]);
      }
      out->push_back(']');
      return;
    case Type::kRecord:
      out->push_back('{');
      for (uint32_t i = 0; i < v.size; ++i) {
        if (i > 0) *out += ", ";
        json::AppendQuoted(out, v.fields[i].key);
        *out += ": ";
        AppendValueJson(out, v.fields[i].value);
      }
      out->push_back('}');
      return;
    case Type::kIp:
    case Type::kDecimal:
    case Type::kDatetime:
    case Type::kDuration: {
      std::string_view fn = v.type == Type::kIp ? "ip" : TypeName(v.type);
      std::string arg = v.type == Type::kIp        ? ext::FormatIp(*v.ip)
                        : v.type == Type::kDecimal ? ext::FormatDecimal(v.i)
                        : v.type == Type::kDatetime ? ext::FormatDatetime(v.i)
                                                    : ext::FormatDuration(v.i);
      *out += "{\"__extn\": {\"fn\": ";
      json::AppendQuoted(out, fn);
      *out += ", \"arg\": ";
      json::AppendQuoted(out, arg);
      *out += "}}";
      return;
    }
  }
}

std::string DateJson(int64_t ms) {
  std::string out = "{\"__extn\": {\"fn\": \"datetime\", \"arg\": ";
  json::AppendQuoted(&out, FormatDate(ms));
  return out + "}}";
}

// The value at `path` ("context.a.b" or "resource.a.b") for a message, or
// "(none)".
std::string Lookup(std::string_view path, const Value& context, const StoreIndex& index, uint32_t resource) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  const Value* v = nullptr;
  if (parts[0] == "context") {
    v = &context;
  } else if (parts[0] == "resource") {
    const EntityData* d = resource == kNoUid ? nullptr : index.store().data(resource);
    if (d == nullptr) return "(none)";
    v = &d->attrs;
  } else {
    return Cat("{", path, "}");
  }
  for (size_t i = 1; i < parts.size() && v != nullptr; ++i) {
    if (v->type == Type::kEntity) {
      uint32_t u = index.UidOf(*v);
      const EntityData* d = u == kNoUid ? nullptr : index.store().data(u);
      if (d == nullptr) return "(none)";
      v = &d->attrs;
    }
    v = v->type == Type::kRecord ? FindField(*v, parts[i]) : nullptr;
  }
  return v == nullptr ? "(none)" : Display(*v);
}

std::string Fill(std::string_view message, const Value& context, const StoreIndex& index, uint32_t resource) {
  std::string out;
  for (size_t i = 0; i < message.size();) {
    size_t open = message.find('{', i);
    size_t close = open == std::string_view::npos ? open : message.find('}', open);
    if (close == std::string_view::npos) {
      out.append(message.substr(i));
      break;
    }
    out.append(message.substr(i, open - i));
    out += Lookup(message.substr(open + 1, close - open - 1), context, index, resource);
    i = close + 1;
  }
  return out;
}

int SeverityRank(std::string_view s) { return s == "high" ? 2 : s == "medium" ? 1 : 0; }

}  // namespace
}  // namespace internal::review

absl::StatusOr<AuditReport> Audit(const Schema& schema, const Entities& current, const Entities* previous,
                                  const std::vector<const AuditRules*>& rules, const AuditOptions& options) {
  using namespace internal;
  using internal::Value;  // not charter::Value
  using namespace internal::review;
  ASSIGN_OR_RETURN(int64_t now, ParseDate(options.at));
  const SchemaModel& model = Unwrap::Model(schema);
  for (const AuditRules* r : rules) {
    if (AuditRulesAccess::Of(*r).schema_fingerprint != schema.Fingerprint()) {
      return absl::InvalidArgumentError("audit rules were compiled against another schema than the audit's");
    }
  }
  const ModelNames names = ModelNames::For("Governance::Connection");
  const Snapshot cur(Unwrap::Store(current), names);
  std::optional<Snapshot> prev;
  if (previous != nullptr) prev.emplace(Unwrap::Store(*previous), names);
  const StoreIndex& index = cur.index;

  AuditReport report;
  report.at = options.at;
  report.within_days = options.within_days;
  report.entities_name = options.entities_name;
  report.entities_fingerprint = options.entities_fingerprint;
  report.previous_name = options.previous_name;

  // The connections: the store's, then those only namespaces name.
  std::vector<uint32_t> conns = index.OfType(names.connection);
  for (const auto& [c, nss] : cur.namespaces_of) {
    if (!index.HasData(c) && index.store().ref(c).type == names.connection) conns.push_back(c);
  }
  const EntityUid auditor{names.auditor, "audit"};
  const EntityUid action{names.action, "reviewConnection"};
  for (uint32_t c : conns) {
    AuditConnection ac;
    ac.uid = index.Uid(c);
    ac.in_store = index.HasData(c);
    std::vector<uint32_t> nss = cur.NamespacesOf(c);
    std::vector<std::string> ns_json;
    for (uint32_t ns : nss) {
      ac.namespaces.push_back(index.Uid(ns));
      const EntityRef& r = index.store().ref(ns);
      std::string e = "{\"__entity\": {\"type\": ";
      json::AppendQuoted(&e, r.type);
      e += ", \"id\": ";
      json::AppendQuoted(&e, r.id);
      ns_json.push_back(e + "}}");
    }
    std::string ctx = Cat("\"now\": ", DateJson(now), ", \"withinDays\": ", options.within_days,
                          ", \"inStore\": ", ac.in_store ? "true" : "false", ", \"namespaces\": [");
    for (size_t i = 0; i < ns_json.size(); ++i) CatAppend(&ctx, i ? ", " : "", ns_json[i]);
    ctx += "]";
    bool revoked = false, reviewed = false, project_in = false, cluster_in = false, active_business = false;
    int64_t days_to_review = 0;
    std::vector<std::string> missing, suspended, departed;
    if (ac.in_store) {
      uint32_t project = index.EntityAt(c, {"project"});
      uint32_t cluster = index.EntityAt(c, {"cluster"});
      if (project != kNoUid) ac.project = index.Uid(project);
      if (cluster != kNoUid) ac.cluster = index.Uid(cluster);
      project_in = index.HasData(project);
      cluster_in = index.HasData(cluster);
      if (const Value* v = index.Attr(c, {"contract", "revoked"}); v != nullptr && v->type == Type::kDatetime) {
        revoked = true;
        ac.revoked = FormatDate(v->i);
      }
      if (const Value* v = index.Attr(c, {"contract", "lastReviewed"}); v != nullptr && v->type == Type::kDatetime) {
        reviewed = true;
        ac.last_reviewed = FormatDate(v->i);
      }
      if (const Value* v = index.Attr(c, {"contract", "reviews"}); v != nullptr && v->type == Type::kSet) {
        reviewed = reviewed || v->size > 0;
        // The last review: the latest date (sets have no order).
        for (uint32_t i = 0; i < v->size; ++i) {
          const Value& r = v->elements[i];
          const Value* date = FindField(r, "date");
          const Value* by = FindField(r, "by");
          const Value* decision = FindField(r, "decision");
          const Value* note = FindField(r, "note");
          if (date == nullptr || by == nullptr || decision == nullptr) continue;
          std::string d = FormatDate(date->i);
          if (ac.last_review && ac.last_review->date > d) continue;
          ac.last_review = AuditReview{d, EntityUid{std::string(by->entity->type), std::string(by->entity->id)},
                                       std::string(decision->entity->id),
                                       note == nullptr ? "" : std::string(note->string())};
        }
      }
      if (const Value* v = index.Attr(c, {"contract", "reviewDate"}); v != nullptr && v->type == Type::kDatetime) {
        ac.review_date = FormatDate(v->i);
        days_to_review = DaysBetween(now, v->i);
      }
      for (const auto& [attr, role] : kOwnerRoles) {
        uint32_t o = index.EntityAt(c, {"contract", attr});
        if (o == kNoUid) {
          missing.emplace_back(role);
        } else if (!index.HasData(o)) {
          departed.push_back(Cat(index.store().ref(o).id, " (", role, ")"));
        } else if (const Value* s = index.Attr(o, {"suspended"}); s != nullptr && s->type == Type::kBool && s->b) {
          suspended.push_back(Cat(index.store().ref(o).id, " (", role, ")"));
        } else if (std::string_view(attr) == "businessOwner") {
          active_business = true;
        }
      }
    }
    ac.days_to_review = days_to_review;
    CatAppend(&ctx, ", \"revoked\": ", revoked ? "true" : "false", ", \"daysToReview\": ", days_to_review,
              ", \"daysOverdue\": ", days_to_review < 0 ? -days_to_review : 0, ", \"reviewed\": ",
              reviewed ? "true" : "false", ", \"projectInStore\": ", project_in ? "true" : "false",
              ", \"clusterInStore\": ", cluster_in ? "true" : "false", ", \"missingOwners\": ", JsonStringSet(missing),
              ", \"suspendedOwners\": ", JsonStringSet(suspended), ", \"departedOwners\": ", JsonStringSet(departed),
              ", \"activeBusinessOwner\": ", active_business ? "true" : "false", ", \"hasPrevious\": ",
              prev ? "true" : "false");
    // Changes since the previous snapshot.
    bool is_new = false;
    std::string changes, previous_contract;
    if (prev && ac.in_store) {
      uint32_t pc = prev->index.Find(ac.uid);
      if (!prev->index.HasData(pc)) {
        is_new = true;
      } else {
        if (const Value* contract = prev->index.Attr(pc, {"contract"}); contract != nullptr) {
          previous_contract = ", \"previousContract\": ";
          AppendValueJson(&previous_contract, *contract);
        }
        std::string owners_role = cur.OwnersRoleId(c);
        if (owners_role.empty()) owners_role = prev->OwnersRoleId(pc);
        std::map<std::string, std::string> before = prev->Watched(pc, owners_role),
                                           after = cur.Watched(c, owners_role);
        for (const auto& [key, old_value] : before) {
          const std::string& new_value = after[key];
          if (old_value == new_value) continue;
          CatAppend(&changes, changes.empty() ? "" : ", ", "\"", key, "\": {\"old\": ");
          json::AppendQuoted(&changes, old_value);
          changes += ", \"new\": ";
          json::AppendQuoted(&changes, new_value);
          changes += "}";
        }
        std::vector<std::string> was, gone, now_ids;
        for (uint32_t ns : prev->NamespacesOf(pc)) {
          std::string id = prev->Id(ns);
          was.push_back(id);
          bool still = false;
          for (uint32_t n : nss) still = still || cur.Id(n) == id;
          if (!still) gone.push_back(id);
        }
        for (uint32_t n : nss) now_ids.push_back(cur.Id(n));
        if (!gone.empty()) {
          CatAppend(&changes, changes.empty() ? "" : ", ", "\"namespacesGone\": {\"old\": ");
          json::AppendQuoted(&changes, Snapshot::List(was));
          changes += ", \"new\": ";
          json::AppendQuoted(&changes, Snapshot::List(now_ids));
          changes += "}";
        }
      }
    }
    CatAppend(&ctx, ", \"newSincePrevious\": ", is_new ? "true" : "false", previous_contract, ", \"changes\": {",
              changes, "}");

    ASSIGN_OR_RETURN(std::shared_ptr<RequestData> data,
                     MakeRequest(auditor, action, ac.uid, Cat("{", ctx, "}"), "the audit context", &model));
    const Value context = data->context;
    Request request = Unwrap::MakeRequest(data);
    for (const AuditRules* rs : rules) {
      const auto& rd = AuditRulesAccess::Of(*rs);
      Decision d = rd.engine->Authorize(request, current);
      for (const std::string& id : d.reasons) {
        const AuditRule* rule = nullptr;
        for (const AuditRule& r : rd.rules) {
          if (r.id == id) rule = &r;
        }
        if (rule == nullptr) continue;  // INVARIANT: every policy of the set is a rule
        ac.findings.push_back(AuditFinding{rule->id, rule->severity, Fill(rule->message, context, index, c),
                                           rule->revoke});
      }
      for (PolicyError& e : d.errors) ac.errors.push_back(std::move(e));
    }
    std::stable_sort(ac.findings.begin(), ac.findings.end(), [](const AuditFinding& a, const AuditFinding& b) {
      return SeverityRank(a.severity) > SeverityRank(b.severity);
    });
    report.connections.push_back(std::move(ac));
  }
  return report;
}

size_t AuditReport::Count(std::string_view severity) const {
  size_t n = 0;
  for (const AuditConnection& c : connections) {
    for (const AuditFinding& f : c.findings) n += f.severity == severity ? 1 : 0;
  }
  return n;
}

bool AuditReport::AnyAtLeast(std::string_view severity) const {
  int floor = internal::review::SeverityRank(severity);
  for (const AuditConnection& c : connections) {
    for (const AuditFinding& f : c.findings) {
      if (internal::review::SeverityRank(f.severity) >= floor) return true;
    }
  }
  return false;
}

namespace {

// The revoke list: each connection with a revoke finding, and its reasons.
std::vector<std::pair<const AuditConnection*, std::vector<std::string>>> RevokeList(const AuditReport& r) {
  std::vector<std::pair<const AuditConnection*, std::vector<std::string>>> out;
  for (const AuditConnection& c : r.connections) {
    std::vector<std::string> why;
    for (const AuditFinding& f : c.findings) {
      if (!f.revoke.empty() && std::find(why.begin(), why.end(), f.revoke) == why.end()) why.push_back(f.revoke);
    }
    if (!why.empty()) out.emplace_back(&c, std::move(why));
  }
  return out;
}

}  // namespace

std::string AuditReport::ToText() const {
  using internal::Cat;
  using internal::CatAppend;
  using internal::review::ShortEntity;
  std::string out = Cat("audit of ", entities_name.empty() ? "the entities" : entities_name, " at ", at,
                        " (reviews due within ", within_days, " days)\n");
  if (!entities_fingerprint.empty()) CatAppend(&out, "  fingerprint: ", entities_fingerprint, "\n");
  if (!previous_name.empty()) CatAppend(&out, "  changes since: ", previous_name, "\n");
  CatAppend(&out, "  findings: ", Count("high"), " high, ", Count("medium"), " medium, ", Count("low"), " low\n");
  for (const AuditConnection& c : connections) {
    CatAppend(&out, "\n", ShortEntity(c.uid));
    if (!c.in_store) {
      out += "  (not in the store)\n";
    } else {
      out += "\n";
      std::string state = c.revoked.empty() ? Cat("review due ", c.review_date) : Cat("revoked on ", c.revoked);
      CatAppend(&out, "  ", state, c.last_reviewed.empty() ? ", never reviewed" : Cat(", last reviewed ", c.last_reviewed));
      if (c.last_review) {
        CatAppend(&out, " by ", c.last_review->by.id, " (", c.last_review->decision);
        if (!c.last_review->note.empty()) CatAppend(&out, ": ", c.last_review->note);
        out += ")";
      }
      out += "\n";
    }
    if (c.findings.empty() && c.errors.empty()) out += "  no findings\n";
    for (const AuditFinding& f : c.findings) CatAppend(&out, "  ", f.severity, "  ", f.rule, ": ", f.message, "\n");
    for (const PolicyError& e : c.errors) CatAppend(&out, "  error  ", e.policy_id, ": ", e.message, "\n");
  }
  auto revoke = RevokeList(*this);
  out += "\nrevoke\n";
  if (revoke.empty()) out += "  none\n";
  for (const auto& [c, why] : revoke) {
    std::string reasons;
    for (const std::string& w : why) CatAppend(&reasons, reasons.empty() ? "" : ", ", w);
    CatAppend(&out, "  ", ShortEntity(c->uid), ": ", reasons, "\n");
  }
  return out;
}

std::string AuditReport::ToJson() const {
  using namespace internal::review;
  std::string out = "{";
  JsonKey(&out, "at", true);
  JsonString(&out, at);
  JsonKey(&out, "within");
  out += std::to_string(within_days);
  JsonKey(&out, "entities");
  JsonString(&out, entities_name);
  JsonKey(&out, "fingerprint");
  JsonString(&out, entities_fingerprint);
  if (!previous_name.empty()) {
    JsonKey(&out, "previous");
    JsonString(&out, previous_name);
  }
  JsonKey(&out, "counts");
  out += internal::Cat("{\"high\":", Count("high"), ",\"medium\":", Count("medium"), ",\"low\":", Count("low"), "}");
  JsonKey(&out, "connections");
  out += "[";
  for (size_t i = 0; i < connections.size(); ++i) {
    const AuditConnection& c = connections[i];
    if (i > 0) out += ",";
    out += "\n{";
    JsonKey(&out, "connection", true);
    JsonEntity(&out, c.uid);
    JsonKey(&out, "inStore");
    out += c.in_store ? "true" : "false";
    if (c.project) {
      JsonKey(&out, "project");
      JsonEntity(&out, *c.project);
    }
    if (c.cluster) {
      JsonKey(&out, "cluster");
      JsonEntity(&out, *c.cluster);
    }
    if (!c.last_reviewed.empty()) {
      JsonKey(&out, "lastReviewed");
      JsonString(&out, c.last_reviewed);
    }
    if (!c.review_date.empty()) {
      JsonKey(&out, "reviewDate");
      JsonString(&out, c.review_date);
      JsonKey(&out, "daysToReview");
      out += std::to_string(c.days_to_review);
    }
    if (!c.revoked.empty()) {
      JsonKey(&out, "revoked");
      JsonString(&out, c.revoked);
    }
    if (c.last_review) {
      JsonKey(&out, "lastReview");
      out += "{";
      JsonKey(&out, "date", true);
      JsonString(&out, c.last_review->date);
      JsonKey(&out, "by");
      JsonEntity(&out, c.last_review->by);
      JsonKey(&out, "decision");
      JsonString(&out, c.last_review->decision);
      JsonKey(&out, "note");
      JsonString(&out, c.last_review->note);
      out += "}";
    }
    JsonKey(&out, "namespaces");
    JsonEntities(&out, c.namespaces);
    JsonKey(&out, "findings");
    out += "[";
    for (size_t j = 0; j < c.findings.size(); ++j) {
      const AuditFinding& f = c.findings[j];
      if (j > 0) out += ",";
      out += "{";
      JsonKey(&out, "rule", true);
      JsonString(&out, f.rule);
      JsonKey(&out, "severity");
      JsonString(&out, f.severity);
      JsonKey(&out, "message");
      JsonString(&out, f.message);
      if (!f.revoke.empty()) {
        JsonKey(&out, "revoke");
        JsonString(&out, f.revoke);
      }
      out += "}";
    }
    out += "]";
    JsonKey(&out, "errors");
    out += "[";
    for (size_t j = 0; j < c.errors.size(); ++j) {
      if (j > 0) out += ",";
      out += "{";
      JsonKey(&out, "rule", true);
      JsonString(&out, c.errors[j].policy_id);
      JsonKey(&out, "message");
      JsonString(&out, c.errors[j].message);
      out += "}";
    }
    out += "]}";
  }
  out += "]";
  JsonKey(&out, "revoke");
  out += "[";
  bool first = true;
  for (const auto& [c, why] : RevokeList(*this)) {
    if (!first) out += ",";
    first = false;
    out += "{";
    JsonKey(&out, "connection", true);
    JsonEntity(&out, c->uid);
    JsonKey(&out, "rules");
    JsonStrings(&out, why);
    out += "}";
  }
  out += "]}\n";
  return out;
}

}  // namespace charter
