// The scope index: what it reads out of policy code, and that it never
// drops a policy that could be satisfied or err (checked against running
// every policy on every request of a small world), while dropping those
// whose scope cannot match.
#include "vm/scope_index.h"

#include <string>
#include <vector>

#include "unwrap/unwrap.h"
#include "charter/charter.h"
#include "gtest/gtest.h"
#include "request/request_data.h"
#include "testing/status_matchers.h"
#include "verify/verifier.h"
#include "vm/program.h"
#include "vm/vm.h"

namespace charter::internal {
namespace {

using ::charter_testing::IsOk;

constexpr char kEntities[] = R"([
  {"uid": {"type": "User", "id": "alice"}, "attrs": {"level": 3},
   "parents": [{"type": "Team", "id": "ml"}]},
  {"uid": {"type": "User", "id": "bob"}, "attrs": {}, "parents": [{"type": "Team", "id": "infra"}]},
  {"uid": {"type": "Team", "id": "ml"}, "attrs": {}, "parents": [{"type": "Org", "id": "acme"}]},
  {"uid": {"type": "Team", "id": "infra"}, "attrs": {}, "parents": [{"type": "Org", "id": "acme"}]},
  {"uid": {"type": "Action", "id": "submit"}, "attrs": {}, "parents": [{"type": "Action", "id": "write"}]},
  {"uid": {"type": "Action", "id": "view"}, "attrs": {}, "parents": [{"type": "Action", "id": "read"}]},
  {"uid": {"type": "Task", "id": "t1"}, "attrs": {}, "parents": [{"type": "Namespace", "id": "ml-ns"}]},
  {"uid": {"type": "Task", "id": "t2"}, "attrs": {}, "parents": []}
])";

constexpr char kPolicies[] = R"(
  permit(principal == User::"alice", action, resource);                         // 0
  permit(principal in Org::"acme", action == Action::"submit", resource);       // 1
  permit(principal is User, action, resource is Task in Namespace::"ml-ns");    // 2
  permit(principal, action in [Action::"view", Action::"write"], resource);     // 3
  forbid(principal, action, resource) when { principal.level > 2 };              // 4
  permit(principal in Team::"ml", action in Action::"read", resource == Task::"t2");  // 5
  permit(principal == ?principal, action, resource in ?resource);                // template
  permit(principal == User::"ghost", action, resource);                         // 6
  permit(principal in User::"alice", action == Action::"view", resource)
    when { resource.missing };                                                   // 7
)";

struct World {
  std::shared_ptr<const Program> program;
  Entities entities;
};

World Build() {
  SourceFile source("index.cedar", kPolicies);
  Diagnostics diagnostics;
  std::vector<TemplateLink> links = {
      {"policy6", "link-bob", EntityUid{"User", "bob"}, EntityUid{"Namespace", "ml-ns"}}};
  absl::StatusOr<Bundle> bundle = Compile(source, links, {}, &diagnostics);
  EXPECT_THAT(bundle, IsOk()) << diagnostics.Render(source);
  absl::StatusOr<const fb::Bundle*> root = VerifyBundle(bundle->bytes(), {});
  EXPECT_THAT(root, IsOk());
  World w{std::make_shared<const Program>(*bundle, *root), Entities()};
  absl::StatusOr<Entities> e = Entities::FromJson(kEntities);
  EXPECT_THAT(e, IsOk());
  w.entities = *std::move(e);
  return w;
}

std::vector<uint32_t> CandidatesFor(const World& w, EntityRef refs[3]) {
  const EntityStore& store = internal::Unwrap::Store(w.entities);
  ScopeKeys keys;
  for (int i = 0; i < 3; ++i) {
    refs[i].uid = store.Find(refs[i].type, refs[i].id);
    keys.refs[i] = &refs[i];
    keys.hashes[i] = EntityKeyHash(refs[i].type, refs[i].id);
  }
  ScopeScratch scratch;
  std::vector<uint32_t> out;
  w.program->scope_index().Candidates(keys, store, &scratch, &out);
  return out;
}

TEST(ScopeIndex, ReadsScopeTests) {
  World w = Build();
  const std::vector<PolicyCode>& ps = w.program->policies();
  ASSERT_EQ(ps.size(), 9u);
  PolicyScope s0 = AnalyzeScope(*w.program, ps[0]);
  ASSERT_EQ(s0.all.size(), 1u);
  EXPECT_EQ(s0.all[0].op, ScopeTest::kEq);
  EXPECT_EQ(s0.all[0].id, "alice");
  PolicyScope s2 = AnalyzeScope(*w.program, ps[2]);
  ASSERT_EQ(s2.all.size(), 3u);  // principal is User, resource is Task, resource in ml-ns
  EXPECT_EQ(s2.all[0].op, ScopeTest::kIs);
  EXPECT_EQ(s2.all[2].op, ScopeTest::kIn);
  EXPECT_EQ(s2.all[2].var, 2);
  PolicyScope s3 = AnalyzeScope(*w.program, ps[3]);
  EXPECT_TRUE(s3.all.empty());
  ASSERT_EQ(s3.any_of.size(), 1u);
  EXPECT_EQ(s3.any_of[0].size(), 2u);
  EXPECT_TRUE(AnalyzeScope(*w.program, ps[4]).all.empty());
  PolicyScope link = AnalyzeScope(*w.program, ps[8]);  // links come after static policies
  ASSERT_EQ(link.all.size(), 2u);
  EXPECT_EQ(link.all[0].id, "bob");
  EXPECT_EQ(link.all[1].id, "ml-ns");
}

TEST(ScopeIndex, SelectsOnlyMatchingScopes) {
  World w = Build();
  EntityRef refs[3] = {{"User", "alice"}, {"Action", "submit"}, {"Task", "t2"}};
  // 0 (alice), 1 (acme, submit), 3 (submit in write), 4 (no scope); not 5
  // (filed under resource == t2, but submit is not in read).
  EXPECT_EQ(CandidatesFor(w, refs), (std::vector<uint32_t>{0, 1, 3, 4}));
  EntityRef bob[3] = {{"User", "bob"}, {"Action", "view"}, {"Task", "t1"}};
  // 2 (User, Task in ml-ns), 3 (view), 4, link-bob (8).
  EXPECT_EQ(CandidatesFor(w, bob), (std::vector<uint32_t>{2, 3, 4, 8}));
  EntityRef stranger[3] = {{"Robot", "r2"}, {"Action", "delete"}, {"Thing", "x"}};
  EXPECT_EQ(CandidatesFor(w, stranger), (std::vector<uint32_t>{4}));
}

// Every policy that is not false on a request is among its candidates; and
// a policy with no condition is a candidate only when its scope holds (the
// filter of scope tests is exact here: no entity has many ancestors).
TEST(ScopeIndex, NeverDropsAPolicyThatCouldApply) {
  World w = Build();
  std::vector<EntityRef> principals = {{"User", "alice"}, {"User", "bob"}, {"User", "ghost"},
                                       {"Team", "ml"}, {"Org", "acme"}};
  std::vector<EntityRef> actions = {{"Action", "submit"}, {"Action", "view"},
                                    {"Action", "write"}, {"Action", "read"}, {"Action", "x"}};
  std::vector<EntityRef> resources = {{"Task", "t1"}, {"Task", "t2"}, {"Namespace", "ml-ns"},
                                      {"Task", "t9"}};
  const EntityStore& store = internal::Unwrap::Store(w.entities);
  int checked = 0;
  int filtered = 0;
  for (const EntityRef& p : principals) {
    for (const EntityRef& a : actions) {
      for (const EntityRef& r : resources) {
        EntityRef refs[3] = {p, a, r};
        std::vector<uint32_t> candidates = CandidatesFor(w, refs);
        Environment env;
        for (int i = 0; i < 3; ++i) env.vars[i] = Value::Entity(&refs[i]);
        env.vars[3] = Value::Record(nullptr, 0);
        env.store = &store;
        WalkBudget work;
        env.work = &work;
        Arena arena;
        EvalError error;
        for (uint32_t i = 0; i < w.program->policies().size(); ++i) {
          Outcome outcome = internal::Run(*w.program, w.program->policies()[i], env, &arena, &error);
          bool listed = std::find(candidates.begin(), candidates.end(), i) != candidates.end();
          if (outcome != Outcome::kFalse) {
            EXPECT_TRUE(listed) << "policy " << i << " for " << p.id << " " << a.id << " " << r.id;
            ++checked;
          }
          bool scope_only = i != 4 && i != 7;  // the two policies with conditions
          if (scope_only && outcome == Outcome::kFalse) {
            EXPECT_FALSE(listed) << "policy " << i << " for " << p.id << " " << a.id << " " << r.id;
            ++filtered;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 50);
  EXPECT_GT(filtered, 200);
}

TEST(ScopeIndex, RequestsWithManyAncestorsAskTheStoreInstead) {
  // A principal with more ancestors than there are `in` targets: the index
  // tests each target instead of listing the ancestors.
  std::string entities = "[";
  for (int i = 0; i < 50; ++i) {
    entities += "{\"uid\":{\"type\":\"G\",\"id\":\"g" + std::to_string(i) +
                "\"},\"attrs\":{},\"parents\":[" +
                (i < 49 ? "{\"type\":\"G\",\"id\":\"g" + std::to_string(i + 1) + "\"}" : "") + "]},";
  }
  entities += R"({"uid":{"type":"User","id":"u"},"attrs":{},"parents":[{"type":"G","id":"g0"}]}])";
  absl::StatusOr<Entities> e = Entities::FromJson(entities);
  ASSERT_THAT(e, IsOk());
  SourceFile source("deep.cedar", R"(
    permit(principal in G::"g40", action, resource);
    permit(principal in G::"nope", action, resource);
    permit(principal in G::"g0", action, resource);
  )");
  absl::StatusOr<Bundle> bundle = Compile(source, {}, nullptr);
  ASSERT_THAT(bundle, IsOk());
  absl::StatusOr<const fb::Bundle*> root = VerifyBundle(bundle->bytes(), {});
  ASSERT_THAT(root, IsOk());
  World w{std::make_shared<const Program>(*bundle, *root), *std::move(e)};
  EntityRef refs[3] = {{"User", "u"}, {"Action", "a"}, {"R", "r"}};
  EXPECT_EQ(CandidatesFor(w, refs), (std::vector<uint32_t>{0, 2}));
}

}  // namespace
}  // namespace charter::internal
