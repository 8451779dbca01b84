// Preemption: the classical search and the fair-sharing search for the
// workloads a preemptor may evict. docs/scheduling.md states each rule.
#include "cycle/preemption.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "cycle/quantity.h"

namespace charter::internal::schedule {
namespace {

using ::charter::schedule::FairSharingStrategy;
using ::charter::schedule::Preemption;
using ::charter::schedule::PreemptionPolicy;
using ::charter::schedule::PreemptionReason;

// How a classical candidate may be preempted.
enum class CandidateKind : uint8_t {
  kNever,
  kWithinClusterQueue,
  kHierarchicalReclaim,
  kReclaimWithoutBorrowing,
  kReclaimWhileBorrowing,
};

PreemptionReason ReasonOf(CandidateKind kind) {
  switch (kind) {
    case CandidateKind::kWithinClusterQueue: return PreemptionReason::kInClusterQueue;
    case CandidateKind::kReclaimWhileBorrowing: return PreemptionReason::kInCohortReclaimWhileBorrowing;
    default: return PreemptionReason::kInCohortReclamation;
  }
}

}  // namespace

bool Preemptor::SatisfiesPolicy(const WorkloadInfo& preemptor, const WorkloadInfo& candidate,
                                PreemptionPolicy policy) const {
  const bool lower = preemptor.workload->priority > candidate.workload->priority;
  switch (policy) {
    case PreemptionPolicy::kLowerPriority: return lower;
    case PreemptionPolicy::kLowerOrNewerEqualPriority:
      return lower || (preemptor.workload->priority == candidate.workload->priority &&
                       preemptor.queue_time < candidate.queue_time);
    case PreemptionPolicy::kAny: return true;
    case PreemptionPolicy::kNever: return false;
  }
  return false;
}

bool Preemptor::UsesResources(const WorkloadInfo& candidate, const std::vector<int>& frs) const {
  for (const FlavorResourceAmount& u : candidate.usage) {
    if (std::find(frs.begin(), frs.end(), u.fr) != frs.end()) return true;
  }
  return false;
}

// CandidatesOrdering: other queues first, lower priority, most recently
// reserved, uid.
bool Preemptor::CandidateBefore(int a, int b, int preemptor_cluster_queue) const {
  const WorkloadInfo& x = snapshot_.admitted()[a];
  const WorkloadInfo& y = snapshot_.admitted()[b];
  bool x_own = x.cluster_queue == preemptor_cluster_queue, y_own = y.cluster_queue == preemptor_cluster_queue;
  if (x_own != y_own) return !x_own;
  if (x.workload->priority != y.workload->priority) return x.workload->priority < y.workload->priority;
  if (x.reserved_at != y.reserved_at) return x.reserved_at > y.reserved_at;
  return x.workload->uid < y.workload->uid;
}

bool Preemptor::WorkloadFits(const PreemptionRequest& request, bool allow_borrowing) const {
  const int node = snapshot_.node(request.workload->cluster_queue);
  for (const FlavorResourceAmount& u : request.usage) {
    if (!allow_borrowing && tree_.BorrowingWith(node, u.fr, u.v)) return false;
    if (u.v > tree_.Available(node, u.fr)) return false;
  }
  return true;
}

std::vector<PreemptionTarget> Preemptor::FillBack(const PreemptionRequest& request,
                                                  std::vector<PreemptionTarget> targets, bool allow_borrowing) {
  for (int i = static_cast<int>(targets.size()) - 2; i >= 0; --i) {
    snapshot_.RestoreAdmitted(targets[i].admitted);
    if (WorkloadFits(request, allow_borrowing)) {
      targets[i] = targets.back();
      targets.pop_back();
    } else {
      snapshot_.RemoveAdmitted(targets[i].admitted, true);
    }
  }
  return targets;
}

bool Preemptor::AskRules(const WorkloadInfo& preemptor, int victim, PreemptionReason reason) {
  const std::string subject = Cat("`", snapshot_.admitted()[victim].workload->name, "`");
  if (!rules_->rules->MayEvict(victim)) {
    rules_->Note("evict", subject);
    return false;
  }
  if (!rules_->rules->MayPreempt(preemptor, victim, reason)) {
    rules_->Note("preempt", subject);
    return false;
  }
  return true;
}

std::vector<PreemptionTarget> Preemptor::FindTargets(const PreemptionRequest& request) {
  return snapshot_.state().engine.fair_sharing ? FairSharing(request) : Classical(request);
}

std::vector<PreemptionTarget> Preemptor::Classical(const PreemptionRequest& request) {
  struct Candidate {
    int admitted;
    int lca;  // the subtree root it was found under; -1 for the own queue
    CandidateKind kind;
  };
  const std::vector<WorkloadInfo>& admitted = snapshot_.admitted();
  const WorkloadInfo& preemptor = *request.workload;
  const int queue = preemptor.cluster_queue;
  const int node = snapshot_.node(queue);
  const Preemption& preemption = snapshot_.cluster_queue(queue).preemption;
  const bool borrow_forbidden = preemption.borrow_within_cohort == PreemptionPolicy::kNever;
  auto classify = [&](const WorkloadInfo& c, bool advantage) {
    if (!UsesResources(c, request.frs)) return CandidateKind::kNever;
    const PreemptionPolicy policy =
        c.cluster_queue == queue ? preemption.within_cluster_queue : preemption.reclaim_within_cohort;
    if (!SatisfiesPolicy(preemptor, c, policy)) return CandidateKind::kNever;
    if (c.cluster_queue == queue) return CandidateKind::kWithinClusterQueue;
    if (advantage) return CandidateKind::kHierarchicalReclaim;
    if (borrow_forbidden) return CandidateKind::kReclaimWithoutBorrowing;
    if (c.workload->priority >= preemptor.workload->priority ||
        (preemption.max_priority_threshold.has_value() && c.workload->priority > *preemption.max_priority_threshold)) {
      return CandidateKind::kReclaimWithoutBorrowing;
    }
    return CandidateKind::kReclaimWhileBorrowing;
  };
  auto from_queue = [&](int q, int lca, bool advantage, std::vector<Candidate>* out) {
    for (int i : snapshot_.admitted_to(q)) {
      if (admitted[i].hidden) continue;
      CandidateKind kind = classify(admitted[i], advantage);
      if (kind != CandidateKind::kNever) out->push_back({i, lca, kind});
    }
  };
  std::vector<Candidate> same, hierarchy, priority;
  if (preemption.within_cluster_queue != PreemptionPolicy::kNever) from_queue(queue, -1, false, &same);
  if (tree_.parent(node) >= 0 && preemption.reclaim_within_cohort != PreemptionPolicy::kNever) {
    // Walk up the preemptor's path; at each subtree collect candidates of the
    // other queues that borrow, with hierarchical advantage once the
    // request fits in the subtree walked so far.
    bool advantage = true;
    std::vector<FlavorResourceAmount> remaining = request.usage;
    for (FlavorResourceAmount& r : remaining) {
      if (tree_.subtree(node, r.fr) < SatAdd(tree_.usage(node, r.fr), r.v)) advantage = false;
    }
    for (FlavorResourceAmount& r : remaining) r.v = std::max<int64_t>(0, SatSub(r.v, tree_.LocalAvailable(node, r.fr)));
    int previous = -1;
    for (int current = tree_.parent(node); current >= 0; current = tree_.parent(current)) {
      std::vector<Candidate>* list = advantage ? &hierarchy : &priority;
      // collectCandidatesInSubtree, with an explicit stack.
      std::vector<int> stack = {current};
      while (!stack.empty()) {
        int n = stack.back();
        stack.pop_back();
        std::vector<int> kids;
        for (int child : tree_.child_cohorts(n)) {
          if (child == previous) continue;
          if (tree_.WithinNominal(child, request.frs)) continue;
          kids.push_back(child);
        }
        for (int child : tree_.child_cqs(n)) {
          if (child == node) continue;
          if (!tree_.WithinNominal(child, request.frs)) {
            from_queue(child - snapshot_.num_cohorts(), current, advantage, list);
          }
        }
        for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back(*it);
      }
      bool fits = true;
      for (FlavorResourceAmount& r : remaining) {
        if (tree_.subtree(current, r.fr) < SatAdd(tree_.usage(current, r.fr), r.v)) fits = false;
        r.v = std::max<int64_t>(0, SatSub(r.v, tree_.LocalAvailable(current, r.fr)));
      }
      advantage = advantage || fits;
      previous = current;
    }
  }
  auto by_order = [&](const Candidate& a, const Candidate& b) {
    return CandidateBefore(a.admitted, b.admitted, queue);
  };
  std::stable_sort(same.begin(), same.end(), by_order);
  std::stable_sort(hierarchy.begin(), hierarchy.end(), by_order);
  std::stable_sort(priority.begin(), priority.end(), by_order);
  std::vector<Candidate> all;
  all.insert(all.end(), hierarchy.begin(), hierarchy.end());
  all.insert(all.end(), priority.begin(), priority.end());
  all.insert(all.end(), same.begin(), same.end());
  if (all.size() > options_.max_candidates_per_head) all.resize(options_.max_candidates_per_head);
  const bool none_from_others = hierarchy.empty() && priority.empty();
  bool under_nominal = true;  // strictly, on every FR that needs preemption
  for (int fr : request.frs) {
    if (tree_.nominal(node, fr) <= tree_.usage(node, fr)) under_nominal = false;
  }
  std::vector<bool> attempts;
  if (none_from_others || (borrow_forbidden && !under_nominal)) {
    attempts = {true};
  } else if (borrow_forbidden && hierarchy.empty()) {
    attempts = {false, true};
  } else {
    attempts = {true, false};
  }
  auto valid = [&](const Candidate& c, bool borrow) {
    const WorkloadInfo& w = admitted[c.admitted];
    if (w.cluster_queue == queue) return true;
    if (borrow && c.kind == CandidateKind::kReclaimWithoutBorrowing) return false;
    const int candidate_node = snapshot_.node(w.cluster_queue);
    if (tree_.WithinNominal(candidate_node, request.frs)) return false;
    for (int n = tree_.parent(candidate_node); n >= 0 && n != c.lca; n = tree_.parent(n)) {
      if (tree_.WithinNominal(n, request.frs)) return false;
    }
    return true;
  };
  for (bool borrow : attempts) {
    std::vector<PreemptionTarget> targets;
    for (const Candidate& c : all) {
      if (!valid(c, borrow) || !RulesAllow(preemptor, c.admitted, ReasonOf(c.kind))) continue;
      snapshot_.RemoveAdmitted(c.admitted, true);
      targets.push_back({c.admitted, ReasonOf(c.kind), {}});
      if (WorkloadFits(request, borrow)) {
        targets = FillBack(request, std::move(targets), borrow);
        for (const PreemptionTarget& t : targets) snapshot_.RestoreAdmitted(t.admitted);
        if (request.explain) {
          for (PreemptionTarget& t : targets) {
            if (t.reason == PreemptionReason::kInCohortReclamation) t.why = BorrowText(request, t.admitted);
          }
        }
        return targets;
      }
    }
    for (const PreemptionTarget& t : targets) snapshot_.RestoreAdmitted(t.admitted);
  }
  return {};
}

std::vector<PreemptionTarget> Preemptor::FairSharing(const PreemptionRequest& request) {
  const std::vector<WorkloadInfo>& admitted = snapshot_.admitted();
  const WorkloadInfo& preemptor = *request.workload;
  const int queue = preemptor.cluster_queue;
  const int node = snapshot_.node(queue);
  const Preemption& preemption = snapshot_.cluster_queue(queue).preemption;
  const int num_cohorts = snapshot_.num_cohorts();
  const int num_queues = snapshot_.num_cluster_queues();
  std::vector<int> candidates;
  auto add_from = [&](int q, PreemptionPolicy policy) {
    for (int i : snapshot_.admitted_to(q)) {
      const WorkloadInfo& c = admitted[i];
      if (c.hidden || !SatisfiesPolicy(preemptor, c, policy) || !UsesResources(c, request.frs)) continue;
      candidates.push_back(i);
    }
  };
  if (preemption.within_cluster_queue != PreemptionPolicy::kNever) add_from(queue, preemption.within_cluster_queue);
  if (tree_.parent(node) >= 0 && preemption.reclaim_within_cohort != PreemptionPolicy::kNever) {
    std::vector<int> stack = {tree_.root(node)};
    while (!stack.empty()) {
      int n = stack.back();
      stack.pop_back();
      for (int child : tree_.child_cqs(n)) {
        if (child == node) continue;
        bool borrowing = false;
        for (int fr : request.frs) borrowing = borrowing || tree_.Borrowing(child, fr);
        if (borrowing) add_from(child - num_cohorts, preemption.reclaim_within_cohort);
      }
      for (int k : tree_.child_cohorts(n)) stack.push_back(k);
    }
  }
  if (candidates.empty()) return {};
  std::stable_sort(candidates.begin(), candidates.end(), [&](int a, int b) { return CandidateBefore(a, b, queue); });
  if (candidates.size() > options_.max_candidates_per_head) candidates.resize(options_.max_candidates_per_head);
  // rank_[i]: the position of the first candidate equal to i in the sorted
  // list, so rank_[a] < rank_[b] exactly when CandidateBefore(a, b).
  if (rank_.size() < admitted.size()) rank_.resize(admitted.size());
  for (size_t k = 0; k < candidates.size(); ++k) {
    rank_[candidates[k]] = k > 0 && !CandidateBefore(candidates[k - 1], candidates[k], queue) ? rank_[candidates[k - 1]]
                                                                                              : static_cast<int>(k);
  }

  // TargetClusterQueueOrdering over a candidate list.
  struct Ordering {
    std::vector<std::vector<int>> queue;  // per cluster queue, candidates in order
    std::vector<size_t> next;
    std::vector<bool> pruned_queue, pruned_cohort;
  };
  std::vector<bool> on_path(num_cohorts, false);
  for (int n = tree_.parent(node); n >= 0; n = tree_.parent(n)) on_path[n] = true;
  auto make = [&](const std::vector<int>& list) {
    Ordering o;
    o.queue.resize(num_queues);
    o.next.assign(num_queues, 0);
    o.pruned_queue.assign(num_queues, false);
    o.pruned_cohort.assign(num_cohorts, false);
    for (int i : list) o.queue[admitted[i].cluster_queue].push_back(i);
    return o;
  };
  auto has_workload = [](const Ordering& o, int q) { return o.next[q] < o.queue[q].size(); };
  auto next_target = [&](Ordering& o, int cohort) -> int {
    // Descends from `cohort` into the child with the highest share.
    for (;;) {
      int best_queue = -1;
      Drs best_queue_drs = Drs::Negative();
      for (int child : tree_.child_cqs(cohort)) {
        int q = child - num_cohorts;
        if (o.pruned_queue[q]) continue;
        Drs drs = tree_.DominantResourceShare(child);
        if ((!drs.borrowing && q != queue) || !has_workload(o, q)) {
          o.pruned_queue[q] = true;
          continue;
        }
        int c = CompareDrs(drs, best_queue_drs);
        if (c == 0 && best_queue >= 0) {
          if (rank_[o.queue[q][o.next[q]]] < rank_[o.queue[best_queue][o.next[best_queue]]]) best_queue = q;
        } else if (c == 1) {
          best_queue_drs = drs;
          best_queue = q;
        }
      }
      int best_cohort = -1;
      Drs best_cohort_drs = Drs::Negative();
      for (int child : tree_.child_cohorts(cohort)) {
        if (o.pruned_cohort[child]) continue;
        Drs drs = tree_.DominantResourceShare(child);
        if (!drs.borrowing && !on_path[child]) {
          o.pruned_cohort[child] = true;
        } else if (CompareDrs(drs, best_cohort_drs) >= 0) {
          best_cohort_drs = drs;
          best_cohort = child;
        }
      }
      if (best_cohort < 0 && best_queue < 0) {
        o.pruned_cohort[cohort] = true;
        return -1;
      }
      if (best_cohort >= 0 && CompareDrs(best_cohort_drs, best_queue_drs) >= 0) {
        cohort = best_cohort;
        continue;
      }
      return best_queue;
    }
  };
  // Yields the next target queue, or -1 when the ordering is exhausted.
  auto iter_next = [&](Ordering& o) -> int {
    if (tree_.parent(node) < 0) {
      return !o.pruned_queue[queue] && has_workload(o, queue) ? queue : -1;
    }
    const int root = tree_.root(node);
    while (!o.pruned_cohort[root]) {
      int t = next_target(o, root);
      if (t >= 0) return t;
    }
    return -1;
  };
  auto almost_lca = [&](int queue_node, int lca) {
    int a = queue_node;
    for (int n = tree_.parent(queue_node); n >= 0; n = tree_.parent(n)) {
      if (n == lca) return a;
      a = n;
    }
    return a;
  };
  auto node_name = [&](int n) {
    return tree_.is_cluster_queue(n) ? Cat("`", snapshot_.cluster_queue(n - num_cohorts).name, "`")
                          : Cat("cohort `", snapshot_.state().cohorts[n].name, "`");
  };
  auto shares = [&](int target_queue, Drs* preemptor_new, Drs* target_old) {
    const int target_node = snapshot_.node(target_queue);
    int lca = -1;
    for (int n = tree_.parent(target_node); n >= 0; n = tree_.parent(n)) {
      if (on_path[n]) {
        lca = n;
        break;
      }
    }
    *preemptor_new = tree_.DominantResourceShare(almost_lca(node, lca));
    *target_old = tree_.DominantResourceShare(almost_lca(target_node, lca));
    return lca;
  };
  auto fits_with_fair_sharing = [&]() {
    tree_.Remove(node, request.usage);
    bool fits = WorkloadFits(request, true);
    tree_.Add(node, request.usage);
    return fits;
  };

  tree_.Add(node, request.usage);  // DRS values include the incoming workload
  std::vector<PreemptionTarget> targets;
  std::vector<int> retry;
  bool fits = false;
  bool within_nominal = true;
  for (int fr : request.frs) within_nominal = within_nominal && !tree_.Borrowing(node, fr);
  const std::vector<FairSharingStrategy>& strategies = snapshot_.state().engine.fair_sharing_strategies;
  const FairSharingStrategy first =
      strategies.empty() ? FairSharingStrategy::kLessThanOrEqualToFinalShare : strategies[0];
  {
    Ordering o = make(candidates);
    for (int q = iter_next(o); q >= 0 && !fits; q = iter_next(o)) {
      if (q == queue || within_nominal) {
        int victim = o.queue[q][o.next[q]++];
        if (!RulesAllow(preemptor, victim,
                        q == queue ? PreemptionReason::kInClusterQueue : PreemptionReason::kInCohortReclamation)) {
          continue;
        }
        std::string why;
        if (request.explain && q != queue) {
          why = Cat(BorrowText(request, victim), "; `", snapshot_.cluster_queue(queue).name,
                    "` stays within its nominal quota");
        }
        snapshot_.RemoveAdmitted(victim, true);
        targets.push_back({victim,
                           q == queue ? PreemptionReason::kInClusterQueue : PreemptionReason::kInCohortReclamation,
                           std::move(why)});
        if (fits_with_fair_sharing()) fits = true;
        continue;
      }
      Drs preemptor_new, target_old;
      const int lca = shares(q, &preemptor_new, &target_old);
      if (std::isinf(preemptor_new.Share()) && !std::isinf(target_old.Share())) {
        while (has_workload(o, q)) retry.push_back(o.queue[q][o.next[q]++]);
        continue;
      }
      while (has_workload(o, q)) {
        int victim = o.queue[q][o.next[q]++];
        snapshot_.RemoveAdmitted(victim, false);
        Drs target_new = tree_.DominantResourceShare(almost_lca(snapshot_.node(q), lca));
        snapshot_.RestoreAdmitted(victim);
        const bool final_share = first == FairSharingStrategy::kLessThanOrEqualToFinalShare;
        bool passed =
            final_share ? CompareDrs(preemptor_new, target_new) <= 0 : CompareDrs(preemptor_new, target_old) < 0;
        if (passed && !RulesAllow(preemptor, victim, PreemptionReason::kInCohortFairSharing)) continue;
        if (passed) {
          std::string why;
          if (request.explain) {
            const std::string target_name = node_name(almost_lca(snapshot_.node(q), lca));
            const std::string preemptor_part = Cat(node_name(almost_lca(node, lca)), "'s with `",
                                                   preemptor.workload->name, "` is ", ShareText(preemptor_new));
            why = final_share ? Cat(target_name, "'s share would be ", ShareText(target_new), " without `",
                                    admitted[victim].workload->name, "` and ", preemptor_part,
                                    " (LessThanOrEqualToFinalShare: not above the target's share after the eviction)")
                              : Cat(target_name, "'s share is ", ShareText(target_old), " and ", preemptor_part,
                                    " (LessThanInitialShare: below the target's share before the eviction)");
          }
          snapshot_.RemoveAdmitted(victim, true);
          targets.push_back({victim, PreemptionReason::kInCohortFairSharing, std::move(why)});
          if (fits_with_fair_sharing()) fits = true;
          break;
        }
        retry.push_back(victim);
      }
    }
  }
  if (!fits && strategies.size() > 1) {
    Ordering o = make(retry);
    for (int q = iter_next(o); q >= 0 && !fits; q = iter_next(o)) {
      Drs preemptor_new, target_old;
      shares(q, &preemptor_new, &target_old);
      int victim = o.queue[q][o.next[q]++];
      bool passed = CompareDrs(preemptor_new, target_old) < 0 &&
                    RulesAllow(preemptor, victim, PreemptionReason::kInCohortFairSharing);
      if (passed) {
        std::string why;
        if (request.explain) {
          const int lca = shares(q, &preemptor_new, &target_old);
          why = Cat(node_name(almost_lca(snapshot_.node(q), lca)), "'s share is ", ShareText(target_old), " and ",
                    node_name(almost_lca(node, lca)), "'s with `", preemptor.workload->name, "` is ",
                    ShareText(preemptor_new), " (LessThanInitialShare: below the target's share before the eviction)");
        }
        snapshot_.RemoveAdmitted(victim, true);
        targets.push_back({victim, PreemptionReason::kInCohortFairSharing, std::move(why)});
        if (fits_with_fair_sharing()) fits = true;
      }
      o.pruned_queue[q] = true;
    }
  }
  tree_.Remove(node, request.usage);
  if (!fits) {
    for (const PreemptionTarget& t : targets) snapshot_.RestoreAdmitted(t.admitted);
    return {};
  }
  targets = FillBack(request, std::move(targets), true);
  for (const PreemptionTarget& t : targets) snapshot_.RestoreAdmitted(t.admitted);
  return targets;
}

std::string Preemptor::BorrowText(const PreemptionRequest& request, int victim) const {
  const int queue = snapshot_.admitted()[victim].cluster_queue;
  const int node = snapshot_.node(queue);
  for (int fr : request.frs) {
    if (!tree_.Borrowing(node, fr)) continue;
    return Cat("`", snapshot_.cluster_queue(queue).name, "` uses ", snapshot_.Quantity(fr, tree_.usage(node, fr)), " ",
               snapshot_.FlavorResourceText(fr), " of its nominal ", snapshot_.Quantity(fr, tree_.nominal(node, fr)));
  }
  return "";
}

std::string Preemptor::ShareText(const Drs& drs) const {
  if (drs.IsZero()) return "0";
  if (drs.weight == 0) return "infinite (weight 0)";
  // As Kueue reports it (status.fairSharing.weightedShare): rounded up.
  return Cat(static_cast<int64_t>(std::ceil(drs.Share())));
}

}  // namespace charter::internal::schedule
