// Why a head waits, all the way (issue 31, point 6): Kueue's pending reason
// (KEP-10852) for every state, the position in the queue, the entry that
// went first and the ordering rule, and the holders of the capacity with
// whether the preemption search may take each and why not.
#include <string>
#include <vector>

#include "charter/charter.h"
#include "charter/schedule.h"
#include "gtest/gtest.h"

namespace charter::schedule {
namespace {

CycleResult Cycle(const std::string& declarations, const std::string& workloads, const CycleOptions& options = {}) {
  std::vector<SourceFile> sources{SourceFile("cluster.charter", declarations)};
  absl::StatusOr<State> config = CompileDeclarations(sources, {}, nullptr);
  EXPECT_TRUE(config.ok()) << config.status();
  if (!config.ok()) return {};
  absl::StatusOr<State> state = LoadWorkloads(*config, workloads);
  EXPECT_TRUE(state.ok()) << state.status();
  if (!state.ok()) return {};
  absl::StatusOr<CycleResult> result = RunCycle(*state, options);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *std::move(result) : CycleResult{};
}

const NotAdmitted* Pending(const CycleResult& r, const std::string& name) {
  for (const NotAdmitted& n : r.not_admitted) {
    if (n.name == name) return &n;
  }
  ADD_FAILURE() << name << " is not a pending head";
  return nullptr;
}

TEST(PendingReasons, KueueReasonOfEveryState) {
  EXPECT_EQ(KueueReason(PendingState::kNoFitExceedsMaxQuota), "ExceedsMaxQuota");
  EXPECT_EQ(KueueReason(PendingState::kNoFit), "WaitingForQuota");
  EXPECT_EQ(KueueReason(PendingState::kNoFitNoCandidates), "WaitingForQuota");
  EXPECT_EQ(KueueReason(PendingState::kSkippedNoLongerFits), "WaitingForQuota");
  EXPECT_EQ(KueueReason(PendingState::kWaitingForPreemption), "WaitingForPreemptedWorkloads");
  EXPECT_EQ(KueueReason(PendingState::kDeferredFit), "WaitingForPreemptedWorkloads");
  EXPECT_EQ(KueueReason(PendingState::kDeniedByRule), "AdmissionGated");
  Queued q;
  EXPECT_EQ(KueueReason(q), "PendingEvaluation");
  q.inadmissible = true;
  EXPECT_EQ(KueueReason(q), "");
}

// A priority-100 head loses the GPUs to a priority-10 one that does not
// borrow; one holder of its queue may be preempted, the other queue's may
// not be reclaimed (it does not borrow).
const char kTwoQueues[] = R"(flavor gpu;
cohort org;
queue a {
  cohort: org;
  preemption { within_queue: LowerPriority; reclaim_within_cohort: LowerPriority; }
  resources "nvidia.com/gpu" { flavor gpu { "nvidia.com/gpu": 4; } }
}
queue b {
  cohort: org;
  preemption { within_queue: LowerPriority; reclaim_within_cohort: Any; }
  resources "nvidia.com/gpu" { flavor gpu { "nvidia.com/gpu": 8; } }
}
)";

std::string Admitted(const std::string& name, const std::string& queue, int priority, int gpus, int at) {
  return "{\"name\": \"" + name + "\", \"cluster_queue\": \"" + queue + "\", \"priority\": " + std::to_string(priority) +
         ", \"quota_reserved_at\": " + std::to_string(at) +
         ", \"pod_sets\": [{\"name\": \"main\", \"count\": " + std::to_string(gpus) +
         ", \"requests\": {\"nvidia.com/gpu\": 1}}], \"flavors\": {\"main\": {\"nvidia.com/gpu\": \"gpu\"}}}";
}

std::string PendingWorkload(const std::string& name, const std::string& queue, int priority, int gpus) {
  return "{\"name\": \"" + name + "\", \"cluster_queue\": \"" + queue + "\", \"priority\": " + std::to_string(priority) +
         ", \"pod_sets\": [{\"name\": \"main\", \"count\": " + std::to_string(gpus) +
         ", \"requests\": {\"nvidia.com/gpu\": 1}}]}";
}

TEST(PendingReasons, TheEntryThatWentFirstAndTheHolders) {
  const std::string workloads = "{\"admitted\": [" + Admitted("a-old", "a", 50, 4, -100) + ", " +
                                Admitted("b-run", "b", 5, 4, -50) + "], \"pending\": [" +
                                PendingWorkload("urgent", "a", 100, 4) + ", " + PendingWorkload("low", "b", 10, 4) +
                                ", " + PendingWorkload("later", "b", 1, 1) + "]}";
  CycleResult r = Cycle(kTwoQueues, workloads);
  ASSERT_EQ(r.admitted.size(), 1u);
  EXPECT_EQ(r.admitted[0].name, "low");
  const NotAdmitted* urgent = Pending(r, "urgent");
  ASSERT_NE(urgent, nullptr);
  EXPECT_EQ(urgent->state, PendingState::kSkippedNoLongerFits);
  EXPECT_EQ(urgent->position, 1);
  EXPECT_EQ(urgent->queue_length, 1);
  EXPECT_EQ(urgent->went_first,
            "`low` of `b` went first and took it: it does not borrow and this one would, and Kueue processes entries "
            "that do not borrow first");
  ASSERT_EQ(urgent->holders.size(), 2u);
  EXPECT_EQ(urgent->holders[0].name, "a-old");  // its own queue's first
  EXPECT_EQ(urgent->holders[0].usage, "4 nvidia.com/gpu in flavor gpu");
  EXPECT_TRUE(urgent->holders[0].candidate);
  EXPECT_EQ(urgent->holders[0].why,
            "preemptible within the queue (`within_queue: LowerPriority`, priority 50 against 100)");
  EXPECT_EQ(urgent->holders[1].name, "b-run");
  EXPECT_FALSE(urgent->holders[1].candidate);
  EXPECT_EQ(urgent->holders[1].why,
            "`b` uses no more than its nominal quota of it, and only what a queue borrows is reclaimed");
  EXPECT_EQ(urgent->more_holders, 0u);
  // The queued workload: Kueue's PendingEvaluation, second of two.
  ASSERT_EQ(r.queued.size(), 1u);
  EXPECT_EQ(r.queued[0].name, "later");
  EXPECT_EQ(r.queued[0].position, 2);
  EXPECT_EQ(r.queued[0].queue_length, 2);
  EXPECT_EQ(KueueReason(r.queued[0]), "PendingEvaluation");
  // All of it in the JSON and the text.
  const std::string json = r.ToJson();
  EXPECT_NE(json.find("\"reason\":\"WaitingForQuota\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"position\":1,\"queue_length\":1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"holders\":[{\"name\":\"a-old\",\"cluster_queue\":\"a\",\"usage\":\"4 nvidia.com/gpu in "
                      "flavor gpu\",\"candidate\":true"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"went_first\":\"`low` of `b` went first"), std::string::npos) << json;
  const std::string text = r.ToText();
  EXPECT_NE(text.find("PENDING  urgent (a) skipped_no_longer_fits; WaitingForQuota; position 1 of 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("         held by `b-run` (b): 4 nvidia.com/gpu in flavor gpu; not a candidate: "),
            std::string::npos)
      << text;
}

TEST(PendingReasons, HoldersWhoseQueuesBorrowAndPoliciesThatForbid) {
  // b borrows 4 of a's GPUs; a reclaims only lower priorities.
  const std::string workloads = "{\"admitted\": [" + Admitted("b-low", "b", 1, 6, -100) + ", " +
                                Admitted("b-high", "b", 500, 6, -90) + "], \"pending\": [" +
                                PendingWorkload("a-job", "a", 100, 4) + "]}";
  CycleResult r = Cycle(kTwoQueues, workloads);
  // It reclaims from b-low; nothing pending but a-job waiting for it.
  const NotAdmitted* job = Pending(r, "a-job");
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->state, PendingState::kWaitingForPreemption);
  EXPECT_TRUE(job->holders.empty());  // the victims are named instead
  ASSERT_EQ(r.preempted.size(), 1u);
  EXPECT_EQ(r.preempted[0].name, "b-low");

  // With only the high-priority borrower, no candidate: the policy forbids.
  const std::string high_only = "{\"admitted\": [" + Admitted("b-high", "b", 500, 12, -90) + "], \"pending\": [" +
                                PendingWorkload("a-job", "a", 100, 4) + "]}";
  r = Cycle(kTwoQueues, high_only);
  job = Pending(r, "a-job");
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->state, PendingState::kNoFitNoCandidates);
  ASSERT_EQ(job->holders.size(), 1u);
  EXPECT_FALSE(job->holders[0].candidate);
  EXPECT_EQ(job->holders[0].why,
            "`b` borrows, but the policy does not let it be reclaimed (`reclaim_within_cohort: LowerPriority`, "
            "priority 500 against 100)");

  // At most max_holders are named; the rest are counted.
  std::string many = "{\"admitted\": [";
  for (int i = 0; i < 4; ++i) many += (i > 0 ? ", " : "") + Admitted("a" + std::to_string(i), "a", 200, 1, -10 - i);
  many += "], \"pending\": [" + PendingWorkload("big", "a", 100, 2) + "]}";
  CycleOptions options;
  options.max_holders = 3;
  const std::string no_cohort = "flavor gpu;\nqueue a {\n  preemption { within_queue: LowerPriority; }\n"
                                "  resources \"nvidia.com/gpu\" { flavor gpu { \"nvidia.com/gpu\": 4; } }\n}\n";
  r = Cycle(no_cohort, many, options);
  job = Pending(r, "big");
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->holders.size(), 3u);
  EXPECT_EQ(job->more_holders, 1u);
  EXPECT_NE(r.ToText().find("         and 1 more holder\n"), std::string::npos) << r.ToText();
}

}  // namespace
}  // namespace charter::schedule
