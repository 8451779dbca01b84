// Flavor assignment: each request's flavor, by fit, borrowing level and the
// queue's flavor fungibility. docs/scheduling.md states each rule.
#include "cycle/flavor_assigner.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "cycle/quantity.h"

namespace charter::internal::schedule {
namespace {

using ::charter::schedule::ClusterQueue;
using ::charter::schedule::FlavorFungibility;
using ::charter::schedule::FlavorQuotas;
using ::charter::schedule::FungibilityPolicy;
using ::charter::schedule::FungibilityPreference;
using ::charter::schedule::PodSet;
using ::charter::schedule::Preemption;
using ::charter::schedule::PreemptionPolicy;
using ::charter::schedule::Request;
using ::charter::schedule::ResourceGroup;
using ::charter::schedule::Workload;

// A flavor's fit with its borrowing level (Kueue's granularMode).
struct GranularFit {
  FlavorFit fit;
  int borrowing_level;
};

bool IsPreferred(GranularFit a, GranularFit b, FungibilityPreference preference) {
  if (a.fit == FlavorFit::kNoFit) return false;
  if (b.fit == FlavorFit::kNoFit) return true;
  bool a_none = a.fit == FlavorFit::kNoCandidates, b_none = b.fit == FlavorFit::kNoCandidates;
  if (a_none != b_none) return !a_none;
  if (preference == FungibilityPreference::kPreemptionOverBorrowing) {
    if (a.borrowing_level != b.borrowing_level) return a.borrowing_level < b.borrowing_level;
    return a.fit > b.fit;
  }
  if (a.fit != b.fit) return a.fit > b.fit;
  return a.borrowing_level < b.borrowing_level;
}

bool ShouldTryNextFlavor(GranularFit m, const FlavorFungibility& fungibility) {
  if (m.fit == FlavorFit::kNoFit || m.fit == FlavorFit::kNoCandidates) return true;
  if ((m.fit == FlavorFit::kPreempt || m.fit == FlavorFit::kReclaim) &&
      fungibility.when_can_preempt == FungibilityPolicy::kTryNextFlavor) {
    return true;
  }
  if (m.borrowing_level != 0 && fungibility.when_can_borrow == FungibilityPolicy::kTryNextFlavor) return true;
  return false;
}

AssignmentMode ModeOf(FlavorFit fit) {
  switch (fit) {
    case FlavorFit::kNoFit: return AssignmentMode::kNoFit;
    case FlavorFit::kFit: return AssignmentMode::kFit;
    default: return AssignmentMode::kPreempt;
  }
}

}  // namespace

FlavorFit FlavorAssigner::FitsResourceQuota(const WorkloadInfo& workload, int fr, int64_t assumed, int64_t request,
                                            int* borrow, Assignment* assignment) {
  const int queue = workload.cluster_queue;
  const ClusterQueue& cluster_queue = snapshot_.cluster_queue(queue);
  const int node = snapshot_.node(queue);
  auto quantity = [&](int64_t v) { return snapshot_.Quantity(fr, v); };
  const int64_t val = SatAdd(assumed, request);
  const int64_t max_capacity = tree_.PotentialAvailable(node, fr);
  if (val > max_capacity) {
    *borrow = 0;
    if (assignment->reason.empty()) {
      assignment->exceeds_max = true;
      std::string how = Cat("nominal ", quantity(tree_.nominal(node, fr)));
      if (tree_.parent(node) >= 0) {
        if (tree_.borrowing_limit(node, fr) != kUnset) {
          CatAppend(&how, ", borrowing limit ", quantity(tree_.borrowing_limit(node, fr)));
        }
        CatAppend(&how, ", cohort tree `", snapshot_.state().cohorts[tree_.root(node)].name, "` holds ",
                  quantity(tree_.subtree(tree_.root(node), fr)), " in all");
      } else {
        CatAppend(&how, ", no cohort to borrow from");
      }
      assignment->reason =
          Cat("`", cluster_queue.name, "` needs ", quantity(val), " ", snapshot_.FlavorResourceText(fr),
              ", more than it can ever use: at most ", quantity(max_capacity), " (", how, ")");
    }
    return FlavorFit::kNoFit;
  }
  auto [level, may_reclaim] = tree_.LowestSubtreeThatFits(node, fr, val);
  *borrow = level;
  const int64_t available = tree_.Available(node, fr);
  if (val <= available) return FlavorFit::kFit;
  if (assignment->reason.empty() || assignment->exceeds_max) {
    assignment->exceeds_max = false;
    const int64_t nominal = tree_.nominal(node, fr);
    const int64_t used = tree_.usage(node, fr);
    std::string text =
        Cat("`", cluster_queue.name, "` needs ", quantity(val), " ", snapshot_.FlavorResourceText(fr), "; nominal ",
            quantity(nominal), ", used ", quantity(used), ", available ", quantity(available));
    if (tree_.parent(node) < 0) {
      CatAppend(&text, " (no cohort to borrow from)");
    } else {
      const int root = tree_.root(node);
      const int64_t idle = std::max<int64_t>(0, SatSub(tree_.subtree(root, fr), tree_.usage(root, fr)));
      CatAppend(&text, " (cohort `", snapshot_.state().cohorts[root].name, "` has ", quantity(idle), " idle");
      const int64_t b = tree_.borrowing_limit(node, fr);
      if (b != kUnset) {
        CatAppend(&text, "; borrowing limit ", quantity(b), ", borrowed ",
                  quantity(std::max<int64_t>(0, SatSub(used, nominal))));
      }
      text.push_back(')');
    }
    assignment->reason = std::move(text);
  }
  const bool fair_sharing = snapshot_.state().engine.fair_sharing;
  const Preemption& preemption = cluster_queue.preemption;
  const bool can_preempt_while_borrowing =
      preemption.borrow_within_cohort != PreemptionPolicy::kNever ||
      (fair_sharing && preemption.reclaim_within_cohort != PreemptionPolicy::kNever);
  if (tree_.nominal(node, fr) >= val || may_reclaim || can_preempt_while_borrowing) {
    // The oracle: the real preemption search on this one FR.
    PreemptionRequest oracle{&workload, {fr}, {{fr, val}}};
    std::vector<PreemptionTarget> targets = preemptor_.FindTargets(oracle);
    if (targets.empty()) {
      *borrow = tree_.LowestSubtreeThatFits(node, fr, val).first;
      return FlavorFit::kNoCandidates;
    }
    for (const PreemptionTarget& t : targets) snapshot_.RemoveAdmitted(t.admitted, false);
    *borrow = tree_.LowestSubtreeThatFits(node, fr, val).first;
    for (const PreemptionTarget& t : targets) snapshot_.RestoreAdmitted(t.admitted);
    for (const PreemptionTarget& t : targets) {
      if (snapshot_.admitted()[t.admitted].cluster_queue == queue) return FlavorFit::kPreempt;
    }
    return FlavorFit::kReclaim;
  }
  return FlavorFit::kNoFit;
}

FlavorFit FlavorAssigner::CheckBorrow(const WorkloadInfo& workload, int fr, int64_t val, FlavorFit fit, int* borrow,
                                      Assignment* assignment) {
  const int node = snapshot_.node(workload.cluster_queue);
  BorrowFacts facts;
  facts.fr = fr;
  facts.requested = val;
  facts.usage = tree_.usage(node, fr);
  facts.nominal = tree_.nominal(node, fr);
  facts.borrowed = std::max<int64_t>(0, SatSub(SatAdd(facts.usage, val), facts.nominal));
  facts.borrowing_limit = tree_.borrowing_limit(node, fr);
  facts.level = *borrow;
  if (snapshot_.state().engine.fair_sharing) {
    // Shares as Kueue reports them (weightedShare, rounded up), with the
    // request added to the queue.
    auto weighted = [](const Drs& d) {
      const double share = d.Share();
      return share >= 9.2e18 ? INT64_MAX : static_cast<int64_t>(std::ceil(share));
    };
    facts.fair_sharing = true;
    tree_.AddUsage(node, fr, val);
    facts.share = weighted(tree_.DominantResourceShare(node));
    int64_t sum = 0;
    int64_t count = 0;
    std::vector<int> stack = {tree_.root(node)};
    while (!stack.empty()) {
      const int n = stack.back();
      stack.pop_back();
      for (int child : tree_.child_cqs(n)) {
        sum = SatAdd(sum, weighted(tree_.DominantResourceShare(child)));
        ++count;
      }
      for (int c : tree_.child_cohorts(n)) stack.push_back(c);
    }
    tree_.RemoveUsage(node, fr, val);
    facts.average_share = count > 0 ? sum / count : 0;
  }
  if (rules_->rules->MayBorrow(workload, facts)) return fit;
  const std::string subject = snapshot_.FlavorResourceText(fr);
  rules_->Note("borrow", subject);
  if (assignment->reason.empty() || assignment->exceeds_max) {
    assignment->exceeds_max = false;
    assignment->reason = Cat("`", snapshot_.cluster_queue(workload.cluster_queue).name, "` needs ",
                             snapshot_.Quantity(fr, val), " ", subject, "; with it the queue would use ",
                             snapshot_.Quantity(fr, SatAdd(facts.usage, val)), ", ",
                             snapshot_.Quantity(fr, facts.borrowed), " above its nominal quota of ",
                             snapshot_.Quantity(fr, facts.nominal), ", and it may not borrow");
  }
  *borrow = 0;
  return FlavorFit::kNoFit;
}

Assignment FlavorAssigner::Assign(const WorkloadInfo& workload, const std::vector<std::vector<int>>* pin,
                                  const std::vector<std::vector<int>>* scan) {
  Assignment a;
  const Workload& w = *workload.workload;
  const ClusterQueue& cluster_queue = snapshot_.cluster_queue(workload.cluster_queue);
  const int pods = snapshot_.pods_resource();
  const bool covers_pods = pods >= 0 && snapshot_.ResourceGroupOf(workload.cluster_queue, pods) != nullptr;
  for (const PodSet& ps : w.pod_sets) {
    std::vector<std::pair<int, int64_t>> totals;
    for (const Request& r : ps.requests) totals.push_back({r.resource, SatMul(ps.count, r.per_pod)});
    int added_pods = -1;
    if (covers_pods) {
      bool has = std::any_of(totals.begin(), totals.end(), [&](const auto& t) { return t.first == pods; });
      if (!has) {
        added_pods = static_cast<int>(totals.size());
        totals.push_back({pods, ps.count});
      }
    }
    a.added_pods.push_back(added_pods);
    const size_t set_index = a.totals.size();
    std::vector<int> flavors(totals.size(), -1);
    std::vector<AssignmentMode> modes(totals.size(), AssignmentMode::kFit);
    std::vector<int> borrows(totals.size(), 0);
    std::vector<int> tried(totals.size(), -1);
    bool failed = false;
    for (size_t i = 0; i < totals.size() && !failed; ++i) {
      const int resource = totals[i].first;
      const ResourceGroup* group = snapshot_.ResourceGroupOf(workload.cluster_queue, resource);
      if (group == nullptr) {
        if (totals[i].second == 0) continue;
        a.reason = Cat("`", cluster_queue.name, "` has no quota for `", snapshot_.state().resources[resource],
                       "` (pod set `", ps.name, "`)");
        failed = true;
        break;
      }
      if (flavors[i] >= 0) continue;  // assigned with its group
      // The requests of this pod set that the group covers.
      std::vector<size_t> members;
      for (size_t k = 0; k < totals.size(); ++k) {
        if (std::find(group->covered_resources.begin(), group->covered_resources.end(), totals[k].first) !=
            group->covered_resources.end()) {
          members.push_back(k);
        }
      }
      GranularFit best{FlavorFit::kNoFit, std::numeric_limits<int>::max()};
      int best_flavor = -1;
      std::vector<FlavorFit> best_fits;
      std::vector<int> best_borrows;
      // Kueue resumes the search after the flavor where the previous one
      // stopped (FlavorFungibilityPreserveScanProgress).
      size_t first = 0;
      if (scan != nullptr && set_index < scan->size() && i < (*scan)[set_index].size() && (*scan)[set_index][i] >= 0) {
        first = static_cast<size_t>((*scan)[set_index][i]) + 1;
      }
      int attempted = -1;
      for (size_t k = first; k < group->flavors.size(); ++k) {
        const FlavorQuotas& quotas = group->flavors[k];
        attempted = static_cast<int>(k);
        // Assigned again after other preemptions of the cycle: only the
        // flavor nominated first is tried (Kueue keeps the nomination so
        // that an entry does not switch flavors within a cycle).
        if (pin != nullptr && set_index < pin->size() && i < (*pin)[set_index].size() &&
            (*pin)[set_index][i] != quotas.flavor) {
          continue;
        }
        GranularFit representative{FlavorFit::kFit, 0};
        std::vector<FlavorFit> fits(members.size(), FlavorFit::kNoFit);
        std::vector<int> flavor_borrows(members.size(), 0);
        for (size_t m = 0; m < members.size(); ++m) {
          const int fr = tree_.fr(quotas.flavor, totals[members[m]].first);
          int borrow = 0;
          const int64_t assumed = AmountOf(a.usage, fr);
          FlavorFit fit = FitsResourceQuota(workload, fr, assumed, totals[members[m]].second, &borrow, &a);
          if (borrow > 0 && fit != FlavorFit::kNoFit && rules_ != nullptr && rules_->rules != nullptr) {
            fit = CheckBorrow(workload, fr, SatAdd(assumed, totals[members[m]].second), fit, &borrow, &a);
          }
          fits[m] = fit;
          flavor_borrows[m] = borrow;
          GranularFit g{fit, borrow};
          if (IsPreferred(representative, g, cluster_queue.flavor_fungibility.preference)) representative = g;
        }
        if (!ShouldTryNextFlavor(representative, cluster_queue.flavor_fungibility)) {
          best = representative;
          best_flavor = quotas.flavor;
          best_fits = fits;
          best_borrows = flavor_borrows;
          break;
        }
        if (IsPreferred(representative, best, cluster_queue.flavor_fungibility.preference)) {
          best = representative;
          best_flavor = quotas.flavor;
          best_fits = fits;
          best_borrows = flavor_borrows;
        }
      }
      if (best_flavor < 0) {
        failed = true;
        break;
      }
      const int stopped = attempted == static_cast<int>(group->flavors.size()) - 1 ? -1 : attempted;
      for (size_t m = 0; m < members.size(); ++m) {
        flavors[members[m]] = best_flavor;
        modes[members[m]] = ModeOf(best_fits[m]);
        borrows[members[m]] = best_borrows[m];
        tried[members[m]] = stopped;
      }
    }
    if (failed) {
      a.mode = AssignmentMode::kNoFit;
      a.flavors.push_back(std::move(flavors));
      a.modes.push_back(std::move(modes));
      a.totals.push_back(std::move(totals));
      a.tried.push_back(std::move(tried));
      return a;
    }
    for (size_t i = 0; i < totals.size(); ++i) {
      if (flavors[i] < 0) continue;
      a.borrowing = std::max(a.borrowing, borrows[i]);
      AddTo(&a.usage, tree_.fr(flavors[i], totals[i].first), totals[i].second);
    }
    a.flavors.push_back(std::move(flavors));
    a.modes.push_back(std::move(modes));
    a.totals.push_back(std::move(totals));
    a.tried.push_back(std::move(tried));
  }
  a.mode = AssignmentMode::kFit;
  for (const auto& pod_set_modes : a.modes) {
    for (AssignmentMode m : pod_set_modes) a.mode = std::min(a.mode, m);
  }
  return a;
}

}  // namespace charter::internal::schedule
