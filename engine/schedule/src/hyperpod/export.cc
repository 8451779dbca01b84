// ExportHyperPod: the scheduling model as SageMaker HyperPod task governance
// requests, the reverse of schedule::LoadHyperPodState's mapping (load.cc):
//
//   cluster queue hyperpod-ns-T-clusterqueue -> ComputeQuota, TeamName T
//   each flavor of its resource groups       -> ComputeQuotaResources entry
//                                               (InstanceType = the flavor;
//                                               Accelerators = nvidia.com/gpu,
//                                               VCpu = cpu, MemoryInGiB = memory)
//   lending 0 and borrowing 0 everywhere     -> Strategy DontLend
//   borrowing 0 everywhere                   -> Strategy Lend
//   borrowing = ⌊nominal × p / 100⌋          -> Strategy LendAndBorrow, BorrowLimit p
//   within_cluster_queue                     -> PreemptTeamTasks
//   fair_weight                              -> FairShareWeight
//   priority class P-priority, value v       -> PriorityClasses {Name: P, Weight: v}
//   engine.fair_sharing                      -> FairShare
//
// Everything else is said in a note, with the nearest setting written.
#include <cmath>
#include <string>
#include <vector>

#include "charter/kueue.h"
#include "charter/schedule.h"
#include "common/strings.h"
#include "json/json.h"

namespace charter::kueue {
namespace {

using internal::Cat;
using internal::CatAppend;

constexpr std::string_view kQueuePrefix = "hyperpod-ns-";
constexpr std::string_view kQueueSuffix = "-clusterqueue";
constexpr std::string_view kClassSuffix = "-priority";

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

void Str(std::string* out, std::string_view s) { internal::json::AppendQuoted(out, s); }

}  // namespace

absl::StatusOr<Exported> ExportHyperPod(const schedule::State& s, const HyperPodExportOptions& options) {
  Exported out;
  auto note = [&](std::string message, bool warning = true) {
    Note n;
    n.severity = warning ? Note::Severity::kWarning : Note::Severity::kNote;
    n.message = std::move(message);
    out.notes.push_back(std::move(n));
  };
  std::string& j = out.text;
  j = "{\n\"ClusterSchedulerConfig\": {\"Name\": ";
  Str(&j, options.scheduler_config_name);
  j += ", \"ClusterArn\": ";
  Str(&j, options.cluster_arn);
  j += ",\n  \"SchedulerConfig\": {\"PriorityClasses\": [";
  for (size_t i = 0; i < s.priority_classes.size(); ++i) {
    const schedule::PriorityClass& pc = s.priority_classes[i];
    std::string name = pc.name;
    if (EndsWith(name, kClassSuffix) && name.size() > kClassSuffix.size()) {
      name = name.substr(0, name.size() - kClassSuffix.size());
    } else {
      note(Cat("priority class `", pc.name, "`: HyperPod names its WorkloadPriorityClass `", pc.name,
               "-priority`; workloads must use that name"));
    }
    int64_t weight = pc.value;
    if (weight < 0 || weight > 100) {
      weight = weight < 0 ? 0 : 100;
      note(Cat("priority class `", pc.name, "`: HyperPod's Weight is 0 to 100; ", pc.value, " is written as ", weight));
    }
    j += i > 0 ? ",\n      {\"Name\": " : "\n      {\"Name\": ";
    Str(&j, name);
    CatAppend(&j, ", \"Weight\": ", weight, "}");
  }
  CatAppend(&j, "],\n    \"FairShare\": \"", s.engine.fair_sharing ? "Enabled" : "Disabled", "\"}},\n");
  if (s.engine.fair_sharing && !(s.engine.fair_sharing_strategies.size() == 2)) {
    note("the fair-sharing preemption strategies are not a HyperPod setting: HyperPod uses Kueue's default");
  }
  // Cohorts: HyperPod puts every team in one cohort without quota of its own.
  int shared = -1;
  for (const schedule::ClusterQueue& cq : s.cluster_queues) {
    if (cq.cohort < 0) {
      note(Cat("cluster queue `", cq.name, "` has no cohort: every HyperPod team shares one cohort"));
    } else if (shared < 0) {
      shared = cq.cohort;
    } else if (cq.cohort != shared) {
      note(Cat("cluster queue `", cq.name, "` is in cohort `", s.cohorts[cq.cohort].name,
               "`: HyperPod has one cohort for all teams"));
    }
  }
  for (const schedule::Cohort& c : s.cohorts) {
    if (c.parent >= 0) note(Cat("cohort `", c.name, "` has a parent: HyperPod has no tree of cohorts"));
    if (!c.resource_groups.empty()) note(Cat("cohort `", c.name, "` has quota of its own: HyperPod has none"));
    if (c.fair_weight != 1.0) note(Cat("cohort `", c.name, "` has a fair weight: HyperPod has none"));
  }
  j += "\"ComputeQuotas\": [";
  for (size_t q = 0; q < s.cluster_queues.size(); ++q) {
    const schedule::ClusterQueue& cq = s.cluster_queues[q];
    const std::string what = Cat("cluster queue `", cq.name, "`");
    std::string team = cq.name;
    if (team.size() > kQueuePrefix.size() + kQueueSuffix.size() && team.substr(0, kQueuePrefix.size()) == kQueuePrefix &&
        EndsWith(team, kQueueSuffix)) {
      team = team.substr(kQueuePrefix.size(), team.size() - kQueuePrefix.size() - kQueueSuffix.size());
    } else {
      note(Cat(what, ": HyperPod names a team's queue hyperpod-ns-TEAM-clusterqueue; written as team `", team, "`"),
           false);
    }
    if (cq.queueing_strategy == schedule::QueueingStrategy::kStrictFIFO) {
      note(Cat(what, ": StrictFIFO is not a HyperPod setting (HyperPod queues are BestEffortFIFO)"));
    }
    const schedule::FlavorFungibility defaults;
    if (cq.flavor_fungibility.when_can_borrow != defaults.when_can_borrow ||
        cq.flavor_fungibility.when_can_preempt != defaults.when_can_preempt ||
        cq.flavor_fungibility.preference != defaults.preference) {
      note(Cat(what, ": flavor fungibility is not a HyperPod setting"));
    }
    std::string preempt = "LowerPriority";
    switch (cq.preemption.within_cluster_queue) {
      case schedule::PreemptionPolicy::kNever: preempt = "Never"; break;
      case schedule::PreemptionPolicy::kLowerPriority: break;
      default:
        note(Cat(what, ": within-queue preemption other than LowerPriority or Never is written as LowerPriority"));
    }
    if (cq.preemption.reclaim_within_cohort != schedule::PreemptionPolicy::kAny) {
      note(Cat(what, ": HyperPod always reclaims lent capacity (reclaimWithinCohort Any)"));
    }
    if (cq.preemption.borrow_within_cohort != schedule::PreemptionPolicy::kNever) {
      note(Cat(what, ": preemption while borrowing (borrowWithinCohort) is not a HyperPod setting"));
    }
    if (!cq.implements.empty()) note(Cat(what, ": `implements` has no HyperPod field"), false);
    // Resources, and the sharing strategy the limits amount to.
    bool all_lend_zero = true, all_borrow_zero = true, any_lending = false, unlimited_borrow = false;
    std::optional<double> percent;
    bool percent_agrees = true;
    std::string resources;
    size_t entries = 0;
    if (cq.resource_groups.size() > 1) {
      note(Cat(what, ": HyperPod has one list of instance types; the ", cq.resource_groups.size(),
               " resource groups are written as one"));
    }
    for (const schedule::ResourceGroup& g : cq.resource_groups) {
      for (const schedule::FlavorQuotas& fq : g.flavors) {
        int64_t gpu = 0, cpu_milli = 0, memory = 0;
        for (const schedule::ResourceQuota& rq : fq.resources) {
          const std::string& r = s.resources[rq.resource];
          if (r == "nvidia.com/gpu") gpu = rq.nominal;
          else if (r == "cpu") cpu_milli = rq.nominal;
          else if (r == "memory") memory = rq.nominal;
          else note(Cat(what, ": resource `", r, "` has no HyperPod field (Accelerators, VCpu, MemoryInGiB)"));
          if (!rq.lending_limit || *rq.lending_limit != 0) all_lend_zero = false;
          if (rq.lending_limit && *rq.lending_limit != 0 && *rq.lending_limit != rq.nominal) any_lending = true;
          if (!rq.borrowing_limit) {
            unlimited_borrow = true;
            all_borrow_zero = false;
          } else if (*rq.borrowing_limit != 0) {
            all_borrow_zero = false;
            if (rq.nominal > 0) {
              const double p = std::round(static_cast<double>(*rq.borrowing_limit) * 100.0 / static_cast<double>(rq.nominal));
              if (!percent) {
                percent = p;
              } else if (*percent != p) {
                percent_agrees = false;
              }
            }
          }
        }
        if (cpu_milli % 1000 != 0) note(Cat(what, ": HyperPod counts whole vCPUs; ", cpu_milli, "m is written as ", cpu_milli / 1000));
        const int64_t gib = int64_t{1} << 30;
        if (memory % gib != 0) note(Cat(what, ": HyperPod counts memory in GiB; it is rounded down"));
        resources += entries++ > 0 ? ",\n        {\"InstanceType\": " : "\n        {\"InstanceType\": ";
        Str(&resources, s.flavors[fq.flavor]);
        CatAppend(&resources, ", \"Accelerators\": ", gpu, ", \"VCpu\": ", cpu_milli / 1000, ", \"MemoryInGiB\": ",
                  memory / gib, "}");
      }
    }
    std::string strategy = "LendAndBorrow";
    std::string borrow_limit;
    if (entries > 0 && all_lend_zero && all_borrow_zero) {
      strategy = "DontLend";
    } else if (entries > 0 && all_borrow_zero) {
      strategy = "Lend";
    } else {
      double p = percent.value_or(50);
      if (unlimited_borrow) {
        p = 500;
        note(Cat(what, ": unlimited borrowing is written as HyperPod's largest BorrowLimit, 500%"));
      } else if (!percent_agrees) {
        note(Cat(what, ": its borrowing limits are not one percentage of its quotas; ", p, "% is written"));
      }
      borrow_limit = Cat(", \"BorrowLimit\": ", static_cast<int64_t>(p));
    }
    if (any_lending || (!all_lend_zero && strategy == "DontLend")) {
      note(Cat(what, ": HyperPod lends all or nothing; partial lending limits are not expressible"));
    }
    double weight = cq.fair_weight;
    if (weight != std::floor(weight) || weight < 0 || weight > 100) {
      weight = std::min(100.0, std::max(0.0, std::round(weight)));
      note(Cat(what, ": HyperPod's FairShareWeight is a whole number from 0 to 100; ", cq.fair_weight, " is written as ",
               weight));
    }
    j += q > 0 ? ",\n  {\"Name\": " : "\n  {\"Name\": ";
    Str(&j, Cat(team, "-quota"));
    j += ", \"ClusterArn\": ";
    Str(&j, options.cluster_arn);
    j += ", \"ActivationState\": \"Enabled\",\n    \"ComputeQuotaTarget\": {\"TeamName\": ";
    Str(&j, team);
    CatAppend(&j, ", \"FairShareWeight\": ", static_cast<int64_t>(weight), "},\n    \"ComputeQuotaConfig\": {",
              "\"ComputeQuotaResources\": [", resources, "],\n      \"ResourceSharingConfig\": {\"Strategy\": \"", strategy,
              "\"", borrow_limit, "}, \"PreemptTeamTasks\": \"", preempt, "\"}}");
  }
  j += "]\n}\n";
  if (!s.local_queues.empty()) {
    note("HyperPod creates each team's LocalQueue hyperpod-ns-TEAM-localqueue itself; the local queues are not written",
         false);
  }
  if (!s.admitted.empty() || !s.pending.empty()) {
    note(Cat("the ", s.admitted.size() + s.pending.size(), " workloads of the state are not written"), false);
  }
  return out;
}

}  // namespace charter::kueue
