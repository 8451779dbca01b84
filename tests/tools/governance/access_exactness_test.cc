// charter access is exact: on generated stores and policy sets, the
// principals ReviewAccess reports for each row (allowed and refused) are
// those a brute-force review finds by deciding every principal of the
// action's principal types with the engine's authorizer.
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "charter/charter.h"
#include "charter/governance.h"
#include "charter/schema.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;

std::string Read(const std::string& path) {
  std::ifstream in(std::string(CHARTER_SOURCE_DIR) + "/" + path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Ent(const std::string& type, const std::string& id) {
  return "{\"__entity\": {\"type\": \"Governance::" + type + "\", \"id\": \"" + id + "\"}}";
}
std::string Ref(const std::string& type, const std::string& id) {
  return "{\"type\": \"Governance::" + type + "\", \"id\": \"" + id + "\"}";
}

// The governance example with extra members and identities, each in random
// roles and teams, some suspended, some identities owned by nobody.
std::string GeneratedStore(std::mt19937* rng, int extra) {
  std::string base = Read("examples/governance/entities.json");
  size_t close = base.rfind(']');
  std::string more;
  const std::vector<std::string> roles = {"vision/owners", "vision/contributors", "nlp/owners", "nlp/contributors",
                                          "speech/contributors", "robotics/contributors"};
  const std::vector<std::string> teams = {"vision-research", "nlp-pretrain", "nlp-eval", "speech-asr", "robotics-sim"};
  const std::vector<std::string> admin_roles = {"gpu-east/cluster-admins", "slurm-west/cluster-admins"};
  auto pick = [rng](const std::vector<std::string>& v) { return v[(*rng)() % v.size()]; };
  for (int i = 0; i < extra; ++i) {
    std::string m = "gen-m" + std::to_string(i);
    more += ",\n{\"uid\": " + Ref("Member", m) + ", \"attrs\": {\"email\": \"" + m + "@x\", \"suspended\": " +
            ((*rng)() % 4 == 0 ? "true" : "false") + "}, \"parents\": [" + Ref("ProjectRole", pick(roles)) +
            ((*rng)() % 2 ? ", " + Ref("Team", pick(teams)) : "") + "]}";
    std::string id = "gen-i" + std::to_string(i);
    bool east = (*rng)() % 2;
    std::string owner = (*rng)() % 5 == 0 ? "gone-" + std::to_string(i) : m;
    more += ",\n{\"uid\": " + Ref("Identity", id) + ", \"attrs\": {\"cluster\": " +
            Ent("Cluster", east ? "gpu-east" : "slurm-west") + ", \"kind\": " +
            Ent("IdentityKind", (*rng)() % 2 ? "admin" : "workload") + ", \"owner\": " + Ent("Member", owner) +
            "}, \"parents\": [" + Ref("Team", pick(teams)) +
            ((*rng)() % 3 == 0 ? ", " + Ref("ClusterRole", pick(admin_roles)) : "") + "]}";
  }
  return base.substr(0, close) + more + "\n]\n";
}

// The example's policies and random permits and forbids of shapes the
// pruning reads (scopes, `in` and `==` conditions, `is`, context tests) and
// shapes it cannot follow.
std::string GeneratedPolicies(std::mt19937* rng, int n) {
  std::string out = Read("examples/governance/policies.cedar");
  const std::vector<std::string> actions = {"viewTask", "cancelTask", "submitTask", "accessKubeApi", "manageCluster",
                                            "usePriorityClass", "connectCluster", "addMember", "useTool"};
  const std::vector<std::string> teams = {"vision-research", "nlp-pretrain", "nlp-eval", "speech-asr"};
  auto pick = [rng](const std::vector<std::string>& v) { return v[(*rng)() % v.size()]; };
  for (int i = 0; i < n; ++i) {
    std::string a = "Governance::Action::\"" + pick(actions) + "\"";
    std::string effect = (*rng)() % 4 == 0 ? "forbid" : "permit";
    out += "\n@id(\"gen-" + std::to_string(i) + "\")\n" + effect;
    switch ((*rng)() % 8) {
      case 0: out += "(principal in Governance::Team::\"" + pick(teams) + "\", action == " + a + ", resource);"; break;
      case 1: out += "(principal == Governance::Member::\"gen-m" + std::to_string((*rng)() % 6) + "\", action, resource);"; break;
      case 2: out += "(principal, action == " + a + ", resource) when { principal in resource.namespace.team };"; break;
      case 3: out += "(principal is Governance::Identity, action == " + a + ", resource) when { principal.kind == Governance::IdentityKind::\"workload\" };"; break;
      case 4: out += "(principal, action == " + a + ", resource) when { principal has suspended && !principal.suspended };"; break;
      case 5: out += "(principal, action in Governance::Action::\"clusterLifecycle\", resource) when { principal in resource.admins };"; break;
      case 6: out += "(principal, action == " + a + ", resource) when { context has mfa && context.mfa || principal in Governance::ProjectRole::\"nlp/owners\" };"; break;
      default: out += "(principal, action == " + a + ", resource) unless { principal is Governance::Member };"; break;
    }
    out += "\n";
  }
  return out;
}

std::string Principals(const std::vector<AccessGrant>& g) {
  std::string s;
  for (const AccessGrant& x : g) s += x.principal.ToString() + " ";
  return s;
}
std::string Principals(const std::vector<AccessRefusal>& g) {
  std::string s;
  for (const AccessRefusal& x : g) s += x.principal.ToString() + " ";
  return s;
}

TEST(AccessExactness, MatchesBruteForceOnGeneratedStores) {
  SourceFile schema_source{std::string(kStandardGovernanceSchemaName), std::string(StandardGovernanceSchemaText())};
  absl::StatusOr<Schema> schema = Schema::Parse(schema_source, {}, nullptr);
  ASSERT_THAT(schema, IsOk());
  std::mt19937 rng(19);
  const std::vector<std::string> connections = {"vision/gpu-east", "nlp/slurm-west", "speech/gpu-east",
                                                "robotics/slurm-west"};
  size_t rows = 0, grants = 0, pruned = 0;
  for (int round = 0; round < 12; ++round) {
    std::string store = GeneratedStore(&rng, 4 + round * 3);
    absl::StatusOr<Entities> entities = Entities::FromJson(store, *schema, "generated.json");
    ASSERT_THAT(entities, IsOk());
    Diagnostics diagnostics;
    absl::StatusOr<Bundle> bundle = Compile(SourceFile("generated.cedar", GeneratedPolicies(&rng, 6 + round)), {},
                                            CompileOptions{}, &diagnostics);
    ASSERT_THAT(bundle, IsOk());
    absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
    ASSERT_THAT(engine, IsOk());
    for (const std::string& c : connections) {
      AccessOptions options;
      options.at = "2026-01-15";
      absl::StatusOr<AccessReport> fast = ReviewAccess(*engine, *entities, *schema, {"Governance::Connection", c}, options);
      options.brute_force = true;
      absl::StatusOr<AccessReport> slow = ReviewAccess(*engine, *entities, *schema, {"Governance::Connection", c}, options);
      ASSERT_THAT(fast, IsOk());
      ASSERT_THAT(slow, IsOk());
      ASSERT_EQ(fast->rows.size(), slow->rows.size());
      EXPECT_EQ(slow->decided, slow->combinations);
      for (size_t i = 0; i < fast->rows.size(); ++i) {
        const AccessRow& f = fast->rows[i];
        const AccessRow& s = slow->rows[i];
        SCOPED_TRACE("round " + std::to_string(round) + " " + c + " " + f.action.id + " on " + f.resource.ToString());
        EXPECT_EQ(Principals(f.allowed), Principals(s.allowed));
        EXPECT_EQ(Principals(f.refused), Principals(s.refused));
        ++rows;
        grants += s.allowed.size();
      }
      EXPECT_EQ(fast->findings.size(), slow->findings.size());
      pruned += fast->combinations - fast->decided;
    }
  }
  // The test means something: many rows, grants, and requests pruned.
  EXPECT_GT(rows, 500u);
  EXPECT_GT(grants, 1000u);
  EXPECT_GT(pruned, 1000u);
}

}  // namespace
}  // namespace charter

namespace charter {
namespace {

// An action in two top-level groups belongs to the least of them by name,
// whatever order the schema declares them in (its hierarchy iterates in a
// depth-first order that follows the text).
TEST(AccessLayers, SeveralTopGroupsChooseByName) {
  const std::string standard(StandardGovernanceSchemaText());
  const std::string one = "action accessKubeApi in [clusterActions]";
  const std::string groups = "action organizationActions, projectActions, clusterActions, workloadActions;";
  ASSERT_NE(standard.find(one), std::string::npos);
  ASSERT_NE(standard.find(groups), std::string::npos);
  for (const std::string& order :
       {groups, std::string("action workloadActions, clusterActions, projectActions, organizationActions;")}) {
    for (const std::string& two : {std::string("action accessKubeApi in [workloadActions, clusterActions]"),
                                   std::string("action accessKubeApi in [clusterActions, workloadActions]")}) {
      SCOPED_TRACE(order + " / " + two);
      std::string text = standard;
      text.replace(text.find(groups), groups.size(), order);
      text.replace(text.find(one), one.size(), two);
      absl::StatusOr<Schema> schema = Schema::Parse(SourceFile("layers.cedarschema", text), {}, nullptr);
      ASSERT_THAT(schema, IsOk());
      // The example's store lists the action's one group; here it has two.
      std::string store = Read("examples/governance/entities.json");
      const std::string listed =
          R"("id": "accessKubeApi"}, "attrs": {}, "parents": [{"type": "Governance::Action", "id": "clusterActions"}])";
      ASSERT_NE(store.find(listed), std::string::npos);
      store.replace(store.find(listed), listed.size(),
                    R"("id": "accessKubeApi"}, "attrs": {}, "parents": [{"type": "Governance::Action", "id": )"
                    R"("clusterActions"}, {"type": "Governance::Action", "id": "workloadActions"}])");
      absl::StatusOr<Entities> entities = Entities::FromJson(store, *schema, "e.json");
      ASSERT_THAT(entities, IsOk());
      absl::StatusOr<Bundle> bundle = Compile(SourceFile("p.cedar", Read("examples/governance/policies.cedar")), {},
                                              CompileOptions{}, nullptr);
      ASSERT_THAT(bundle, IsOk());
      absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
      ASSERT_THAT(engine, IsOk());
      AccessOptions options;
      options.at = "2026-01-15";
      absl::StatusOr<AccessReport> report =
          ReviewAccess(*engine, *entities, *schema, {"Governance::Connection", "vision/gpu-east"}, options);
      ASSERT_THAT(report, IsOk());
      size_t seen = 0;
      for (const AccessRow& row : report->rows) {
        if (row.action.id != "accessKubeApi") continue;
        EXPECT_EQ(row.layer, "cluster");
        ++seen;
      }
      EXPECT_GT(seen, 0u);
    }
  }
}

}  // namespace
}  // namespace charter
