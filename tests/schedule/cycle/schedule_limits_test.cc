// Hostile shapes of state: the quota-cell cap, and deep cohort chains that
// must load and run in linear time.
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "charter/schedule.h"
#include "common/strings.h"
#include "gtest/gtest.h"

namespace charter::schedule {
namespace {

using internal::Cat;
using internal::CatAppend;

// One cluster queue, `flavors` flavors and a pending workload requesting
// `resources` distinct resource names.
std::string Wide(int flavors, int resources) {
  std::string text = R"({"resource_flavors": [)";
  for (int f = 0; f < flavors; ++f) CatAppend(&text, f > 0 ? "," : "", "\"f", f, "\"");
  text += R"(], "cluster_queues": [{"name": "q", "cohort": "root"}], "pending": [{"name": "w",
    "cluster_queue": "q", "pod_sets": [{"name": "main", "requests": {)";
  for (int r = 0; r < resources; ++r) CatAppend(&text, r > 0 ? "," : "", "\"r", r, "\": 1");
  return text + "}}]}]}";
}

TEST(ScheduleLimits, QuotaCellsCapOnLoad) {
  // 2 nodes (cluster queue and its implicit cohort) × 2048 × 4097 = 16,781,312 > 2^24.
  absl::StatusOr<State> s = LoadState(Wide(2048, 4097));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.status().message(),
            "state.json:1:1: the quota tree would need 1 cohorts + 1 cluster queues × 2048 flavors × 4097 "
            "resources = 16781312 quota cells, above the limit of 16777216 (every requested resource name is a "
            "resource)");
  // Just under the cap loads.
  EXPECT_TRUE(LoadState(Wide(2048, 4096)).ok());
  LoadOptions tight;
  tight.max_quota_cells = 100;
  EXPECT_FALSE(LoadState(Wide(10, 6), tight).ok());
  EXPECT_TRUE(LoadState(Wide(10, 5), tight).ok());
}

TEST(ScheduleLimits, QuotaCellsCapOnRunCycle) {
  // A hand-built state past 2^32 cells: the product must not wrap.
  State s;
  s.flavors.assign(70'000, "f");
  s.resources.assign(70'000, "r");
  s.cluster_queues.emplace_back().name = "q";
  absl::StatusOr<CycleResult> r = RunCycle(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(r.status().message()).find("= 4900000000 quota cells"), std::string::npos) << r.status();
  CycleOptions options;
  options.max_quota_cells = 3;
  State small;
  small.flavors = {"a", "b"};
  small.resources = {"cpu", "memory"};
  small.cluster_queues.emplace_back().name = "q";
  EXPECT_FALSE(RunCycle(small, options).ok());
  options.max_quota_cells = 4;
  EXPECT_TRUE(RunCycle(small, options).ok());
}

// A chain of `depth` cohorts, listed leaf first, with one cluster queue at
// the leaf and the quota at the root.
std::string Chain(int depth) {
  std::string text = R"({"resource_flavors": ["default"], "cohorts": [)";
  for (int c = depth - 1; c >= 0; --c) {
    CatAppend(&text, c < depth - 1 ? "," : "", "{\"name\": \"c", c, "\"",
              c > 0 ? Cat(", \"parent\": \"c", c - 1, "\"") : std::string(), "}");
  }
  // The root holds the quota.
  text.replace(text.rfind("{\"name\": \"c0\"}"), 14,
               R"({"name": "c0", "resource_groups": [{"covered_resources": ["cpu"], "flavors": [{"name": "default", "quotas": {"cpu": 8}}]}]})");
  CatAppend(&text, R"(], "cluster_queues": [{"name": "q", "cohort": "c)", depth - 1,
            R"(", "resource_groups": [{"covered_resources": ["cpu"], "flavors": [{"name": "default", "quotas": {"cpu": 0}}]}]}],
    "pending": [{"name": "w", "cluster_queue": "q", "pod_sets": [{"name": "main", "count": 2, "requests": {"cpu": 3}}]}]})");
  return text;
}

TEST(ScheduleLimits, DeepCohortChain) {
  absl::StatusOr<State> s = LoadState(Chain(30'000));
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->cohorts.size(), 30'000u);
  absl::StatusOr<CycleResult> r = RunCycle(*s);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->admitted.size(), 1u) << r->ToText();
  EXPECT_EQ(r->admitted[0].name, "w");
  EXPECT_TRUE(r->admitted[0].borrowing);
}

TEST(ScheduleLimits, CohortCycleBehindATail) {
  // `a` leads into the cycle b -> c -> b; the error names a cohort on it.
  absl::StatusOr<State> s = LoadState(R"({"resource_flavors": ["default"], "cohorts": [
    {"name": "a", "parent": "b"}, {"name": "b", "parent": "c"}, {"name": "c", "parent": "b"}],
    "cluster_queues": []})");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "state.json:2:35: cohort `b` is in a cycle of parents: b -> c -> b");
  State built;
  for (auto [name, parent] : {std::pair{"a", 1}, std::pair{"b", 2}, std::pair{"c", 1}}) {
    Cohort& c = built.cohorts.emplace_back();
    c.name = name;
    c.parent = parent;
  }
  absl::StatusOr<CycleResult> r = RunCycle(built);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "cohort `b` is in a cycle of parents");
}

// ApplyCycle is public: a result that names what the state lacks is an
// error, not an abort.
TEST(ScheduleLimits, ApplyCycleRefusesUnknownFlavors) {
  absl::StatusOr<State> s = LoadState(R"({"resource_flavors": ["default"],
    "cluster_queues": [{"name": "q", "resource_groups": [{"covered_resources": ["cpu"],
      "flavors": [{"name": "default", "quotas": {"cpu": 8}}]}]}],
    "pending": [{"name": "w", "cluster_queue": "q", "pod_sets": [{"name": "main", "requests": {"cpu": 1}}]}]})");
  ASSERT_TRUE(s.ok()) << s.status();
  auto result = [](std::string resource, std::string flavor) {
    CycleResult r;
    Admitted& a = r.admitted.emplace_back();
    a.name = "w";
    a.cluster_queue = "q";
    a.flavors.push_back(PodSetFlavors{"main", {{std::move(resource), std::move(flavor)}}});
    return r;
  };
  EXPECT_TRUE(ApplyCycle(*s, result("cpu", "default")).ok());
  absl::StatusOr<State> gold = ApplyCycle(*s, result("cpu", "gold"));
  ASSERT_FALSE(gold.ok());
  EXPECT_EQ(gold.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(gold.status().message(), "admitted workload `w` names an unknown resource flavor `gold`");
  absl::StatusOr<State> pods = ApplyCycle(*s, result("pods", "default"));
  ASSERT_FALSE(pods.ok());
  EXPECT_EQ(pods.status().message(),
            "admitted workload `w` has a `pods` flavor `default`, but no queue covers `pods`");
}

}  // namespace
}  // namespace charter::schedule
