// The governance-shaped workload generator (see workload.h).
//
// The world, for E entities: 4 clusters; one role (cluster admins); E/100
// teams, each owning two namespaces, namespace k on cluster k % 4; E/2 users,
// user u in team u % teams (a tenth also in a second team, a few cluster
// admins, one in a hundred suspended); the rest are tasks, task i in
// namespace i % namespaces, with an owner, a priority and a GPU count.
//
// Randomness is SplitMix64 with plain modulo, so the output depends on
// nothing but the options (not on the standard library's distributions).
#include "bench/gen/workload.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

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
  size_t Below(size_t n) { return static_cast<size_t>(Next() % n); }
  bool Chance(unsigned percent) { return Below(100) < percent; }

 private:
  uint64_t state_;
};

constexpr const char* kActions[] = {"submitTask", "viewTask",   "cancelTask",
                                    "listTasks",  "updateTask", "deleteTask"};
constexpr size_t kActionCount = sizeof(kActions) / sizeof(kActions[0]);
constexpr size_t kClusters = 4;

struct World {
  size_t teams;
  size_t namespaces;  // two a team: team t owns 2t and 2t+1
  size_t users;
  size_t tasks;
};

World MakeWorld(size_t entities) {
  World w;
  entities = std::max<size_t>(entities, 1000);
  w.teams = entities / 100;
  w.namespaces = 2 * w.teams;
  w.users = entities / 2;
  w.tasks = entities - kClusters - 1 - w.teams - w.namespaces - w.users;
  return w;
}

std::string Str(size_t n) { return std::to_string(n); }

std::string Ref(const char* type, const std::string& id) {
  return std::string("{\"__entity\":{\"type\":\"") + type + "\",\"id\":\"" + id + "\"}}";
}
std::string Uid(const char* type, const std::string& id) {
  return std::string("{\"type\":\"") + type + "\",\"id\":\"" + id + "\"}";
}

std::string TeamId(size_t t) { return "t" + Str(t); }
std::string NamespaceId(size_t n) { return "ns-" + Str(n / 2) + "-" + Str(n % 2); }
std::string UserId(size_t u) { return "u" + Str(u); }
std::string TaskId(size_t i) { return "task" + Str(i); }
std::string ClusterId(size_t c) { return "c" + Str(c); }

std::string Entities(const World& w, Rng& rng) {
  std::string out = "[\n";
  auto entity = [&out](const std::string& uid, const std::string& attrs,
                       const std::string& parents) {
    out += "{\"uid\":" + uid + ",\"attrs\":{" + attrs + "},\"parents\":[" + parents + "]},\n";
  };
  static constexpr const char* kRegions[] = {"us-east", "us-west", "eu-central", "ap-south"};
  for (size_t c = 0; c < kClusters; ++c) {
    entity(Uid("Cluster", ClusterId(c)), std::string("\"region\":\"") + kRegions[c] + "\"", "");
  }
  entity(Uid("Role", "cluster-admins"), "", "");
  for (size_t t = 0; t < w.teams; ++t) {
    entity(Uid("Team", TeamId(t)), "\"name\":\"team-" + Str(t) + "\",\"quota\":" +
                                       Str(8 + rng.Below(120)),
           "");
  }
  for (size_t n = 0; n < w.namespaces; ++n) {
    entity(Uid("Namespace", NamespaceId(n)), "\"team\":" + Ref("Team", TeamId(n / 2)),
           Uid("Cluster", ClusterId(n % kClusters)));
  }
  for (size_t u = 0; u < w.users; ++u) {
    std::string parents = Uid("Team", TeamId(u % w.teams));
    if (rng.Chance(10)) parents += "," + Uid("Team", TeamId(rng.Below(w.teams)));
    if (u % 250 == 7) parents += "," + Uid("Role", "cluster-admins");
    entity(Uid("User", UserId(u)),
           "\"level\":" + Str(rng.Below(5)) + ",\"suspended\":" +
               (rng.Chance(1) ? "true" : "false") + ",\"email\":\"" + UserId(u) +
               "@example.com\"",
           parents);
  }
  for (size_t i = 0; i < w.tasks; ++i) {
    size_t n = i % w.namespaces;
    // The owner is a member of the namespace's team (user u is in team u % teams).
    size_t owner = (n / 2) + w.teams * rng.Below(w.users / w.teams);
    entity(Uid("Task", TaskId(i)),
           "\"owner\":" + Ref("User", UserId(owner)) + ",\"namespace\":" +
               Ref("Namespace", NamespaceId(n)) + ",\"priority\":" + Str(rng.Below(10)) +
               ",\"gpus\":" + Str(rng.Below(65)) + ",\"kind\":\"" +
               (rng.Chance(30) ? "training" : "inference") + "\"",
           Uid("Namespace", NamespaceId(n)));
  }
  out.resize(out.size() - 2);  // the last ",\n"
  out += "\n]\n";
  return out;
}

std::string Action(size_t a) { return std::string("Action::\"") + kActions[a] + "\""; }

std::string Policies(const World& w, size_t count, Rng& rng) {
  // Apply to every request: the scope index cannot prune these.
  std::string out =
      "@id(\"suspended-users\")\n"
      "forbid (principal, action, resource) when { principal.suspended };\n"
      "@id(\"cluster-admins\")\n"
      "permit (principal in Role::\"cluster-admins\", action, resource);\n"
      "@id(\"owners-view\")\n"
      "permit (principal, action == Action::\"viewTask\", resource) "
      "when { resource has owner && resource.owner == principal };\n"
      "@id(\"mfa-for-deletes\")\n"
      "forbid (principal, action == Action::\"deleteTask\", resource) unless { context.mfa };\n";
  for (size_t i = kGlobalPolicies; i < count; ++i) {
    size_t team = rng.Below(w.teams);
    size_t ns = 2 * team + rng.Below(2);
    size_t action = rng.Below(kActionCount);
    size_t kind = rng.Below(100);
    std::string id = "p" + Str(i);
    if (kind < 60) {
      out += "@id(\"" + id + "-team-namespace\")\npermit (principal in Team::\"" + TeamId(team) +
             "\", action == " + Action(action) + ", resource in Namespace::\"" +
             NamespaceId(ns) + "\") when { resource.priority <= " + Str(2 + rng.Below(8)) +
             " && principal.level >= " + Str(rng.Below(3)) + " };\n";
    } else if (kind < 75) {
      out += "@id(\"" + id + "-team-cluster\")\npermit (principal in Team::\"" + TeamId(team) +
             "\", action in [Action::\"viewTask\", Action::\"listTasks\"], resource in "
             "Cluster::\"" +
             ClusterId(rng.Below(kClusters)) + "\");\n";
    } else if (kind < 90) {
      out += "@id(\"" + id + "-namespace-limit\")\nforbid (principal, action == " +
             Action(action) + ", resource in Namespace::\"" + NamespaceId(ns) +
             "\") when { resource.gpus > " + Str(16 + rng.Below(48)) +
             " } unless { principal in Team::\"" + TeamId(team) + "\" };\n";
    } else {
      size_t user = team + w.teams * rng.Below(w.users / w.teams);
      out += "@id(\"" + id + "-user\")\npermit (principal == User::\"" + UserId(user) +
             "\", action == " + Action(action) + ", resource in Namespace::\"" +
             NamespaceId(ns) + "\") when { resource.kind == \"training\" };\n";
    }
  }
  return out;
}

std::string Requests(const World& w, size_t count, Rng& rng) {
  std::string out = "[\n";
  for (size_t r = 0; r < count; ++r) {
    size_t user = rng.Below(w.users);
    size_t task;
    if (rng.Chance(60)) {
      // A task in one of the user's (first) team's namespaces.
      size_t team = user % w.teams;
      size_t per_namespace = w.tasks / w.namespaces;
      size_t n = 2 * team + rng.Below(2);
      task = n + w.namespaces * rng.Below(per_namespace);
    } else {
      task = rng.Below(w.tasks);
    }
    out += "{\"principal\":" + Uid("User", UserId(user)) + ",\"action\":" +
           Uid("Action", kActions[rng.Below(kActionCount)]) +
           ",\"resource\":" + Uid("Task", TaskId(task)) + ",\"context\":{\"mfa\":" +
           (rng.Chance(70) ? "true" : "false") + "}}" + (r + 1 < count ? ",\n" : "\n");
  }
  out += "]\n";
  return out;
}

}  // namespace

Workload GenerateWorkload(const WorkloadOptions& options) {
  World w = MakeWorld(options.entities);
  Workload out;
  // Separate streams, so that changing one count leaves the other parts as
  // they were.
  Rng entity_rng(options.seed * 3 + 1);
  Rng policy_rng(options.seed * 3 + 2);
  Rng request_rng(options.seed * 3 + 3);
  out.entities = Entities(w, entity_rng);
  out.policies = Policies(w, std::max(options.policies, kGlobalPolicies), policy_rng);
  out.requests = Requests(w, options.requests, request_rng);
  return out;
}

}  // namespace charter::bench
