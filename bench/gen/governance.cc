// The generator of governance stores (see governance.h).
//
// Randomness is SplitMix64 with plain modulo, so the output depends on
// nothing but the options.
#include "bench/gen/governance.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace charter::bench {
namespace {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  size_t Below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(Next() % n); }
  bool Chance(unsigned percent) { return Below(100) < percent; }

 private:
  uint64_t state_;
};

std::string S(size_t n) { return std::to_string(n); }

// `{"type": "Governance::T", "id": "I"}`, and the same as an attribute value.
std::string Ref(const std::string& type, const std::string& id) {
  return "{\"type\":\"Governance::" + type + "\",\"id\":\"" + id + "\"}";
}
std::string Ent(const std::string& type, const std::string& id) { return "{\"__entity\":" + Ref(type, id) + "}"; }
std::string Date(const std::string& d) { return "{\"__extn\":{\"fn\":\"datetime\",\"arg\":\"" + d + "\"}}"; }
std::string Uid(const std::string& type, const std::string& id) {
  return "Governance::" + type + "::\"" + id + "\"";
}
// As a JSON string value: the uid's quotes escaped.
std::string UidJson(const std::string& type, const std::string& id) {
  return "\"Governance::" + type + "::\\\"" + id + "\\\"\"";
}

std::string Set(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i > 0 ? "," : "") + items[i];
  return out + "]";
}

// Two entity files written side by side: the current store and the
// previous snapshot, which mostly holds the same entities.
class Stores {
 public:
  // An entity in both.
  void Both(const std::string& type, const std::string& id, const std::string& attrs,
            const std::vector<std::string>& parents) {
    Current(type, id, attrs, parents);
    Previous(type, id, attrs, parents);
  }
  void Current(const std::string& type, const std::string& id, const std::string& attrs,
               const std::vector<std::string>& parents) {
    Append(&current_, type, id, attrs, parents);
    ++count_;
  }
  void Previous(const std::string& type, const std::string& id, const std::string& attrs,
                const std::vector<std::string>& parents) {
    Append(&previous_, type, id, attrs, parents);
  }
  size_t count() const { return count_; }
  std::string current() const { return "[\n" + current_ + "\n]\n"; }
  std::string previous() const { return "[\n" + previous_ + "\n]\n"; }

 private:
  static void Append(std::string* out, const std::string& type, const std::string& id, const std::string& attrs,
                     const std::vector<std::string>& parents) {
    if (!out->empty()) *out += ",\n";
    *out += "{\"uid\":" + Ref(type, id) + ",\"attrs\":{" + attrs + "},\"parents\":" + Set(parents) + "}";
  }
  std::string current_, previous_;
  size_t count_ = 0;
};

std::string ReadBasePolicies() {
#ifdef CHARTER_SOURCE_DIR
  std::ifstream in(std::string(CHARTER_SOURCE_DIR) + "/examples/governance/policies.cedar");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
#else
  return "";
#endif
}

size_t CountPolicies(const std::string& text) {
  size_t n = 0;
  for (size_t at = text.find("@id("); at != std::string::npos; at = text.find("@id(", at + 1)) ++n;
  return n;
}

constexpr const char* kWorkloadTypes[] = {"training", "fine-tuning", "evaluation", "inference", "notebook"};
constexpr const char* kClassifications[] = {"public", "internal", "confidential", "restricted"};
constexpr size_t kUnits = 10;
constexpr size_t kAdminsPerCluster = 3;

struct Namespace {
  std::string id;
  size_t project, team, cluster, connection;
  std::vector<size_t> members;  // of its team
};

struct Task {
  std::string id;
  size_t ns;
  size_t owner;
};

}  // namespace

GovernanceWorld GenerateGovernance(const GovernanceOptions& o) {
  GovernanceWorld w;
  Rng rng(o.seed);
  const size_t P = std::max<size_t>(o.projects, 1);
  const size_t T = std::max<size_t>(o.teams_per_project, 1);
  const size_t C = std::max<size_t>(o.clusters, 1);
  const size_t K = std::min(std::max<size_t>(o.connections_per_project, 1), C);
  const size_t M = std::max(o.members, 4 * P);
  Stores st;

  auto cluster_id = [](size_t c) { return "c" + S(c); };
  auto project_id = [](size_t p) { return "p" + S(p); };
  auto team_id = [](size_t p, size_t t) { return "p" + S(p) + "-t" + S(t); };
  auto member_id = [](size_t m) { return "m" + S(m); };
  auto slurm = [](size_t c) { return c % 2 == 1; };
  // Member m is in project m % P, team (m / P) % T; the project's k-th
  // member (k = m / P) is an owner for k < 2, a viewer for k % 5 == 4, a
  // contributor otherwise.
  auto member_of = [P](size_t p, size_t k) { return p + k * P; };

  // ---- organization
  st.Both("Organization", "acme", "", {});
  st.Both("DomainUnit", "ai", "\"name\":\"AI\"", {Ref("Organization", "acme")});
  for (size_t u = 0; u < kUnits; ++u) {
    st.Both("DomainUnit", "ai-u" + S(u), "\"name\":\"AI unit " + S(u) + "\"", {Ref("DomainUnit", "ai")});
  }
  for (const char* a : {"ml-prod", "ml-research"}) {
    st.Both("Account", a, std::string("\"accountId\":\"") + (a[3] == 'p' ? "111122223333" : "444455556666") + "\"",
            {Ref("DomainUnit", "ai")});
  }
  for (const char* r : {"us-east-1", "us-west-2"}) st.Both("Region", r, "", {});
  for (const char* t : {"jupyterlab", "mlflow", "tensorboard"}) st.Both("Tool", t, "", {Ref("Organization", "acme")});
  const std::string tools = Set({Ent("Tool", "jupyterlab"), Ent("Tool", "mlflow"), Ent("Tool", "tensorboard")});
  const std::string regions = Set({Ent("Region", "us-east-1"), Ent("Region", "us-west-2")});
  for (const char* pp : {"gpu-training", "gpu-research"}) {
    st.Both("ProjectProfile", pp,
            "\"domainUnit\":" + Ent("DomainUnit", "ai") + ",\"account\":" + Ent("Account", "ml-prod") +
                ",\"regions\":" + regions + ",\"tools\":" + tools,
            {Ref("DomainUnit", "ai")});
  }

  // ---- clusters: the first moved from ml-research to ml-prod since the previous snapshot
  for (size_t c = 0; c < C; ++c) {
    std::string id = cluster_id(c);
    auto attrs = [&](const std::string& account) {
      return "\"account\":" + Ent("Account", account) + ",\"region\":" +
             Ent("Region", c % 2 == 0 ? "us-east-1" : "us-west-2") + ",\"orchestrator\":" +
             Ent("Orchestrator", slurm(c) ? "slurm" : "kubernetes") + ",\"admins\":" +
             Ent("ClusterRole", id + "/cluster-admins");
    };
    st.Current("Cluster", id, attrs("ml-prod"), {Ref("Account", "ml-prod")});
    st.Previous("Cluster", id, attrs(c == 0 ? "ml-research" : "ml-prod"),
                {Ref("Account", c == 0 ? "ml-research" : "ml-prod")});
    st.Both("ClusterRole", id + "/cluster-admins", "\"cluster\":" + Ent("Cluster", id), {});
    if (slurm(c)) {
      for (const char* part : {"gpu", "cpu"}) {
        st.Both("Partition", id + "/" + part, "\"cluster\":" + Ent("Cluster", id), {Ref("Cluster", id)});
      }
    }
    const std::pair<const char*, int> classes[] = {{"low", 10}, {"training", 50}, {"inference", 90}};
    for (const auto& [name, value] : classes) {
      st.Both("PriorityClass", id + "/" + name, "\"cluster\":" + Ent("Cluster", id) + ",\"value\":" + S(value),
              {Ref("Cluster", id)});
    }
    for (size_t a = 0; a < kAdminsPerCluster; ++a) {
      // The last admin identity's owner has left (no such member).
      std::string owner = a + 1 == kAdminsPerCluster ? "departed-" + S(c) : member_id(member_of(c % P, 0));
      st.Both("Identity", id + "/ops-" + S(a),
              "\"cluster\":" + Ent("Cluster", id) + ",\"kind\":" + Ent("IdentityKind", "admin") + ",\"owner\":" +
                  Ent("Member", owner),
              {Ref("ClusterRole", id + "/cluster-admins")});
    }
  }

  // ---- projects, roles, teams
  for (size_t p = 0; p < P; ++p) {
    std::string id = project_id(p);
    std::string unit = "ai-u" + S(p % kUnits);
    st.Both("Project", id,
            "\"domainUnit\":" + Ent("DomainUnit", unit) + ",\"profile\":" +
                Ent("ProjectProfile", p % 3 == 0 ? "gpu-research" : "gpu-training") + ",\"owners\":" +
                Ent("ProjectRole", id + "/owners"),
            {Ref("DomainUnit", unit)});
    for (const char* role : {"owners", "contributors", "viewers"}) {
      st.Both("ProjectRole", id + "/" + role, "\"project\":" + Ent("Project", id), {Ref("Project", id)});
    }
    for (size_t t = 0; t < T; ++t) {
      st.Both("Team", team_id(p, t), "\"project\":" + Ent("Project", id), {Ref("Project", id)});
    }
  }

  // ---- connections, namespaces, allocations, workload identities
  std::vector<Namespace> namespaces;
  size_t conn = 0;
  for (size_t p = 0; p < P; ++p) {
    for (size_t j = 0; j < K; ++j, ++conn) {
      size_t c = (p + j) % C;
      std::string id = project_id(p) + "/" + cluster_id(c);
      w.connections.push_back(id);
      auto members_json = [&](size_t business) {
        std::string out;
        out += "\"businessOwner\":" + Ent("Member", member_id(business));
        if (conn % 23 != 7) out += ",\"operationsOwner\":" + Ent("Member", member_id(member_of(p, 2)));
        if (conn % 17 != 5) out += ",\"costOwner\":" + Ent("Member", member_id(member_of(p, 3)));
        return out;
      };
      auto contract = [&](size_t business, bool confidential, bool notebook) {
        std::vector<std::string> types = {Ent("WorkloadType", "training"), Ent("WorkloadType", "fine-tuning"),
                                          Ent("WorkloadType", "evaluation")};
        if (conn % 3 == 0) types.push_back(Ent("WorkloadType", "inference"));
        if (notebook) types.push_back(Ent("WorkloadType", "notebook"));
        std::vector<std::string> classes = {Ent("DataClassification", "public"),
                                            Ent("DataClassification", "internal")};
        if (confidential) classes.push_back(Ent("DataClassification", "confidential"));
        std::vector<std::string> priorities = {Ent("PriorityClass", cluster_id(c) + "/low"),
                                               Ent("PriorityClass", cluster_id(c) + "/training")};
        if (conn % 3 == 0) priorities.push_back(Ent("PriorityClass", cluster_id(c) + "/inference"));
        // Reviews fall due over the year around 2026-01-15; some are overdue.
        size_t month = 1 + conn % 12;
        std::string mm = (month < 10 ? "0" : "") + S(month);
        std::string review = (conn % 5 == 0 ? "2025-" : "2026-") + mm + "-15";
        std::string last = (conn % 5 == 0 ? "2024-" : "2025-") + mm + "-15";
        std::string out = "\"contract\":{" + members_json(business) + ",\"approvedWorkloadTypes\":" + Set(types) +
                          ",\"approvedDataClassifications\":" + Set(classes) +
                          ",\"schedulingPolicy\":{\"priorityClasses\":" + Set(priorities) + ",\"queueing\":\"" +
                          (conn % 2 == 0 ? "task-ranking" : "first-come-first-serve") +
                          "\",\"mayBorrow\":" + (conn % 2 == 0 ? "true" : "false") +
                          "},\"monitoring\":{\"metrics\":" + (conn % 11 != 0 ? "true" : "false") +
                          ",\"logs\":true" +
                          (conn % 3 == 0 ? ",\"alertChannel\":\"#" + project_id(p) + "-oncall\"" : "") +
                          "},\"lastReviewed\":" + Date(last) + ",\"reviewDate\":" + Date(review) +
                          ",\"reviews\":[{\"date\":" + Date(last) + ",\"by\":" + Ent("Member", member_id(business)) +
                          ",\"decision\":" + Ent("ReviewDecision", "keep") + ",\"note\":\"renewed for a year\"}]";
        if (conn % 40 == 39) out += ",\"revoked\":" + Date("2025-12-01");
        return out + "}";
      };
      std::string head = "\"project\":" + Ent("Project", project_id(p)) + ",\"cluster\":" + Ent("Cluster", cluster_id(c));
      size_t owner = member_of(p, 0);
      bool confidential = conn % 2 == 0;
      bool notebook = conn % 4 == 0;
      st.Current("Connection", id, head + "," + contract(owner, confidential, notebook), {Ref("Project", project_id(p))});
      // What changed since the previous snapshot, in one connection in eight of each kind.
      size_t previous_owner = conn % 8 == 2 ? member_of(p, 5) : owner;
      bool previous_confidential = conn % 8 == 3 ? !confidential : confidential;
      bool previous_notebook = conn % 8 == 4 ? !notebook : notebook;
      st.Previous("Connection", id, head + "," + contract(previous_owner, previous_confidential, previous_notebook),
                  {Ref("Project", project_id(p))});

      for (size_t t = 0; t < T; ++t) {
        std::string ns = cluster_id(c) + "/ns-" + team_id(p, t);
        std::string alloc = cluster_id(c) + "/" + team_id(p, t);
        size_t index = namespaces.size();
        namespaces.push_back(Namespace{ns, p, t, c, conn, {}});
        std::string attrs = "\"cluster\":" + Ent("Cluster", cluster_id(c)) + ",\"team\":" +
                            Ent("Team", team_id(p, t)) + ",\"connection\":" + Ent("Connection", id) +
                            ",\"allocation\":" + Ent("Allocation", alloc);
        if (slurm(c)) {
          attrs += ",\"partitions\":" + Set(t % 2 == 0 ? std::vector<std::string>{Ent("Partition", cluster_id(c) + "/gpu"),
                                                                                  Ent("Partition", cluster_id(c) + "/cpu")}
                                                        : std::vector<std::string>{Ent("Partition", cluster_id(c) + "/cpu")});
        }
        st.Both("Namespace", ns, attrs, {Ref("Cluster", cluster_id(c))});
        size_t gpus = 8 * (1 + index % 8);
        auto allocation = [&](size_t g) {
          return "\"team\":" + Ent("Team", team_id(p, t)) + ",\"cluster\":" + Ent("Cluster", cluster_id(c)) +
                 ",\"gpus\":" + S(g) + (index % 3 != 0 ? ",\"borrowLimitGpus\":" + S(g / 2) : "") +
                 ",\"lendsIdle\":" + (index % 2 == 0 ? "true" : "false") + ",\"fairShareWeight\":" +
                 S(10 + 10 * (index % 9));
        };
        st.Current("Allocation", alloc, allocation(gpus), {Ref("Team", team_id(p, t))});
        st.Previous("Allocation", alloc, allocation(conn % 8 == 5 ? gpus * 2 : gpus), {Ref("Team", team_id(p, t))});
        std::vector<std::string> parents = {Ref("Team", team_id(p, t))};
        // One workload identity in fifty was put in the admin role by mistake.
        if (index % 50 == 17) parents.push_back(Ref("ClusterRole", cluster_id(c) + "/cluster-admins"));
        st.Both("Identity", cluster_id(c) + "/" + team_id(p, t) + "-runner",
                "\"cluster\":" + Ent("Cluster", cluster_id(c)) + ",\"kind\":" + Ent("IdentityKind", "workload") +
                    ",\"owner\":" + Ent("Member", member_id(member_of(p, std::min<size_t>(2 + t, 3)))),
                parents);
      }
      // A namespace that used the connection and is gone since.
      if (conn % 8 == 6) {
        std::string ns = cluster_id(c) + "/ns-" + project_id(p) + "-retired";
        st.Previous("Namespace", ns,
                    "\"cluster\":" + Ent("Cluster", cluster_id(c)) + ",\"team\":" + Ent("Team", team_id(p, 0)) +
                        ",\"connection\":" + Ent("Connection", id) + ",\"allocation\":" +
                        Ent("Allocation", cluster_id(c) + "/" + team_id(p, 0)),
                    {Ref("Cluster", cluster_id(c))});
      }
    }
  }
  w.connection_count = conn;

  // ---- members
  std::vector<std::vector<size_t>> team_members(P * T);
  for (size_t m = 0; m < M; ++m) {
    size_t p = m % P, k = m / P, t = k % T;
    const char* role = k < 2 ? "owners" : k % 5 == 4 ? "viewers" : "contributors";
    bool suspended = m % 97 == 50;
    std::string attrs = "\"email\":\"" + member_id(m) + "@acme.example\",\"suspended\":" +
                        (suspended ? "true" : "false");
    std::vector<std::string> parents = {Ref("DomainUnit", "ai-u" + S(p % kUnits)),
                                        Ref("ProjectRole", project_id(p) + "/" + role), Ref("Team", team_id(p, t))};
    st.Current("Member", member_id(m), attrs, parents);
    // Ownership changed since the previous snapshot in one project in eight:
    // the first owner was then a contributor, the third member an owner.
    if (p % 8 == 1 && (k == 0 || k == 2)) {
      parents[1] = Ref("ProjectRole", project_id(p) + "/" + (k == 0 ? "contributors" : "owners"));
    }
    st.Previous("Member", member_id(m), attrs, parents);
    team_members[p * T + t].push_back(m);
    if (w.member.empty() && k >= 2 && k % 5 != 4 && !suspended) w.member = member_id(m);
  }
  for (Namespace& ns : namespaces) ns.members = team_members[ns.project * T + ns.team];

  // ---- tasks, until the store has `entities` entities
  std::vector<Task> tasks;
  size_t task_total = o.entities > st.count() ? o.entities - st.count() : 0;
  for (size_t i = 0; i < task_total; ++i) {
    size_t n = rng.Below(namespaces.size());
    const Namespace& ns = namespaces[n];
    size_t owner = ns.members.empty() ? member_of(ns.project, 0) : ns.members[rng.Below(ns.members.size())];
    std::string id = "t" + S(i);
    tasks.push_back(Task{id, n, owner});
    std::string c = cluster_id(ns.cluster);
    const char* type = kWorkloadTypes[rng.Below(100) < 60 ? 0 : 1 + rng.Below(4)];
    const char* cls = kClassifications[rng.Below(100) < 45 ? 1 : rng.Below(4)];
    const char* priority = rng.Chance(70) ? "training" : rng.Chance(50) ? "low" : "inference";
    static constexpr size_t kGpus[] = {1, 2, 4, 8, 8, 16, 32, 64, 96};
    size_t gpus = kGpus[rng.Below(sizeof kGpus / sizeof kGpus[0])];
    std::string attrs = "\"namespace\":" + Ent("Namespace", ns.id) + ",\"owner\":" + Ent("Member", member_id(owner)) +
                        ",\"workloadType\":" + Ent("WorkloadType", type) + ",\"dataClassification\":" +
                        Ent("DataClassification", cls) + ",\"priorityClass\":" + Ent("PriorityClass", c + "/" + priority);
    if (slurm(ns.cluster)) attrs += ",\"partition\":" + Ent("Partition", c + (rng.Chance(80) ? "/gpu" : "/cpu"));
    attrs += ",\"requests\":{\"gpus\":" + S(gpus) + ",\"cpuMillis\":" + S(gpus * 12000) + ",\"memoryMiB\":" +
             S(gpus * 98304) + "}";
    st.Both("Task", id, attrs, {Ref("Namespace", ns.id)});
  }
  w.task_count = tasks.size();
  w.entity_count = st.count();
  w.entities = st.current();
  w.previous = st.previous();

  // ---- policies: the example's, then per-project, per-team and per-namespace ones
  std::string base = o.base_policies.empty() ? ReadBasePolicies() : o.base_policies;
  size_t base_count = CountPolicies(base);
  size_t want = o.policies > base_count ? o.policies - base_count : 0;
  std::vector<std::vector<size_t>> project_namespaces(P);
  for (size_t n = 0; n < namespaces.size(); ++n) project_namespaces[namespaces[n].project].push_back(n);
  // Each template writes one policy for one project, team or namespace;
  // `tight` is the narrower version `tightened` holds (empty: dropped).
  struct Policy {
    std::string text, tight;
  };
  auto head = [](const std::string& id) { return "@id(\"" + id + "\")\n"; };
  auto action = [](const char* a) { return Uid("Action", a); };
  std::vector<std::vector<Policy>> by_template;
  auto per_project = [&](auto make) {
    std::vector<Policy> out;
    for (size_t p = 0; p < P; ++p) out.push_back(make(p));
    by_template.push_back(std::move(out));
  };
  auto per_team = [&](auto make) {
    std::vector<Policy> out;
    for (size_t p = 0; p < P; ++p) {
      for (size_t t = 0; t < T; ++t) out.push_back(make(p, t));
    }
    by_template.push_back(std::move(out));
  };
  auto per_namespace = [&](auto make) {
    std::vector<Policy> out;
    for (const Namespace& ns : namespaces) out.push_back(make(ns));
    by_template.push_back(std::move(out));
  };
  // A project's viewers see its tasks.
  per_project([&](size_t p) {
    std::string pid = project_id(p);
    std::string text = head(pid + "-viewers-see-tasks") + "permit (principal in " + Uid("ProjectRole", pid + "/viewers") +
                       ", action == " + action("viewTask") + ", resource)\nwhen { resource.namespace.connection.project == " +
                       Uid("Project", pid) + " };\n";
    return Policy{text, text};
  });
  // A project's owners see and cancel its tasks (dropped for a tenth of the
  // projects in the tightened set).
  per_project([&](size_t p) {
    std::string pid = project_id(p);
    std::string text = head(pid + "-owners-oversee-tasks") + "permit (principal in " +
                       Uid("ProjectRole", pid + "/owners") + ", action in [" + action("viewTask") + ", " +
                       action("cancelTask") + "], resource)\nwhen { resource.namespace.team in " + Uid("Project", pid) +
                       " };\n";
    return Policy{text, p % 10 == 3 ? "" : text};
  });
  // A team's GPU cap per namespace (lowered from 64 to 32 in the tightened set).
  per_namespace([&](const Namespace& ns) {
    auto make = [&](size_t cap) {
      return head(ns.id + "-gpu-cap") + "forbid (principal, action == " + action("submitTask") + ", resource in " +
             Uid("Namespace", ns.id) + ")\nwhen { resource.requests.gpus > " + S(cap) + " };\n";
    };
    return Policy{make(64), make(32)};
  });
  // A project's owners reach the Kubernetes API of its namespaces.
  per_project([&](size_t p) {
    std::string pid = project_id(p);
    std::string text = head(pid + "-owners-use-kube-api") + "permit (principal in " + Uid("ProjectRole", pid + "/owners") +
                       ", action == " + action("accessKubeApi") + ", resource)\nwhen { resource.connection.project == " +
                       Uid("Project", pid) + " };\n";
    return Policy{text, text};
  });
  // Restricted data stays with the project: submitted only by its owners.
  per_project([&](size_t p) {
    std::string pid = project_id(p);
    std::string text = head(pid + "-restricted-data-by-owners") + "forbid (principal, action == " + action("submitTask") +
                       ", resource)\nwhen { resource.namespace.connection.project == " + Uid("Project", pid) +
                       " && resource.dataClassification == " + Uid("DataClassification", "restricted") +
                       " }\nunless { principal in " + Uid("ProjectRole", pid + "/owners") + " };\n";
    return Policy{text, text};
  });
  // A team submits no multi-GPU notebooks.
  per_team([&](size_t p, size_t t) {
    std::string tid = team_id(p, t);
    std::string text = head(tid + "-no-big-notebooks") + "forbid (principal in " + Uid("Team", tid) + ", action == " +
                       action("submitTask") + ", resource)\nwhen { resource.workloadType == " +
                       Uid("WorkloadType", "notebook") + " && resource.requests.gpus > 1 };\n";
    return Policy{text, text};
  });
  // A team sees the inference tasks of its whole project.
  per_team([&](size_t p, size_t t) {
    std::string tid = team_id(p, t);
    std::string text = head(tid + "-sees-project-inference") + "permit (principal in " + Uid("Team", tid) + ", action == " +
                       action("viewTask") + ", resource)\nwhen { resource.namespace.connection.project == " +
                       Uid("Project", project_id(p)) + " && resource.workloadType == " +
                       Uid("WorkloadType", "inference") + " };\n";
    return Policy{text, text};
  });
  // Restricted tasks of a namespace are hidden from all but the project's owners.
  per_namespace([&](const Namespace& ns) {
    std::string text = head(ns.id + "-hide-restricted") + "forbid (principal, action == " + action("viewTask") +
                       ", resource in " + Uid("Namespace", ns.id) + ")\nwhen { resource.dataClassification == " +
                       Uid("DataClassification", "restricted") + " }\nunless { principal in " +
                       Uid("ProjectRole", project_id(ns.project) + "/owners") + " };\n";
    return Policy{text, text};
  });
  // A project's owners set its priority classes up to training.
  per_project([&](size_t p) {
    std::string pid = project_id(p);
    std::string text = head(pid + "-owners-set-priorities") + "permit (principal in " +
                       Uid("ProjectRole", pid + "/owners") + ", action == " + action("usePriorityClass") +
                       ", resource)\nwhen { context.namespace.connection.project == " + Uid("Project", pid) +
                       " && resource.value <= 50 };\n";
    return Policy{text, text};
  });
  // A project's contributors use the organization's tools for it.
  per_project([&](size_t p) {
    std::string pid = project_id(p);
    std::string text = head(pid + "-contributors-use-tools") + "permit (principal in " +
                       Uid("ProjectRole", pid + "/contributors") + ", action == " + action("useTool") +
                       ", resource in " + Uid("Organization", "acme") + ")\nwhen { context.project == " +
                       Uid("Project", pid) + " };\n";
    return Policy{text, text};
  });

  std::string generated, tightened;
  size_t made = 0;
  for (size_t round = 0; made < want; ++round) {
    size_t before = made;
    for (const std::vector<Policy>& group : by_template) {
      for (const Policy& policy : group) {
        if (made == want) break;
        // Later rounds repeat the templates under new ids (a set larger than
        // the world has projects for).
        std::string text = policy.text, tight = policy.tight;
        if (round > 0) {
          std::string suffix = "-r" + S(round) + "\")";
          size_t at = text.find("\")");
          text.replace(at, 2, suffix);
          if (!tight.empty()) tight.replace(tight.find("\")"), 2, suffix);
        }
        generated += "\n" + text;
        if (!tight.empty()) tightened += "\n" + tight;
        ++made;
      }
    }
    if (made == before) break;
  }
  w.policies = base + "\n// ---- generated: per-project, per-team and per-namespace rules\n" + generated;
  w.tightened = base + "\n// ---- generated, tightened\n" + tightened;
  w.policy_count = base_count + made;

  // ---- the decision log
  std::string log;
  const std::string now = "{\"now\":" + Date("2026-01-15T09:00:00Z") + "}";
  for (size_t r = 0; r < o.requests && !tasks.empty(); ++r) {
    const Task& task = tasks[rng.Below(tasks.size())];
    const Namespace& ns = namespaces[task.ns];
    auto team_member = [&]() {
      return rng.Chance(75) && !ns.members.empty() ? ns.members[rng.Below(ns.members.size())] : rng.Below(M);
    };
    auto runner = [&]() { return cluster_id(ns.cluster) + "/" + team_id(ns.project, ns.team) + "-runner"; };
    std::string ptype = "Member", pid, act, rtype, rid, context = "{}";
    size_t kind = rng.Below(20);
    if (kind < 8) {
      act = "viewTask", rtype = "Task", rid = task.id;
      if (rng.Chance(8)) {
        ptype = "Identity", pid = rng.Chance(50) ? runner() : cluster_id(ns.cluster) + "/ops-0";
      } else {
        pid = member_id(team_member());
      }
    } else if (kind < 12) {
      act = "submitTask", rtype = "Task", rid = task.id, context = now;
      if (rng.Chance(10)) {
        ptype = "Identity", pid = runner();
      } else {
        pid = member_id(team_member());
      }
    } else if (kind < 14) {
      act = "cancelTask", rtype = "Task", rid = task.id;
      pid = member_id(rng.Chance(50) ? task.owner : team_member());
    } else if (kind < 16) {
      act = "accessKubeApi", rtype = "Namespace", rid = ns.id;
      context = std::string("{\"mfa\":") + (rng.Chance(85) ? "true" : "false") + "}";
      if (rng.Chance(20)) {
        ptype = "Identity", pid = runner();
      } else {
        pid = member_id(team_member());
      }
    } else if (kind < 18) {
      static constexpr const char* kPriorities[] = {"low", "training", "inference"};
      act = "usePriorityClass", rtype = "PriorityClass";
      rid = cluster_id(ns.cluster) + "/" + kPriorities[rng.Below(3)];
      context = "{\"namespace\":" + Ent("Namespace", ns.id) + "}";
      pid = member_id(team_member());
    } else if (kind < 19) {
      act = "connectCluster", rtype = "Connection", rid = w.connections[ns.connection], context = now;
      pid = member_id(rng.Chance(70) ? member_of(ns.project, rng.Below(2)) : rng.Below(M));
    } else {
      static constexpr const char* kLifecycle[] = {"manageCluster", "upgradeCluster", "createNamespace"};
      act = kLifecycle[rng.Below(3)], rtype = "Cluster", rid = cluster_id(ns.cluster);
      ptype = "Identity", pid = rng.Chance(50) ? runner() : cluster_id(ns.cluster) + "/ops-" + S(rng.Below(3));
    }
    log += "{\"time\":\"2026-01-15T09:" + std::string(r % 60 < 10 ? "0" : "") + S(r % 60) + ":00." +
           S(100000 + r % 900000) + "Z\",\"endpoint\":\"authorize\",\"uid\":\"req-" + S(r) + "\",\"principal\":" +
           UidJson(ptype, pid) + ",\"action\":" + UidJson("Action", act) + ",\"resource\":" + UidJson(rtype, rid) +
           ",\"decision\":\"allow\",\"reasons\":[],\"errors\":[],\"bundle\":\"sha256:0\",\"latency_us\":2"
           ",\"request\":{\"principal\":" + Ref(ptype, pid) + ",\"action\":" + Ref("Action", act) +
           ",\"resource\":" + Ref(rtype, rid) + ",\"context\":" + context + "}}\n";
  }
  w.decision_log = std::move(log);
  return w;
}

}  // namespace charter::bench
