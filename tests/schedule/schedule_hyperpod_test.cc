// HyperPod task governance input: the AWS walkthrough (two teams of two
// ml.g5.8xlarge, LendAndBorrow 50%, fair sharing on) translated and run.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "charter/schedule.h"
#include "gtest/gtest.h"

namespace charter::schedule {
namespace {

TEST(ScheduleHyperPod, Walkthrough) {
  std::ifstream in(std::filesystem::path(CHARTER_SOURCE_DIR) / "tests/schedule/hyperpod-walkthrough.json");
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<State> state = LoadHyperPodState(text.str());
  ASSERT_TRUE(state.ok()) << state.status();
  ASSERT_EQ(state->cluster_queues.size(), 2u);
  EXPECT_EQ(state->cluster_queues[0].name, "hyperpod-ns-team-a-clusterqueue");
  EXPECT_TRUE(state->engine.fair_sharing);
  EXPECT_EQ(state->cluster_queues[0].fair_weight, 0);
  const ResourceQuota& gpu = state->cluster_queues[0].resource_groups[0].flavors[0].resources[0];
  EXPECT_EQ(state->resources[gpu.resource], "nvidia.com/gpu");
  EXPECT_EQ(gpu.nominal, 2);
  EXPECT_EQ(gpu.borrowing_limit, std::optional<Quantity>(1));
  ASSERT_EQ(state->priority_classes.size(), 4u);
  EXPECT_EQ(state->priority_classes[2].name, "training-priority");
  // Team B's job reclaims the instance team A borrows: job-1 is preempted
  // (team B stays within its nominal quota, so it reclaims unconditionally).
  absl::StatusOr<CycleResult> r = RunCycle(*state);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->preempted.size(), 1u) << r->ToText();
  EXPECT_EQ(r->preempted[0].name, "job-1");
  EXPECT_EQ(r->preempted[0].reason, PreemptionReason::kInCohortReclamation);
  ASSERT_EQ(r->not_admitted.size(), 1u);
  EXPECT_EQ(r->not_admitted[0].state, PendingState::kWaitingForPreemption);
}

TEST(ScheduleHyperPod, Errors) {
  EXPECT_FALSE(LoadHyperPodState("{}").ok());
  absl::StatusOr<State> s = LoadHyperPodState(R"({"ComputeQuotas": [{"ComputeQuotaTarget": {"TeamName": "t"},
    "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.x", "Count": 1}]}}]})");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.status().message()).find("needs its Accelerators"), std::string::npos) << s.status();
}

std::string HyperPodError(const std::string& text) {
  LoadOptions options;
  options.source_name = "hp.json";
  absl::StatusOr<State> s = LoadHyperPodState(text, options);
  return s.ok() ? "ok" : std::string(s.status().message());
}

// One team `t` with one quota resource; `resource` and `target` are spliced
// into the resource and the target objects.
std::string Team(const std::string& resource, const std::string& target = "") {
  return R"({"InstanceTypes": {"ml.x": {"Accelerators": 1, "VCpu": 4, "MemoryInGiB": 16}},
"ComputeQuotas": [{"ComputeQuotaTarget": {"TeamName": "t")" + target + R"(},
  "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.x", )" + resource + R"(}]}}])";
}

TEST(ScheduleHyperPod, NumbersAreCheckedWhereTheUserWroteThem) {
  EXPECT_EQ(HyperPodError(Team(R"("Count": 2)") + "}"), "ok");
  // 1e19 instances used to become INT64_MIN through an unchecked cast.
  EXPECT_EQ(HyperPodError(Team(R"("Count": 1e19)") + "}"),
            "hp.json:3:86: `Count` of the ml.x quota of team `t` must be a number from 0 to 2^53");
  // A string used to read as -1, reported as "negative" in generated text.
  EXPECT_EQ(HyperPodError(Team(R"("Count": 1)", R"(, "FairShareWeight": "high")") + "}"),
            "hp.json:2:79: `FairShareWeight` of team `t` must be a number from 0 to 2^53");
  EXPECT_EQ(HyperPodError(Team(R"("Accelerators": -1)") + "}"),
            "hp.json:3:93: `Accelerators` of the ml.x quota of team `t` must be a number from 0 to 2^53");
  // In range, but the product is not: 2^53 instances of 4 vCPUs.
  EXPECT_EQ(HyperPodError(Team(R"("Count": 9007199254740992)") + "}"),
            "hp.json:3:52: the ml.x quota of team `t`: the `cpu` quota of 3.60288e+16 with a borrow limit of 50% "
            "is above 9007199254740992");
  EXPECT_EQ(HyperPodError(R"({"InstanceTypes": {"ml.x": {"VCpu": "4"}}, "ComputeQuotas": []})"),
            "hp.json:1:37: `VCpu` of instance type `ml.x` must be a number from 0 to 2^53");
}

TEST(ScheduleHyperPod, WorkloadErrorsPointIntoTheUsersFile) {
  std::string text = Team(R"("Count": 2)") + R"(,
"Workloads": {"pending": [{"name": "w", "cluster_queue": "nope",
  "pod_sets": [{"name": "m", "requests": {"cpu": "-1"}}]}]}})";
  EXPECT_EQ(HyperPodError(text), "hp.json:4:58: pending workload `w` names an unknown cluster queue `nope`");
  text.replace(text.find("\"nope\""), 6, "\"hyperpod-ns-t-clusterqueue\"");
  EXPECT_EQ(HyperPodError(text),
            "hp.json:5:50: the `cpu` request of pod set `m` of pending workload `w` is negative (-1)");
  // A second team of the same name: the error is at its ComputeQuota.
  std::string twice = R"({"ComputeQuotas": [{"ComputeQuotaTarget": {"TeamName": "t"}, "ComputeQuotaConfig": {}},
  {"ComputeQuotaTarget": {"TeamName": "t"}, "ComputeQuotaConfig": {}}]})";
  EXPECT_EQ(HyperPodError(twice),
            "hp.json:2:3: cluster queue `hyperpod-ns-t-clusterqueue` is listed twice");
}

}  // namespace
}  // namespace charter::schedule
