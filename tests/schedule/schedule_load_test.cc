// LoadState's errors on bad input, and exact quantity parsing.
#include <string>

#include "charter/schedule.h"
#include "gtest/gtest.h"
#include "schedule/quantity.h"

namespace charter::schedule {
namespace {

std::string Base(const std::string& cohorts, const std::string& queue_extra, const std::string& workloads) {
  return R"({"resource_flavors": ["default"], "priority_classes": [{"name": "high", "value": 10}],
  "cohorts": )" + cohorts + R"(,
  "cluster_queues": [{"name": "team-a", "cohort": "ml", )" + queue_extra + R"(
    "resource_groups": [{"covered_resources": ["cpu", "memory"], "flavors": [{"name": "default",
      "quotas": {"cpu": {"nominal": "8"}, "memory": {"nominal": "16Gi"}}}]}]}],
  )" + workloads + "}";
}

std::string Error(const std::string& text) {
  absl::StatusOr<State> s = LoadState(text);
  if (s.ok()) return "ok";
  return std::string(s.status().message());
}

TEST(ScheduleLoad, GoodState) {
  absl::StatusOr<State> s = LoadState(Base("[]", "", R"("pending": [{"name": "w", "cluster_queue": "team-a",
    "priority_class": "high", "pod_sets": [{"name": "main", "count": 2, "requests": {"cpu": "500m", "memory": "1.5Gi"}}]}])"));
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->pending.size(), 1u);
  EXPECT_EQ(s->pending[0].priority, 10);
  EXPECT_EQ(s->pending[0].pod_sets[0].requests[0].per_pod, 500);  // milli-cpu
  EXPECT_EQ(s->pending[0].pod_sets[0].requests[1].per_pod, int64_t{3} << 29);
  ASSERT_EQ(s->cohorts.size(), 1u);  // implicit root
  EXPECT_EQ(s->cluster_queues[0].resource_groups[0].flavors[0].resources[1].nominal, int64_t{16} << 30);
}

TEST(ScheduleLoad, Errors) {
  EXPECT_EQ(Error("{"), "state.json:1:2: unexpected end of input");
  EXPECT_EQ(Error(Base("[]", "", R"("pending": [{"name": "w", "cluster_queue": "team-x", "pod_sets": [{"name": "m"}]}])")),
            "state.json:6:46: pending workload `w` names an unknown cluster queue `team-x`");
  EXPECT_EQ(Error(Base(R"([{"name": "ml", "parent": "x"}, {"name": "x", "parent": "ml"}])", "", R"("pending": [])")),
            "state.json:2:15: cohort `ml` is in a cycle of parents: ml -> x -> ml");
  EXPECT_EQ(Error(Base(R"([{"name": "ml", "parent": "nope"}])", "", R"("pending": [])")),
            "state.json:2:40: cohort `ml` names an unknown parent cohort `nope`");
  EXPECT_EQ(Error(Base("[]", "", R"("pending": [{"name": "w", "cluster_queue": "team-a", "priority_class": "urgent", "pod_sets": [{"name": "m"}]}])")),
            "state.json:6:74: pending workload `w` names an unknown priority class `urgent`; defined: high");
  EXPECT_EQ(Error(Base("[]", "", R"("pending": [{"name": "w", "cluster_queue": "team-a", "pod_sets": [{"name": "m", "requests": {"cpu": "-1"}}]}])")),
            "state.json:6:103: the `cpu` request of pod set `m` of pending workload `w` is negative (-1)");
  EXPECT_EQ(Error(Base("[]", "", R"("pending": [{"name": "w", "cluster_queue": "team-a", "pod_sets": [{"name": "m", "requests": {"cpu": "8x"}}]}])")),
            "state.json:6:103: the `cpu` request of pod set `m` of pending workload `w` is not a quantity: `8x`");
  EXPECT_EQ(Error(Base("[]", R"("colour": 1,)", R"("pending": [])")),
            "state.json:3:57: unknown field `colour` in a cluster queue");
  EXPECT_EQ(Error(Base("[]", "", R"("admitted": [{"name": "w", "cluster_queue": "team-a", "pod_sets": [{"name": "m", "requests": {"cpu": 1}}], "flavors": {"m": {"cpu": "gold"}}}])")),
            "state.json:6:135: admitted workload `w` uses unknown resource flavor `gold`");
  std::string lending = Base("[]", "", R"("pending": [])");
  lending.replace(lending.find(R"({"nominal": "8"})"), 16, R"({"nominal": "8", "lending_limit": 9})");
  EXPECT_EQ(Error(lending),
            "state.json:5:59: the lending limit in the `cpu` quota of flavor `default` of cluster queue `team-a` (9) is above its nominal quota (8)");
}

TEST(ScheduleQuantity, Exact) {
  using internal::schedule::ParseQuantity;
  using internal::schedule::QuantityError;
  int64_t v = 0;
  EXPECT_EQ(ParseQuantity("8", true, &v), QuantityError::kOk);
  EXPECT_EQ(v, 8000);
  EXPECT_EQ(ParseQuantity("500m", true, &v), QuantityError::kOk);
  EXPECT_EQ(v, 500);
  EXPECT_EQ(ParseQuantity("1.5", false, &v), QuantityError::kOk);
  EXPECT_EQ(v, 2);  // rounded up, as Kueue's Value()
  EXPECT_EQ(ParseQuantity("16Gi", false, &v), QuantityError::kOk);
  EXPECT_EQ(v, int64_t{16} << 30);
  EXPECT_EQ(ParseQuantity("1e3", false, &v), QuantityError::kOk);
  EXPECT_EQ(v, 1000);
  EXPECT_EQ(ParseQuantity("2k", false, &v), QuantityError::kOk);
  EXPECT_EQ(v, 2000);
  EXPECT_EQ(ParseQuantity("1n", true, &v), QuantityError::kOk);
  EXPECT_EQ(v, 1);
  EXPECT_EQ(ParseQuantity("1E", false, &v), QuantityError::kOk);  // exa, 10^18
  EXPECT_EQ(v, 1'000'000'000'000'000'000);
  EXPECT_EQ(ParseQuantity("9.2E", false, &v), QuantityError::kOk);
  EXPECT_EQ(v, 9'200'000'000'000'000'000);
  EXPECT_EQ(ParseQuantity("9.3E", false, &v), QuantityError::kTooLarge);  // above INT64_MAX
  EXPECT_EQ(ParseQuantity("1E", true, &v), QuantityError::kTooLarge);     // 10^21 milli-units
  EXPECT_EQ(ParseQuantity("1E2", false, &v), QuantityError::kOk);         // still an exponent
  EXPECT_EQ(v, 100);
  EXPECT_EQ(ParseQuantity("1e", false, &v), QuantityError::kMalformed);
  EXPECT_EQ(ParseQuantity("-1", false, &v), QuantityError::kNegative);
  EXPECT_EQ(ParseQuantity("9Ei", true, &v), QuantityError::kTooLarge);
  EXPECT_EQ(ParseQuantity("1e100000", false, &v), QuantityError::kTooLarge);
  EXPECT_EQ(ParseQuantity("", false, &v), QuantityError::kMalformed);
  EXPECT_EQ(ParseQuantity("1Ki2", false, &v), QuantityError::kMalformed);
  EXPECT_EQ(internal::schedule::FormatQuantity(1500, true), "1500m");
  EXPECT_EQ(internal::schedule::FormatQuantity(int64_t{16} << 30, false), "16Gi");
}

}  // namespace
}  // namespace charter::schedule
