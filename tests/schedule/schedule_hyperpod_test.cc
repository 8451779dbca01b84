// HyperPod task governance input: the AWS walkthrough (two teams of two
// ml.g5.8xlarge, LendAndBorrow 50%, fair sharing on) translated and run.
#include <filesystem>
#include <fstream>
#include <sstream>

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

}  // namespace
}  // namespace charter::schedule
