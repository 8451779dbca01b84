// ReviewAccess (charter/governance.h): who may do what through one connection.
//
// What the connection reaches comes from the model: the connection, its
// project and cluster, the namespaces that name it, their tasks, teams and
// allocations, the project's roles and its profile's tools, the cluster's
// priority classes. Each action of a layer (an action under a top-level
// group) that takes one of those as its resource gets a row for each such
// resource and each context the review builds from what the connection
// reaches. For a row, each permit is run with the principal unknown
// (principal_scope.h): the principals that can satisfy it are those within
// one of its anchors (or every principal of the action's principal types,
// when it has none). Only those are decided, each by the engine's own
// authorizer, so every answer is Engine::Authorize's.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "unwrap/unwrap.h"
#include "charter/governance.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "json/json.h"
#include "request/request_data.h"
#include "governance/model.h"
#include "governance/principal_scope.h"
#include "governance/render.h"
#include "schema/schema_model.h"
#include "vm/authorizer.h"
#include "vm/program.h"

namespace charter {
namespace internal::review {
namespace {

constexpr std::string_view kAnyone = "(anyone)";

// The kinds of findings (AccessFindingKinds), by index.
enum FindingKindIndex : size_t {
  kWorkloadIdentityLifecycle,
  kWorkloadIdentityHeldBack,
  kSuspendedMember,
  kIdentityOwnerSuspended,
  kIdentityOwnerGone,
  kOutsideMember,
  kForeignIdentity,
  kNobody,
};
constexpr AccessFindingKind kFindingKinds[] = {
    {"workload-identity-lifecycle", "high", "a workload identity is allowed a cluster-lifecycle action"},
    {"workload-identity-held-back", "medium",
     "a permit grants a workload identity a lifecycle action and only a forbid refuses it"},
    {"suspended-member", "high", "a suspended member is allowed an action"},
    {"identity-owner-suspended", "high", "an identity is allowed an action and its owner is suspended"},
    {"identity-owner-gone", "high", "an identity is allowed an action and its owner is not in the store"},
    {"outside-member", "medium", "a member of another project (or of none) is allowed an action"},
    {"foreign-identity", "medium", "an identity of another cluster is allowed an action"},
    {"nobody", "low", "nobody may perform an action on anything the connection reaches"},
};

// The rank of a layer, for ordering: the model's four first, then any other.
int LayerRank(std::string_view layer) {
  static constexpr std::string_view kLayers[] = {"organization", "project", "cluster", "workload"};
  for (int i = 0; i < 4; ++i) {
    if (layer == kLayers[i]) return i;
  }
  return 4;
}

// The layer an action belongs to: its top-level group, less "Actions"; empty
// for an action in no group. Of several top-level groups, the least by key
// (the hierarchy iterates in its depth-first order, which follows the
// schema's text; the layer must not).
std::string LayerOf(const SchemaModel& model, const ActionInfo& action) {
  const ActionKey* top = nullptr;
  for (const ActionKey& k : action.ancestors) {
    const ActionInfo* group = model.FindAction(k);
    if (group == nullptr || !group->parents.empty()) continue;
    if (top == nullptr || k < *top) top = &k;
  }
  if (top != nullptr) {
    std::string name = top->id;
    constexpr std::string_view kSuffix = "Actions";
    if (name.size() > kSuffix.size() && name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0) {
      name.resize(name.size() - kSuffix.size());
    }
    return name;
  }
  return "";
}

// A context attribute filled with one of several values.
struct ContextChoice {
  std::string name;
  std::vector<std::string> json;  // each a JSON value
};

std::string EntityJson(std::string_view type, std::string_view id) {
  std::string out = "{\"__entity\": {\"type\": ";
  json::AppendQuoted(&out, type);
  out += ", \"id\": ";
  json::AppendQuoted(&out, id);
  out += "}}";
  return out;
}

struct RowWork {
  AccessRow row;
  int layer_rank = 0;
  uint32_t resource = kNoUid;
  const ActionInfo* action = nullptr;
  std::shared_ptr<RequestData> request;
};

struct FindingKey {
  std::string kind;
  std::string principal;
  std::string action;
  friend bool operator<(const FindingKey& a, const FindingKey& b) {
    return std::tie(a.kind, a.principal, a.action) < std::tie(b.kind, b.principal, b.action);
  }
};

int SeverityRank(std::string_view s) { return s == "high" ? 0 : s == "medium" ? 1 : 2; }

}  // namespace
}  // namespace internal::review

absl::StatusOr<AccessReport> ReviewAccess(const Engine& engine, const Entities& entities, const Schema& schema,
                                          const EntityUid& connection, const AccessOptions& options) {
  using namespace internal;
  using internal::Value;  // not charter::Value
  using namespace internal::review;
  const std::shared_ptr<const Program>& program = Unwrap::SharedProgram(engine);
  const std::shared_ptr<const EntityStore>& shared_store = Unwrap::SharedStore(entities);
  const EntityStore& store = *shared_store;
  const SchemaModel& model = Unwrap::Model(schema);
  if (engine.FitSchema(&schema) == Engine::SchemaFit::kOther) {
    return absl::InvalidArgumentError(Cat("the policies were compiled against another schema (",
                                          engine.schema_fingerprint(), ") than the one given (",
                                          schema.Fingerprint(), ")"));
  }
  ASSIGN_OR_RETURN(int64_t now, ParseDate(options.at));
  const ModelNames names = ModelNames::For(connection.type);
  const StoreIndex index(store);
  const uint32_t conn = index.Find(connection);
  if (!index.HasData(conn)) {
    return absl::NotFoundError(Cat("the entities have no connection ", EntityToCedar(connection.type, connection.id)));
  }

  AccessReport report;
  report.connection = connection;
  report.at = options.at;

  // ---- what the connection reaches, by entity type
  std::map<std::string, std::vector<uint32_t>, std::less<>> reach;
  auto add = [&](const std::string& type, uint32_t uid) {
    if (!index.HasData(uid)) return;
    std::vector<uint32_t>& list = reach[type];
    if (std::find(list.begin(), list.end(), uid) == list.end()) list.push_back(uid);
  };
  add(names.connection, conn);
  const uint32_t project = index.EntityAt(conn, {"project"});
  const uint32_t cluster = index.EntityAt(conn, {"cluster"});
  if (index.HasData(project)) {
    report.project = index.Uid(project);
    add(names.project, project);
  }
  if (index.HasData(cluster)) {
    report.cluster = index.Uid(cluster);
    add(names.cluster, cluster);
  }
  std::set<uint32_t> opened;
  for (uint32_t ns : index.OfType(names.ns_type)) {
    if (index.EntityAt(ns, {"connection"}) != conn) continue;
    opened.insert(ns);
    report.namespaces.push_back(index.Uid(ns));
    add(names.ns_type, ns);
    add(names.team, index.EntityAt(ns, {"team"}));
    add(names.allocation, index.EntityAt(ns, {"allocation"}));
  }
  for (uint32_t t : index.OfType(names.task)) {
    if (opened.count(index.EntityAt(t, {"namespace"}))) add(names.task, t);
  }
  if (index.HasData(project)) {
    for (uint32_t r : index.OfType(names.project_role)) {
      if (index.EntityAt(r, {"project"}) == project) add(names.project_role, r);
    }
    if (const Value* tools = index.Attr(project, {"profile", "tools"}); tools != nullptr && tools->type == Type::kSet) {
      for (uint32_t i = 0; i < tools->size; ++i) add(names.tool, index.UidOf(tools->elements[i]));
    }
  }
  if (index.HasData(cluster)) {
    for (uint32_t pc : index.OfType(names.priority_class)) {
      if (index.EntityAt(pc, {"cluster"}) == cluster) add(names.priority_class, pc);
    }
  }

  // ---- the rows: each action of a layer on each resource it reaches, in
  // each context built from what the connection reaches
  std::vector<RowWork> rows;
  for (const auto& [key, action] : model.actions) {
    if (!action.applies) continue;
    std::string layer = LayerOf(model, action);
    if (layer.empty()) continue;
    std::vector<uint32_t> resources;
    for (const std::string& type : action.resources) {
      auto it = reach.find(type);
      if (it != reach.end()) resources.insert(resources.end(), it->second.begin(), it->second.end());
    }
    if (resources.empty() || action.principals.empty()) continue;
    // The context: each attribute from what the connection reaches.
    std::vector<ContextChoice> choices;
    std::string skip;
    if (action.context != nullptr) {
      for (const auto& [name, attr] : action.context->attrs) {
        const SchemaType& t = *attr.type;
        ContextChoice choice{name, {}};
        if (t.kind == SchemaType::Kind::kExtension && t.name == "datetime") {
          choice.json.push_back(Cat("{\"__extn\": {\"fn\": \"datetime\", \"arg\": \"", FormatDate(now), "\"}}"));
        } else if (t.is_bool()) {
          choice.json.push_back(t.kind == SchemaType::Kind::kFalse ? "false"
                                : t.kind == SchemaType::Kind::kTrue ? "true"
                                : options.bool_context ? "true" : "false");
        } else if (t.kind == SchemaType::Kind::kEntity) {
          auto it = reach.find(t.name);
          if (it != reach.end()) {
            for (uint32_t u : it->second) {
              const EntityRef& r = store.ref(u);
              choice.json.push_back(EntityJson(r.type, r.id));
            }
          } else {
            choice.json.push_back(EntityJson(t.name, kAnyone));
          }
        } else if (!attr.required) {
          continue;
        } else {
          skip = Cat(key.id, ": its context needs `", name, "` (", TypeName(t), "), which the review cannot fill");
          break;
        }
        choices.push_back(std::move(choice));
      }
    }
    if (!skip.empty()) {
      report.skipped.push_back(std::move(skip));
      continue;
    }
    // Every combination of the choices.
    std::vector<std::string> contexts{""};
    for (const ContextChoice& choice : choices) {
      std::vector<std::string> more;
      for (const std::string& base : contexts) {
        for (const std::string& value : choice.json) {
          std::string c = base;
          CatAppend(&c, c.empty() ? "" : ", ", "\"", choice.name, "\": ", value);
          more.push_back(std::move(c));
        }
      }
      contexts = std::move(more);
    }
    for (uint32_t resource : resources) {
      for (const std::string& fields : contexts) {
        RowWork w;
        w.row.layer = layer;
        w.layer_rank = LayerRank(layer);
        w.row.action = EntityUid{key.type, key.id};
        w.row.resource = index.Uid(resource);
        w.resource = resource;
        w.action = &action;
        // The request's principal is a stand-in: each candidate replaces it.
        EntityUid stand_in{action.principals.front(), std::string(kAnyone)};
        w.row.context_json = Cat("{", fields, "}");
        ASSIGN_OR_RETURN(w.request, MakeRequest(stand_in, w.row.action, w.row.resource, w.row.context_json,
                                                "context", &model));
        w.row.context = ToCedar(w.request->context);
        rows.push_back(std::move(w));
      }
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const RowWork& a, const RowWork& b) {
    return a.layer_rank != b.layer_rank ? a.layer_rank < b.layer_rank : a.row.layer < b.row.layer;
  });

  // ---- each row: the candidates, then the authorizer's decision for each
  const std::vector<PolicyCode>& policies = program->policies();
  EvalScratch scratch;
  Arena arena;
  std::vector<uint32_t> mark(store.num_uids(), 0);
  uint32_t stamp = 0;
  std::vector<uint32_t> candidates, found;
  for (RowWork& w : rows) {
    const RequestData& data = *w.request;
    EntityRef action_ref = data.action_ref, resource_ref = data.resource_ref;
    action_ref.uid = store.Find(action_ref.type, action_ref.id);
    resource_ref.uid = w.resource;
    Value vars[4] = {Value(), Value::Entity(&action_ref), Value::Entity(&resource_ref), data.context};
    std::set<std::string_view> principal_types(w.action->principals.begin(), w.action->principals.end());
    for (const std::string& t : w.action->principals) report.combinations += index.OfType(t).size();

    ++stamp;
    candidates.clear();
    bool everyone = options.brute_force;
    auto take = [&](uint32_t u) {
      if (u == kNoUid || mark[u] == stamp || !index.HasData(u)) return;
      if (!principal_types.count(store.ref(u).type)) return;
      mark[u] = stamp;
      candidates.push_back(u);
    };
    std::map<std::string_view, PrincipalAnchor> anchor_of;  // policy id -> the anchor used
    arena.Reset();
    for (const PolicyCode& p : policies) {
      if (p.forbid) continue;
      PrincipalScope scope = AnalyzePrincipal(*program, p, vars, store, &arena);
      if (scope.never) continue;
      // The most selective anchor: == before `in` before `is`.
      const PrincipalAnchor* best = nullptr;
      for (const PrincipalAnchor& a : scope.anchors) {
        if (best == nullptr || a.kind < best->kind) best = &a;
      }
      if (best == nullptr) {
        everyone = true;
        continue;
      }
      anchor_of[p.id] = *best;
      if (everyone) continue;
      if (best->kind == PrincipalAnchor::kIs) {
        for (uint32_t u : index.OfType(best->type)) take(u);
        continue;
      }
      for (const EntityRef& e : best->entities) {
        uint32_t u = store.Resolve(e);
        if (best->kind == PrincipalAnchor::kEq) {
          take(u);
        } else {
          found.clear();
          index.Descendants(u, &found);
          for (uint32_t d : found) take(d);
        }
      }
    }
    if (everyone) {
      candidates.clear();
      for (const std::string& t : w.action->principals) {
        for (uint32_t u : index.OfType(t)) candidates.push_back(u);
      }
    }
    std::sort(candidates.begin(), candidates.end());
    std::set<std::string> erring;
    for (uint32_t u : candidates) {
      EntityRef principal_ref = store.ref(u);
      principal_ref.uid = u;
      RequestView view{{&principal_ref, &data.action_ref, &data.resource_ref}, nullptr, &data.context};
      uint64_t hashes[3] = {store.key_hash(u), data.key_hashes[1], data.key_hashes[2]};
      view.key_hashes = hashes;
      bool allowed = Authorize(program, view, shared_store, &scratch);
      ++report.decided;
      for (const PolicyErrorView& e : scratch.errors) erring.insert(std::string(e.policy_id));
      if (allowed) {
        AccessGrant g;
        g.principal = index.Uid(u);
        for (std::string_view id : scratch.permits) g.reasons.emplace_back(id);
        // The path: through the first determining permit's anchor.
        for (std::string_view id : scratch.permits) {
          auto it = anchor_of.find(id);
          if (it == anchor_of.end() || it->second.kind == PrincipalAnchor::kIs) continue;
          if (it->second.kind == PrincipalAnchor::kEq) {
            g.path.push_back(g.principal);
            break;
          }
          for (const EntityRef& e : it->second.entities) {
            std::vector<uint32_t> up = index.PathUp(u, store.Resolve(e));
            if (up.empty()) continue;
            for (uint32_t x : up) g.path.push_back(index.Uid(x));
            break;
          }
          if (!g.path.empty()) break;
        }
        w.row.allowed.push_back(std::move(g));
      } else if (!scratch.permits.empty() && !scratch.forbids.empty()) {
        AccessRefusal r;
        r.principal = index.Uid(u);
        for (std::string_view id : scratch.permits) r.permits.emplace_back(id);
        for (std::string_view id : scratch.forbids) r.forbids.emplace_back(id);
        w.row.refused.push_back(std::move(r));
      }
    }
    w.row.erring.assign(erring.begin(), erring.end());
  }

  // ---- findings
  const bool known_project = index.HasData(project);
  std::map<FindingKey, std::pair<AccessFinding, std::vector<EntityUid>>> found_findings;
  auto is_lifecycle = [&](const ActionInfo& a) {
    return a.ancestors.count(ActionKey{names.action, "clusterLifecycle"}) > 0;
  };
  auto label = [&](const EntityUid& u) { return names.Short(u.type, u.id); };
  auto note = [&](FindingKindIndex k, const EntityUid& principal, const RowWork& w, std::string message) {
    const AccessFindingKind& kind = kFindingKinds[k];
    FindingKey key{std::string(kind.kind), EntityToCedar(principal.type, principal.id), w.row.action.id};
    auto [it, added] = found_findings.try_emplace(key);
    if (added) {
      it->second.first = AccessFinding{std::string(kind.kind), std::string(kind.severity), std::move(message),
                                       principal, w.row.action};
    }
    it->second.second.push_back(w.row.resource);
  };
  std::map<std::string, std::pair<size_t, std::string>> allowed_by_action;  // action -> (grants, resource type)
  for (const RowWork& w : rows) {
    auto& count = allowed_by_action[w.row.action.id];
    count.first += w.row.allowed.size();
    count.second = w.row.resource.type;
    const bool lifecycle = is_lifecycle(*w.action);
    for (const AccessGrant& g : w.row.allowed) {
      uint32_t u = index.Find(g.principal);
      const std::string p = label(g.principal);
      if (g.principal.type == names.identity) {
        const Value* kind = index.Attr(u, {"kind"});
        bool workload = kind != nullptr && kind->type == Type::kEntity && kind->entity->id == "workload";
        if (workload && lifecycle) {
          note(kWorkloadIdentityLifecycle, g.principal, w,
               Cat("workload identity ", p, " may ", w.row.action.id, " %R; the model gives the cluster "
                   "lifecycle to admin identities only"));
        }
        uint32_t owner = index.EntityAt(u, {"owner"});
        if (owner != kNoUid && !index.HasData(owner)) {
          note(kIdentityOwnerGone, g.principal, w,
               Cat(p, " may ", w.row.action.id, " %R, but its owner ", store.ref(owner).id,
                   " is not in the store"));
        } else if (const Value* s = index.Attr(owner, {"suspended"}); s != nullptr && s->type == Type::kBool && s->b) {
          note(kIdentityOwnerSuspended, g.principal, w,
               Cat(p, " may ", w.row.action.id, " %R, but its owner ", store.ref(owner).id, " is suspended"));
        }
        uint32_t home = index.EntityAt(u, {"cluster"});
        if (index.HasData(cluster) && home != kNoUid && home != cluster) {
          note(kForeignIdentity, g.principal, w,
               Cat(p, ", an identity of cluster ", store.ref(home).id, ", may ", w.row.action.id, " %R"));
        }
      } else if (g.principal.type == names.member) {
        if (const Value* s = index.Attr(u, {"suspended"}); s != nullptr && s->type == Type::kBool && s->b) {
          note(kSuspendedMember, g.principal, w,
               Cat("suspended member ", p, " may ", w.row.action.id, " %R"));
        }
        if (known_project && !index.In(u, project)) {
          std::string projects;
          for (uint32_t other : index.OfType(names.project)) {
            if (index.In(u, other)) CatAppend(&projects, projects.empty() ? "" : ", ", store.ref(other).id);
          }
          note(kOutsideMember, g.principal, w,
               Cat(p, ", ", projects.empty() ? "a member of no project" : Cat("a member of ", projects), " and not of ",
                   store.ref(project).id, ", may ", w.row.action.id, " %R"));
        }
      }
    }
    if (lifecycle) {
      for (const AccessRefusal& r : w.row.refused) {
        uint32_t u = index.Find(r.principal);
        const Value* kind = index.Attr(u, {"kind"});
        if (r.principal.type != names.identity || kind == nullptr || kind->type != Type::kEntity ||
            kind->entity->id != "workload") {
          continue;
        }
        std::string permits, forbids;
        for (const std::string& id : r.permits) CatAppend(&permits, permits.empty() ? "" : ", ", id);
        for (const std::string& id : r.forbids) CatAppend(&forbids, forbids.empty() ? "" : ", ", id);
        note(kWorkloadIdentityHeldBack, r.principal, w,
             Cat(permits, " grants workload identity ", label(r.principal), " ", w.row.action.id,
                 " %R; only ", forbids, " refuses it"));
      }
    }
  }
  for (auto& [key, entry] : found_findings) {
    AccessFinding f = entry.first;
    const std::vector<EntityUid>& where = entry.second;
    std::string on = Cat("on ", label(where.front()));
    if (where.size() > 1) CatAppend(&on, " and ", where.size() - 1, " more");
    size_t at = f.message.find("%R");
    if (at != std::string::npos) f.message.replace(at, 2, on);
    report.findings.push_back(std::move(f));
  }
  for (const auto& [action, count] : allowed_by_action) {
    if (count.first > 0) continue;
    size_t resources = 0;
    for (const RowWork& w : rows) resources += w.row.action.id == action ? 1 : 0;
    std::string type = count.second;
    if (size_t colons = type.rfind("::"); colons != std::string::npos) type = type.substr(colons + 2);
    AccessFinding f{std::string(kFindingKinds[kNobody].kind), std::string(kFindingKinds[kNobody].severity),
                    Cat("nobody may ", action, " on what the connection reaches (", resources, " ",
                        resources == 1 ? "request" : "requests", " on ", type, ")"),
                    std::nullopt, EntityUid{names.action, action}};
    report.findings.push_back(std::move(f));
  }
  std::stable_sort(report.findings.begin(), report.findings.end(), [](const AccessFinding& a, const AccessFinding& b) {
    return SeverityRank(a.severity) < SeverityRank(b.severity);
  });

  for (RowWork& w : rows) report.rows.push_back(std::move(w.row));
  return report;
}

std::span<const AccessFindingKind> AccessFindingKinds() { return internal::review::kFindingKinds; }

}  // namespace charter
