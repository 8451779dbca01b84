// HyperPod task governance input: the AWS walkthrough (two teams of two
// ml.g5.8xlarge, LendAndBorrow 50%, fair sharing on) translated and run.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "charter/schedule.h"
#include "gtest/gtest.h"

namespace charter::schedule {
namespace {

TEST(ScheduleHyperPod, Walkthrough) {
  std::ifstream in(std::filesystem::path(CHARTER_SOURCE_DIR) / "tests/schedule/hyperpod/hyperpod-walkthrough.json");
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

std::string ReadWalkthrough() {
  std::ifstream in(std::filesystem::path(CHARTER_SOURCE_DIR) / "tests/schedule/hyperpod/hyperpod-walkthrough.json");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The walkthrough with its `Workloads` replaced by `workloads`.
std::string WithWorkloads(const std::string& workloads) {
  std::string text = ReadWalkthrough();
  const size_t at = text.find("\"Workloads\"");
  return text.substr(0, at) + "\"Workloads\": " + workloads + "\n}\n";
}

std::string Job(const std::string& name, const std::string& team, const std::string& cls, int instances, int created) {
  return R"({"name": ")" + name + R"(", "cluster_queue": "hyperpod-ns-)" + team + R"(-clusterqueue", "priority_class": ")" +
         cls + R"(-priority", "created_at": )" + std::to_string(created) + R"(, "pod_sets": [{"name": "workers", "count": )" +
         std::to_string(instances) + R"(, "requests": {"nvidia.com/gpu": 1, "cpu": 32, "memory": "128Gi"}}]})";
}

// Runs cycles until one changes nothing; returns every cycle's text.
std::string Simulate(State state, State* final_state) {
  std::string out;
  for (int cycle = 1; cycle <= 20; ++cycle) {
    absl::StatusOr<CycleResult> r = RunCycle(state);
    if (!r.ok()) return std::string(r.status().message());
    out += "== " + std::to_string(cycle) + "\n" + r->ToText();
    const bool stable = IsStable(state, *r);
    absl::StatusOr<State> next = ApplyCycle(state, *r);
    if (!next.ok()) return std::string(next.status().message());
    state = std::move(*next);
    if (stable) break;
  }
  *final_state = std::move(state);
  return out;
}

std::vector<std::string> NamesIn(const std::vector<Workload>& list) {
  std::vector<std::string> out;
  for (const Workload& w : list) out.push_back(w.name);
  std::sort(out.begin(), out.end());
  return out;
}

// The three steps of the AWS walkthrough (hyperpod-task-governance.md §5):
// team A borrows one instance for a 3-instance job; team B's 2-instance job
// reclaims it; team B's higher-priority job then preempts team B's first
// job, which cannot come back (2 + 2 is above team B's 2 + 1).
TEST(ScheduleHyperPod, WalkthroughThreeSteps) {
  // Step 1: job-1 (3 instances) is admitted to team A, borrowing 1.
  absl::StatusOr<State> s1 = LoadHyperPodState(WithWorkloads(R"({"pending": [)" + Job("job-1", "team-a", "training", 3, -300) + "]}"));
  ASSERT_TRUE(s1.ok()) << s1.status();
  absl::StatusOr<CycleResult> r1 = RunCycle(*s1);
  ASSERT_TRUE(r1.ok());
  ASSERT_EQ(r1->admitted.size(), 1u) << r1->ToText();
  EXPECT_EQ(r1->admitted[0].name, "job-1");
  EXPECT_TRUE(r1->admitted[0].borrowing);
  // Step 2: job-2 (team B, 2 instances) reclaims; job-1 goes back to wait.
  absl::StatusOr<State> after1 = ApplyCycle(*s1, *r1);
  ASSERT_TRUE(after1.ok());
  State s2 = *after1;
  absl::StatusOr<State> job2 = LoadHyperPodState(WithWorkloads(R"({"pending": [)" + Job("job-2", "team-b", "training", 2, -5) + "]}"));
  ASSERT_TRUE(job2.ok()) << job2.status();
  s2.pending.push_back(job2->pending[0]);
  State settled2;
  const std::string text2 = Simulate(s2, &settled2);
  EXPECT_NE(text2.find("PREEMPT  job-1 (hyperpod-ns-team-a-clusterqueue) InCohortReclamation"), std::string::npos) << text2;
  EXPECT_EQ(NamesIn(settled2.admitted), std::vector<std::string>({"job-2"})) << text2;
  EXPECT_EQ(NamesIn(settled2.pending), std::vector<std::string>({"job-1"})) << text2;
  // Step 3: job-3 (team B, experimentation 80 > training 70) preempts job-2
  // in team B; neither job-2 nor job-1 fits afterwards.
  absl::StatusOr<State> job3 = LoadHyperPodState(
      WithWorkloads(R"({"pending": [)" + Job("job-3", "team-b", "experimentation", 2, 100) + "]}"));
  ASSERT_TRUE(job3.ok()) << job3.status();
  State s3 = settled2;
  s3.pending.push_back(job3->pending[0]);
  State settled3;
  const std::string text3 = Simulate(s3, &settled3);
  EXPECT_NE(text3.find("PREEMPT  job-2 (hyperpod-ns-team-b-clusterqueue) InClusterQueue"), std::string::npos) << text3;
  EXPECT_EQ(NamesIn(settled3.admitted), std::vector<std::string>({"job-3"})) << text3;
  EXPECT_EQ(NamesIn(settled3.pending), std::vector<std::string>({"job-1", "job-2"})) << text3;
  // job-2 needs 2 with team B at its nominal 2 and 1 more borrowable.
  EXPECT_NE(text3.find("`hyperpod-ns-team-b-clusterqueue` needs 2 nvidia.com/gpu in flavor ml.g5.8xlarge; nominal 2, used 2, "
                       "available 1"),
            std::string::npos)
      << text3;
}

// Each field of the mapping in docs/scheduling.md.
TEST(ScheduleHyperPod, Mapping) {
  absl::StatusOr<State> s = LoadHyperPodState(R"({
"InstanceTypes": {"ml.p5.48xlarge": {"Accelerators": 8, "VCpu": 192, "MemoryInGiB": 2048}},
"ClusterSchedulerConfig": {"SchedulerConfig": {"FairShare": "Disabled", "PriorityClasses": [{"Name": "urgent", "Weight": 100}]}},
"ComputeQuotas": [
  {"ComputeQuotaTarget": {"TeamName": "keep", "FairShareWeight": 7},
   "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Accelerators": 4}],
     "ResourceSharingConfig": {"Strategy": "DontLend"}, "PreemptTeamTasks": "Never"}},
  {"ComputeQuotaTarget": {"TeamName": "lend"},
   "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Count": 1}],
     "ResourceSharingConfig": {"Strategy": "Lend"}}},
  {"ComputeQuotaTarget": {"TeamName": "both"},
   "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Count": 2}],
     "ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 25}}},
  {"ActivationState": "Disabled", "ComputeQuotaTarget": {"TeamName": "off"}, "ComputeQuotaConfig": {}}
]})");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->engine.fair_sharing);
  ASSERT_EQ(s->priority_classes.size(), 1u);
  EXPECT_EQ(s->priority_classes[0].name, "urgent-priority");
  EXPECT_EQ(s->priority_classes[0].value, 100);
  ASSERT_EQ(s->cluster_queues.size(), 3u);  // `off` is left out
  auto quota = [&](int q, const std::string& resource) -> const ResourceQuota& {
    for (const ResourceQuota& r : s->cluster_queues[q].resource_groups[0].flavors[0].resources) {
      if (s->resources[r.resource] == resource) return r;
    }
    static const ResourceQuota none;
    ADD_FAILURE() << resource;
    return none;
  };
  const ClusterQueue& keep = s->cluster_queues[0];
  EXPECT_EQ(keep.name, "hyperpod-ns-keep-clusterqueue");
  EXPECT_EQ(s->cohorts[keep.cohort].name, "hyperpod");
  EXPECT_EQ(keep.fair_weight, 7);
  EXPECT_EQ(keep.preemption.within_cluster_queue, PreemptionPolicy::kNever);
  EXPECT_EQ(keep.preemption.reclaim_within_cohort, PreemptionPolicy::kAny);
  // 4 of 8 accelerators: half the vCPUs and memory, by ratio.
  EXPECT_EQ(quota(0, "nvidia.com/gpu").nominal, 4);
  EXPECT_EQ(quota(0, "cpu").nominal, 96'000);  // milli-cpu
  EXPECT_EQ(quota(0, "memory").nominal, int64_t{1024} << 30);
  EXPECT_EQ(quota(0, "nvidia.com/gpu").lending_limit, std::optional<Quantity>(0));
  EXPECT_EQ(quota(0, "nvidia.com/gpu").borrowing_limit, std::optional<Quantity>(0));
  EXPECT_EQ(s->cluster_queues[1].preemption.within_cluster_queue, PreemptionPolicy::kLowerPriority);
  EXPECT_EQ(quota(1, "nvidia.com/gpu").nominal, 8);
  EXPECT_FALSE(quota(1, "nvidia.com/gpu").lending_limit.has_value());
  EXPECT_EQ(quota(1, "nvidia.com/gpu").borrowing_limit, std::optional<Quantity>(0));
  EXPECT_EQ(s->cluster_queues[1].fair_weight, 0);  // HyperPod's default weight
  EXPECT_EQ(quota(2, "nvidia.com/gpu").nominal, 16);
  EXPECT_EQ(quota(2, "nvidia.com/gpu").borrowing_limit, std::optional<Quantity>(4));  // 25% of 16
  EXPECT_EQ(quota(2, "cpu").borrowing_limit, std::optional<Quantity>(96'000));       // 25% of 384
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
