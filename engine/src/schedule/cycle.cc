// One Kueue scheduling cycle (pkg/scheduler/scheduler.go and the flavor
// assigner and preemptor it calls), over the quota tree of tree.h:
//
//   heads      one pending workload per cluster queue (priority, then FIFO);
//   nominate   assign flavors to each head against the cycle's start state,
//              and find preemption targets when it needs them;
//   order      classical: non-borrowing first, then priority, then FIFO;
//              fair sharing: a tournament of dominant resource shares;
//   process    re-check each entry with the victims chosen so far removed;
//              admit it, issue its preemptions (it is not admitted in this
//              cycle), reserve quota for a blocked head, or skip it.
//
// docs/scheduling.md states each rule with worked examples.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "charter/schedule.h"
#include "common/strings.h"
#include "schedule/quantity.h"
#include "schedule/tree.h"

namespace charter::schedule {
namespace {

using internal::Cat;
using internal::CatAppend;
using internal::schedule::CompareDrs;
using internal::schedule::Drs;
using internal::schedule::FormatQuantity;
using internal::schedule::FrAmount;
using internal::schedule::kUnset;
using internal::schedule::SatAdd;
using internal::schedule::SatMul;
using internal::schedule::SatSub;
using internal::schedule::Tree;

// The flavor assigner's modes, worst first (granular preemption mode).
enum Mode : uint8_t { kModeNoFit, kModeNoCandidates, kModePreempt, kModeReclaim, kModeFit };
// An assignment's representative mode, worst first.
enum AMode : uint8_t { kNoFit, kPreempt, kDeferredFit, kFit };

enum class Variant : uint8_t { kNever, kWithinCQ, kHierarchicalReclaim, kReclaimWithoutBorrowing, kReclaimWhileBorrowing };

PreemptionReason ReasonOf(Variant v) {
  switch (v) {
    case Variant::kWithinCQ: return PreemptionReason::kInClusterQueue;
    case Variant::kReclaimWhileBorrowing: return PreemptionReason::kInCohortReclaimWhileBorrowing;
    default: return PreemptionReason::kInCohortReclamation;
  }
}

struct Granular {
  Mode mode;
  int borrow;
};

bool IsPreferred(Granular a, Granular b, FungibilityPreference pref) {
  if (a.mode == kModeNoFit) return false;
  if (b.mode == kModeNoFit) return true;
  bool a_none = a.mode == kModeNoCandidates, b_none = b.mode == kModeNoCandidates;
  if (a_none != b_none) return !a_none;
  if (pref == FungibilityPreference::kPreemptionOverBorrowing) {
    if (a.borrow != b.borrow) return a.borrow < b.borrow;
    return a.mode > b.mode;
  }
  if (a.mode != b.mode) return a.mode > b.mode;
  return a.borrow < b.borrow;
}

bool ShouldTryNextFlavor(Granular m, const FlavorFungibility& f) {
  if (m.mode == kModeNoFit || m.mode == kModeNoCandidates) return true;
  if ((m.mode == kModePreempt || m.mode == kModeReclaim) &&
      f.when_can_preempt == FungibilityPolicy::kTryNextFlavor) {
    return true;
  }
  if (m.borrow != 0 && f.when_can_borrow == FungibilityPolicy::kTryNextFlavor) return true;
  return false;
}

AMode FlavorAMode(Mode m) {
  switch (m) {
    case kModeNoFit: return kNoFit;
    case kModeFit: return kFit;
    default: return kPreempt;
  }
}

// A workload as the cycle sees it.
struct Wl {
  const Workload* w;
  int cq;                  // cluster queue index
  double ts;               // queue-order timestamp; unset = -inf
  double reserved;         // admitted: quota reservation time
  std::vector<FrAmount> usage;  // admitted: what it holds
  bool hidden = false;     // removed from its queue's workload list (simulation)
};

struct Assignment {
  AMode mode = kNoFit;
  int borrowing = 0;
  // Per pod set, per request: the flavor (-1: none) and its mode.
  std::vector<std::vector<int>> flavors;
  std::vector<std::vector<AMode>> modes;
  // Per pod set: total requests (count × per pod), with the `pods` request
  // when the queue covers it: {resource, amount}.
  std::vector<std::vector<std::pair<int, int64_t>>> totals;
  // Per pod set: the index in `totals` of the `pods` request the queue
  // added (the pod set did not request `pods` itself), or -1.
  std::vector<int> added_pods;
  // Per pod set, per request: where the flavor search stopped (the index
  // in the resource group, -1 after the last flavor or when nothing was
  // assigned); Kueue's LastTriedFlavorIdx.
  std::vector<std::vector<int>> tried;
  std::vector<FrAmount> usage;
  bool exceeds_max = false;
  std::string reason;  // why it did not fit, for the message
};

struct Target {
  int wl;  // index into Cycle::admitted_
  PreemptionReason reason;
  std::string why;  // the numbers behind the reason, for the message
};

// The fair-sharing tournament's view of an entry at one cohort of its path:
// the share of the cohort's child on the path with the entry's usage added,
// and whether that child then borrows on the flavor-resources it asks for.
struct FsLevel {
  int cohort;
  Drs drs;
  bool borrowing_on_request;
};

struct Entry {
  int wl;  // index into Cycle::pending_
  Assignment assignment;
  std::vector<Target> targets;
  // Tournament levels, valid while the nodes below the root on the entry's
  // path keep these usage versions (they depend on nothing else).
  std::vector<FsLevel> fs_levels;
  std::vector<std::pair<int, uint64_t>> fs_versions;
};

void AddTo(std::vector<FrAmount>* usage, int fr, int64_t v) {
  for (FrAmount& u : *usage) {
    if (u.fr == fr) {
      u.v = SatAdd(u.v, v);
      return;
    }
  }
  usage->push_back({fr, v});
}

int64_t AmountOf(const std::vector<FrAmount>& usage, int fr) {
  for (const FrAmount& u : usage) {
    if (u.fr == fr) return u.v;
  }
  return 0;
}

class Cycle {
 public:
  Cycle(const State& state, const CycleOptions& options)
      : state_(state), options_(options), tree_(state) {
    pods_ = -1;
    for (size_t r = 0; r < state.resources.size(); ++r) {
      if (state.resources[r] == "pods") pods_ = static_cast<int>(r);
    }
    cq_workloads_.resize(state.cluster_queues.size());
    for (const Workload& w : state.admitted) {
      Wl wl{&w, w.cluster_queue, Ts(w), w.quota_reserved_at.value_or(state.now), {}, false};
      for (const PodSet& ps : w.pod_sets) {
        for (const Request& r : ps.requests) {
          if (r.flavor < 0) continue;
          AddTo(&wl.usage, tree_.fr(r.flavor, r.resource), SatMul(ps.count, r.per_pod));
        }
      }
      tree_.Add(tree_.cq_node(w.cluster_queue), wl.usage);
      cq_workloads_[w.cluster_queue].push_back(static_cast<int>(admitted_.size()));
      admitted_.push_back(std::move(wl));
    }
    for (const Workload& w : state.pending) {
      pending_.push_back(Wl{&w, w.cluster_queue, Ts(w), 0, {}, false});
    }
  }

  CycleResult Run();

 private:
  static double Ts(const Workload& w) {
    return w.created_at.has_value() ? *w.created_at : -std::numeric_limits<double>::infinity();
  }
  const ClusterQueue& Cq(int cq) const { return state_.cluster_queues[cq]; }
  int Node(int cq) const { return tree_.cq_node(cq); }
  bool Milli(int resource) const { return state_.resources[resource] == "cpu"; }
  std::string Q(int fr, int64_t v) const { return FormatQuantity(v, Milli(tree_.resource_of(fr))); }
  std::string FrText(int fr) const {
    return Cat(state_.resources[tree_.resource_of(fr)], " in flavor ", state_.flavors[tree_.flavor_of(fr)]);
  }
  const ResourceGroup* GroupOf(int cq, int resource) const {
    for (const ResourceGroup& g : Cq(cq).resource_groups) {
      for (int r : g.covered_resources) {
        if (r == resource) return &g;
      }
    }
    return nullptr;
  }

  // --- workload set changes on the snapshot ---------------------------------
  void RemoveWl(int i, bool hide) {
    tree_.Remove(Node(admitted_[i].cq), admitted_[i].usage);
    if (hide) admitted_[i].hidden = true;
  }
  void AddWl(int i) {
    tree_.Add(Node(admitted_[i].cq), admitted_[i].usage);
    admitted_[i].hidden = false;
  }

  // --- flavor assignment (flavorassigner.go) --------------------------------
  // `pin` (may be null): per pod set and request, the only flavor to try
  // (Kueue's NominationMapping when an entry is assigned again). `scan`
  // (may be null): where the previous search stopped; the search starts
  // after it.
  Assignment Assign(const Wl& p, const std::vector<std::vector<int>>* pin,
                    const std::vector<std::vector<int>>* scan);
  Mode FitsResourceQuota(const Wl& p, int fr, int64_t assumed, int64_t request, int* borrow,
                         Assignment* a);

  // --- preemption (preemption.go) --------------------------------------------
  struct Preemptor {
    const Wl* wl;
    std::vector<int> frs;         // flavor-resources that need preemption
    std::vector<FrAmount> usage;  // what the preemptor would use
    bool explain = false;         // fill Target::why (not for the oracle)
  };
  std::vector<Target> GetTargets(const Preemptor& p);
  std::vector<Target> Classical(const Preemptor& p);
  std::vector<Target> Fair(const Preemptor& p);
  bool SatisfiesPolicy(const Wl& p, const Wl& c, PreemptionPolicy policy) const;
  bool UsesResources(const Wl& c, const std::vector<int>& frs) const;
  bool CandidateBefore(int a, int b, int preemptor_cq) const;
  bool WorkloadFits(const Preemptor& p, bool allow_borrowing) const;
  std::vector<Target> FillBack(const Preemptor& p, std::vector<Target> targets, bool allow_borrowing);

  // --- the cycle -----------------------------------------------------------
  // The first nomination of the cycle resumes the workload's recorded flavor
  // search; an assignment again after overlapping targets (`pin`) starts
  // from the first flavor.
  void Nominate(Entry* e, const std::vector<std::vector<int>>* pin = nullptr);
  void Process(Entry* e, CycleResult* out);
  std::vector<int> ClassicalOrder(std::vector<Entry>& entries);
  int PopFair(std::vector<Entry>& entries, std::vector<bool>* done);

  std::string NoFitMessage(const Entry& e) const;
  std::string AdmitMessage(const Entry& e) const;
  std::string PreemptMessage(const Wl& preemptor, const Target& target) const;
  // "`team-b` uses 6 cpu in flavor default of its nominal 4": the victim's
  // queue on a flavor-resource the preemptor needs and it borrows.
  std::string BorrowText(const Preemptor& p, int victim) const;
  std::string ShareText(const Drs& drs) const;

  const State& state_;
  const CycleOptions& options_;
  Tree tree_;
  int pods_ = -1;
  std::vector<Wl> admitted_;
  std::vector<Wl> pending_;
  std::vector<std::vector<int>> cq_workloads_;
  std::vector<uint8_t> victim_;  // admitted_ index -> preempted this cycle
  std::vector<int> victims_;     // the same, as a list
  std::vector<int> rank_;        // admitted_ index -> candidate rank in the current fair-sharing search
};

// --- flavor assignment -------------------------------------------------------

Mode Cycle::FitsResourceQuota(const Wl& p, int fr, int64_t assumed, int64_t request, int* borrow,
                              Assignment* a) {
  const int cq = p.cq;
  const int node = Node(cq);
  const int64_t val = SatAdd(assumed, request);
  const int64_t max_capacity = tree_.PotentialAvailable(node, fr);
  if (val > max_capacity) {
    *borrow = 0;
    if (a->reason.empty()) {
      a->exceeds_max = true;
      std::string how = Cat("nominal ", Q(fr, tree_.nominal(node, fr)));
      if (tree_.parent(node) >= 0) {
        if (tree_.borrowing_limit(node, fr) != kUnset) {
          CatAppend(&how, ", borrowing limit ", Q(fr, tree_.borrowing_limit(node, fr)));
        }
        CatAppend(&how, ", cohort tree `", state_.cohorts[tree_.root(node)].name, "` holds ",
                  Q(fr, tree_.subtree(tree_.root(node), fr)), " in all");
      } else {
        CatAppend(&how, ", no cohort to borrow from");
      }
      a->reason = Cat("`", Cq(cq).name, "` needs ", Q(fr, val), " ", FrText(fr),
                      ", more than it can ever use: at most ", Q(fr, max_capacity), " (", how, ")");
    }
    return kModeNoFit;
  }
  auto [level, may_reclaim] = tree_.LowestSubtreeThatFits(node, fr, val);
  *borrow = level;
  const int64_t available = tree_.Available(node, fr);
  if (val <= available) return kModeFit;
  if (a->reason.empty() || a->exceeds_max) {
    a->exceeds_max = false;
    const int64_t nominal = tree_.nominal(node, fr);
    const int64_t used = tree_.usage(node, fr);
    std::string text = Cat("`", Cq(cq).name, "` needs ", Q(fr, val), " ", FrText(fr), "; nominal ",
                           Q(fr, nominal), ", used ", Q(fr, used), ", available ", Q(fr, available));
    if (tree_.parent(node) < 0) {
      CatAppend(&text, " (no cohort to borrow from)");
    } else {
      const int root = tree_.root(node);
      const int64_t idle = std::max<int64_t>(0, SatSub(tree_.subtree(root, fr), tree_.usage(root, fr)));
      CatAppend(&text, " (cohort `", state_.cohorts[root].name, "` has ", Q(fr, idle), " idle");
      const int64_t b = tree_.borrowing_limit(node, fr);
      if (b != kUnset) {
        CatAppend(&text, "; borrowing limit ", Q(fr, b), ", borrowed ",
                  Q(fr, std::max<int64_t>(0, SatSub(used, nominal))));
      }
      text.push_back(')');
    }
    a->reason = std::move(text);
  }
  const bool fair = state_.engine.fair_sharing;
  const Preemption& pre = Cq(cq).preemption;
  const bool can_preempt_while_borrowing =
      pre.borrow_within_cohort != PreemptionPolicy::kNever ||
      (fair && pre.reclaim_within_cohort != PreemptionPolicy::kNever);
  if (tree_.nominal(node, fr) >= val || may_reclaim || can_preempt_while_borrowing) {
    // The oracle: the real preemption search on this one FR.
    Preemptor oracle{&p, {fr}, {{fr, val}}};
    std::vector<Target> targets = GetTargets(oracle);
    if (targets.empty()) {
      *borrow = tree_.LowestSubtreeThatFits(node, fr, val).first;
      return kModeNoCandidates;
    }
    for (const Target& t : targets) RemoveWl(t.wl, false);
    *borrow = tree_.LowestSubtreeThatFits(node, fr, val).first;
    for (const Target& t : targets) AddWl(t.wl);
    for (const Target& t : targets) {
      if (admitted_[t.wl].cq == cq) return kModePreempt;
    }
    return kModeReclaim;
  }
  return kModeNoFit;
}

Assignment Cycle::Assign(const Wl& p, const std::vector<std::vector<int>>* pin,
                         const std::vector<std::vector<int>>* scan) {
  Assignment a;
  const Workload& w = *p.w;
  const ClusterQueue& cq = Cq(p.cq);
  const bool covers_pods = pods_ >= 0 && GroupOf(p.cq, pods_) != nullptr;
  for (const PodSet& ps : w.pod_sets) {
    std::vector<std::pair<int, int64_t>> totals;
    for (const Request& r : ps.requests) totals.push_back({r.resource, SatMul(ps.count, r.per_pod)});
    int added_pods = -1;
    if (covers_pods) {
      bool has = std::any_of(totals.begin(), totals.end(), [&](const auto& t) { return t.first == pods_; });
      if (!has) {
        added_pods = static_cast<int>(totals.size());
        totals.push_back({pods_, ps.count});
      }
    }
    a.added_pods.push_back(added_pods);
    const size_t set_index = a.totals.size();
    std::vector<int> flavors(totals.size(), -1);
    std::vector<AMode> modes(totals.size(), kFit);
    std::vector<int> borrows(totals.size(), 0);
    std::vector<int> tried(totals.size(), -1);
    bool failed = false;
    for (size_t i = 0; i < totals.size() && !failed; ++i) {
      const int res = totals[i].first;
      const ResourceGroup* group = GroupOf(p.cq, res);
      if (group == nullptr) {
        if (totals[i].second == 0) continue;
        a.reason = Cat("`", cq.name, "` has no quota for `", state_.resources[res], "` (pod set `", ps.name, "`)");
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
      Granular best{kModeNoFit, std::numeric_limits<int>::max()};
      int best_flavor = -1;
      std::vector<Mode> best_modes;
      std::vector<int> best_borrows;
      // Kueue resumes the search after the flavor where the previous one
      // stopped (FlavorFungibilityPreserveScanProgress).
      size_t first = 0;
      if (scan != nullptr && set_index < scan->size() && i < (*scan)[set_index].size() &&
          (*scan)[set_index][i] >= 0) {
        first = static_cast<size_t>((*scan)[set_index][i]) + 1;
      }
      int attempted = -1;
      for (size_t k = first; k < group->flavors.size(); ++k) {
        const FlavorQuotas& fq = group->flavors[k];
        attempted = static_cast<int>(k);
        // Assigned again after other preemptions of the cycle: only the
        // flavor nominated first is tried (Kueue keeps the nomination so
        // that an entry does not switch flavors within a cycle).
        if (pin != nullptr && set_index < pin->size() && i < (*pin)[set_index].size() &&
            (*pin)[set_index][i] != fq.flavor) {
          continue;
        }
        Granular rep{kModeFit, 0};
        std::vector<Mode> fmodes(members.size(), kModeNoFit);
        std::vector<int> fborrows(members.size(), 0);
        for (size_t m = 0; m < members.size(); ++m) {
          const int fr = tree_.fr(fq.flavor, totals[members[m]].first);
          int borrow = 0;
          Mode mode = FitsResourceQuota(p, fr, AmountOf(a.usage, fr), totals[members[m]].second, &borrow, &a);
          fmodes[m] = mode;
          fborrows[m] = borrow;
          Granular g{mode, borrow};
          if (IsPreferred(rep, g, cq.flavor_fungibility.preference)) rep = g;
        }
        if (!ShouldTryNextFlavor(rep, cq.flavor_fungibility)) {
          best = rep;
          best_flavor = fq.flavor;
          best_modes = fmodes;
          best_borrows = fborrows;
          break;
        }
        if (IsPreferred(rep, best, cq.flavor_fungibility.preference)) {
          best = rep;
          best_flavor = fq.flavor;
          best_modes = fmodes;
          best_borrows = fborrows;
        }
      }
      if (best_flavor < 0) {
        failed = true;
        break;
      }
      const int stopped = attempted == static_cast<int>(group->flavors.size()) - 1 ? -1 : attempted;
      for (size_t m = 0; m < members.size(); ++m) {
        flavors[members[m]] = best_flavor;
        modes[members[m]] = FlavorAMode(best_modes[m]);
        borrows[members[m]] = best_borrows[m];
        tried[members[m]] = stopped;
      }
    }
    if (failed) {
      a.mode = kNoFit;
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
  a.mode = kFit;
  for (const auto& ps : a.modes) {
    for (AMode m : ps) a.mode = std::min(a.mode, m);
  }
  return a;
}

// --- preemption ----------------------------------------------------------------

bool Cycle::SatisfiesPolicy(const Wl& p, const Wl& c, PreemptionPolicy policy) const {
  const bool lower = p.w->priority > c.w->priority;
  switch (policy) {
    case PreemptionPolicy::kLowerPriority: return lower;
    case PreemptionPolicy::kLowerOrNewerEqualPriority:
      return lower || (p.w->priority == c.w->priority && p.ts < c.ts);
    case PreemptionPolicy::kAny: return true;
    case PreemptionPolicy::kNever: return false;
  }
  return false;
}

bool Cycle::UsesResources(const Wl& c, const std::vector<int>& frs) const {
  for (const FrAmount& u : c.usage) {
    if (std::find(frs.begin(), frs.end(), u.fr) != frs.end()) return true;
  }
  return false;
}

// CandidatesOrdering: other queues first, lower priority, most recently
// reserved, uid.
bool Cycle::CandidateBefore(int a, int b, int preemptor_cq) const {
  const Wl& x = admitted_[a];
  const Wl& y = admitted_[b];
  bool x_own = x.cq == preemptor_cq, y_own = y.cq == preemptor_cq;
  if (x_own != y_own) return !x_own;
  if (x.w->priority != y.w->priority) return x.w->priority < y.w->priority;
  if (x.reserved != y.reserved) return x.reserved > y.reserved;
  return x.w->uid < y.w->uid;
}

bool Cycle::WorkloadFits(const Preemptor& p, bool allow_borrowing) const {
  const int node = Node(p.wl->cq);
  for (const FrAmount& u : p.usage) {
    if (!allow_borrowing && tree_.BorrowingWith(node, u.fr, u.v)) return false;
    if (u.v > tree_.Available(node, u.fr)) return false;
  }
  return true;
}

std::vector<Target> Cycle::FillBack(const Preemptor& p, std::vector<Target> targets, bool allow_borrowing) {
  for (int i = static_cast<int>(targets.size()) - 2; i >= 0; --i) {
    AddWl(targets[i].wl);
    if (WorkloadFits(p, allow_borrowing)) {
      targets[i] = targets.back();
      targets.pop_back();
    } else {
      RemoveWl(targets[i].wl, true);
    }
  }
  return targets;
}

std::vector<Target> Cycle::GetTargets(const Preemptor& p) {
  return state_.engine.fair_sharing ? Fair(p) : Classical(p);
}

std::vector<Target> Cycle::Classical(const Preemptor& p) {
  struct Candidate {
    int wl;
    int lca;  // the subtree root it was found under; -1 for the own queue
    Variant variant;
  };
  const int cq = p.wl->cq;
  const int node = Node(cq);
  const Preemption& pre = Cq(cq).preemption;
  const bool borrow_forbidden = pre.borrow_within_cohort == PreemptionPolicy::kNever;
  auto classify = [&](const Wl& c, bool advantage) {
    if (!UsesResources(c, p.frs)) return Variant::kNever;
    const PreemptionPolicy policy = c.cq == cq ? pre.within_cluster_queue : pre.reclaim_within_cohort;
    if (!SatisfiesPolicy(*p.wl, c, policy)) return Variant::kNever;
    if (c.cq == cq) return Variant::kWithinCQ;
    if (advantage) return Variant::kHierarchicalReclaim;
    if (borrow_forbidden) return Variant::kReclaimWithoutBorrowing;
    if (c.w->priority >= p.wl->w->priority ||
        (pre.max_priority_threshold.has_value() && c.w->priority > *pre.max_priority_threshold)) {
      return Variant::kReclaimWithoutBorrowing;
    }
    return Variant::kReclaimWhileBorrowing;
  };
  auto from_cq = [&](int q, int lca, bool advantage, std::vector<Candidate>* out) {
    for (int i : cq_workloads_[q]) {
      if (admitted_[i].hidden) continue;
      Variant v = classify(admitted_[i], advantage);
      if (v != Variant::kNever) out->push_back({i, lca, v});
    }
  };
  std::vector<Candidate> same, hierarchy, priority;
  if (pre.within_cluster_queue != PreemptionPolicy::kNever) from_cq(cq, -1, false, &same);
  if (tree_.parent(node) >= 0 && pre.reclaim_within_cohort != PreemptionPolicy::kNever) {
    // Walk up the preemptor's path; at each subtree collect candidates of the
    // other queues that borrow, with hierarchical advantage once the
    // request fits in the subtree walked so far.
    bool advantage = true;
    std::vector<FrAmount> remaining = p.usage;
    for (FrAmount& r : remaining) {
      if (tree_.subtree(node, r.fr) < SatAdd(tree_.usage(node, r.fr), r.v)) advantage = false;
    }
    for (FrAmount& r : remaining) r.v = std::max<int64_t>(0, SatSub(r.v, tree_.LocalAvailable(node, r.fr)));
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
          if (tree_.WithinNominal(child, p.frs)) continue;
          kids.push_back(child);
        }
        for (int child : tree_.child_cqs(n)) {
          if (child == node) continue;
          if (!tree_.WithinNominal(child, p.frs)) from_cq(child - static_cast<int>(state_.cohorts.size()), current, advantage, list);
        }
        for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back(*it);
      }
      bool fits = true;
      for (FrAmount& r : remaining) {
        if (tree_.subtree(current, r.fr) < SatAdd(tree_.usage(current, r.fr), r.v)) fits = false;
        r.v = std::max<int64_t>(0, SatSub(r.v, tree_.LocalAvailable(current, r.fr)));
      }
      advantage = advantage || fits;
      previous = current;
    }
  }
  auto by_order = [&](const Candidate& a, const Candidate& b) { return CandidateBefore(a.wl, b.wl, cq); };
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
  for (int fr : p.frs) {
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
    const Wl& w = admitted_[c.wl];
    if (w.cq == cq) return true;
    if (borrow && c.variant == Variant::kReclaimWithoutBorrowing) return false;
    const int cnode = Node(w.cq);
    if (tree_.WithinNominal(cnode, p.frs)) return false;
    for (int n = tree_.parent(cnode); n >= 0 && n != c.lca; n = tree_.parent(n)) {
      if (tree_.WithinNominal(n, p.frs)) return false;
    }
    return true;
  };
  for (bool borrow : attempts) {
    std::vector<Target> targets;
    for (const Candidate& c : all) {
      if (!valid(c, borrow)) continue;
      RemoveWl(c.wl, true);
      targets.push_back({c.wl, ReasonOf(c.variant), {}});
      if (WorkloadFits(p, borrow)) {
        targets = FillBack(p, std::move(targets), borrow);
        for (const Target& t : targets) AddWl(t.wl);
        if (p.explain) {
          for (Target& t : targets) {
            if (t.reason == PreemptionReason::kInCohortReclamation) t.why = BorrowText(p, t.wl);
          }
        }
        return targets;
      }
    }
    for (const Target& t : targets) AddWl(t.wl);
  }
  return {};
}

std::vector<Target> Cycle::Fair(const Preemptor& p) {
  const int cq = p.wl->cq;
  const int node = Node(cq);
  const Preemption& pre = Cq(cq).preemption;
  const int num_cohorts = static_cast<int>(state_.cohorts.size());
  std::vector<int> candidates;
  auto add_from = [&](int q, PreemptionPolicy policy) {
    for (int i : cq_workloads_[q]) {
      const Wl& c = admitted_[i];
      if (c.hidden || !SatisfiesPolicy(*p.wl, c, policy) || !UsesResources(c, p.frs)) continue;
      candidates.push_back(i);
    }
  };
  if (pre.within_cluster_queue != PreemptionPolicy::kNever) add_from(cq, pre.within_cluster_queue);
  if (tree_.parent(node) >= 0 && pre.reclaim_within_cohort != PreemptionPolicy::kNever) {
    std::vector<int> stack = {tree_.root(node)};
    while (!stack.empty()) {
      int n = stack.back();
      stack.pop_back();
      for (int child : tree_.child_cqs(n)) {
        if (child == node) continue;
        bool borrowing = false;
        for (int fr : p.frs) borrowing = borrowing || tree_.Borrowing(child, fr);
        if (borrowing) add_from(child - num_cohorts, pre.reclaim_within_cohort);
      }
      for (int k : tree_.child_cohorts(n)) stack.push_back(k);
    }
  }
  if (candidates.empty()) return {};
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](int a, int b) { return CandidateBefore(a, b, cq); });
  if (candidates.size() > options_.max_candidates_per_head) candidates.resize(options_.max_candidates_per_head);
  // rank_[i]: the position of the first candidate equal to i in the sorted
  // list, so rank_[a] < rank_[b] exactly when CandidateBefore(a, b).
  if (rank_.size() < admitted_.size()) rank_.resize(admitted_.size());
  for (size_t k = 0; k < candidates.size(); ++k) {
    rank_[candidates[k]] = k > 0 && !CandidateBefore(candidates[k - 1], candidates[k], cq)
                               ? rank_[candidates[k - 1]]
                               : static_cast<int>(k);
  }

  // TargetClusterQueueOrdering over a candidate list.
  struct Ordering {
    std::vector<std::vector<int>> queue;  // per cluster queue, candidates in order
    std::vector<size_t> next;
    std::vector<bool> pruned_cq, pruned_cohort;
  };
  std::vector<bool> on_path(num_cohorts, false);
  for (int n = tree_.parent(node); n >= 0; n = tree_.parent(n)) on_path[n] = true;
  auto make = [&](const std::vector<int>& list) {
    Ordering o;
    o.queue.resize(state_.cluster_queues.size());
    o.next.assign(state_.cluster_queues.size(), 0);
    o.pruned_cq.assign(state_.cluster_queues.size(), false);
    o.pruned_cohort.assign(num_cohorts, false);
    for (int i : list) o.queue[admitted_[i].cq].push_back(i);
    return o;
  };
  auto has_wl = [](const Ordering& o, int q) { return o.next[q] < o.queue[q].size(); };
  auto next_target = [&](Ordering& o, int cohort) -> int {
    // Descends from `cohort` into the child with the highest share.
    for (;;) {
      int best_cq = -1;
      Drs best_cq_drs = Drs::Negative();
      for (int child : tree_.child_cqs(cohort)) {
        int q = child - num_cohorts;
        if (o.pruned_cq[q]) continue;
        Drs drs = tree_.DominantResourceShare(child);
        if ((!drs.borrowing && q != cq) || !has_wl(o, q)) {
          o.pruned_cq[q] = true;
          continue;
        }
        int c = CompareDrs(drs, best_cq_drs);
        if (c == 0 && best_cq >= 0) {
          if (rank_[o.queue[q][o.next[q]]] < rank_[o.queue[best_cq][o.next[best_cq]]]) best_cq = q;
        } else if (c == 1) {
          best_cq_drs = drs;
          best_cq = q;
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
      if (best_cohort < 0 && best_cq < 0) {
        o.pruned_cohort[cohort] = true;
        return -1;
      }
      if (best_cohort >= 0 && CompareDrs(best_cohort_drs, best_cq_drs) >= 0) {
        cohort = best_cohort;
        continue;
      }
      return best_cq;
    }
  };
  // Yields the next target queue, or -1 when the ordering is exhausted.
  auto iter_next = [&](Ordering& o) -> int {
    if (tree_.parent(node) < 0) {
      return !o.pruned_cq[cq] && has_wl(o, cq) ? cq : -1;
    }
    const int root = tree_.root(node);
    while (!o.pruned_cohort[root]) {
      int t = next_target(o, root);
      if (t >= 0) return t;
    }
    return -1;
  };
  auto almost_lca = [&](int q_node, int lca) {
    int a = q_node;
    for (int n = tree_.parent(q_node); n >= 0; n = tree_.parent(n)) {
      if (n == lca) return a;
      a = n;
    }
    return a;
  };
  auto node_name = [&](int n) {
    return tree_.is_cq(n) ? Cat("`", Cq(n - num_cohorts).name, "`") : Cat("cohort `", state_.cohorts[n].name, "`");
  };
  auto shares = [&](int target_q, Drs* preemptor_new, Drs* target_old) {
    const int tnode = Node(target_q);
    int lca = -1;
    for (int n = tree_.parent(tnode); n >= 0; n = tree_.parent(n)) {
      if (on_path[n]) {
        lca = n;
        break;
      }
    }
    *preemptor_new = tree_.DominantResourceShare(almost_lca(node, lca));
    *target_old = tree_.DominantResourceShare(almost_lca(tnode, lca));
    return lca;
  };
  auto fits_fs = [&]() {
    tree_.Remove(node, p.usage);
    bool fits = WorkloadFits(p, true);
    tree_.Add(node, p.usage);
    return fits;
  };

  tree_.Add(node, p.usage);  // DRS values include the incoming workload
  std::vector<Target> targets;
  std::vector<int> retry;
  bool fits = false;
  bool within_nominal = true;
  for (int fr : p.frs) within_nominal = within_nominal && !tree_.Borrowing(node, fr);
  const FairSharingStrategy first = state_.engine.fair_sharing_strategies.empty()
                                        ? FairSharingStrategy::kLessThanOrEqualToFinalShare
                                        : state_.engine.fair_sharing_strategies[0];
  {
    Ordering o = make(candidates);
    for (int q = iter_next(o); q >= 0 && !fits; q = iter_next(o)) {
      if (q == cq || within_nominal) {
        int wl = o.queue[q][o.next[q]++];
        std::string why;
        if (p.explain && q != cq) why = Cat(BorrowText(p, wl), "; `", Cq(cq).name, "` stays within its nominal quota");
        RemoveWl(wl, true);
        targets.push_back({wl, q == cq ? PreemptionReason::kInClusterQueue : PreemptionReason::kInCohortReclamation,
                           std::move(why)});
        if (fits_fs()) fits = true;
        continue;
      }
      Drs pnew, told;
      const int lca = shares(q, &pnew, &told);
      if (std::isinf(pnew.Share()) && !std::isinf(told.Share())) {
        while (has_wl(o, q)) retry.push_back(o.queue[q][o.next[q]++]);
        continue;
      }
      while (has_wl(o, q)) {
        int wl = o.queue[q][o.next[q]++];
        RemoveWl(wl, false);
        Drs tnew = tree_.DominantResourceShare(almost_lca(Node(q), lca));
        AddWl(wl);
        const bool final_share = first == FairSharingStrategy::kLessThanOrEqualToFinalShare;
        bool passed = final_share ? CompareDrs(pnew, tnew) <= 0 : CompareDrs(pnew, told) < 0;
        if (passed) {
          std::string why;
          if (p.explain) {
            const std::string target_name = node_name(almost_lca(Node(q), lca));
            const std::string preemptor_part =
                Cat(node_name(almost_lca(node, lca)), "'s with `", p.wl->w->name, "` is ", ShareText(pnew));
            why = final_share ? Cat(target_name, "'s share would be ", ShareText(tnew), " without `",
                                    admitted_[wl].w->name, "` and ", preemptor_part,
                                    " (LessThanOrEqualToFinalShare: not above the target's share after the eviction)")
                              : Cat(target_name, "'s share is ", ShareText(told), " and ", preemptor_part,
                                    " (LessThanInitialShare: below the target's share before the eviction)");
          }
          RemoveWl(wl, true);
          targets.push_back({wl, PreemptionReason::kInCohortFairSharing, std::move(why)});
          if (fits_fs()) fits = true;
          break;
        }
        retry.push_back(wl);
      }
    }
  }
  if (!fits && state_.engine.fair_sharing_strategies.size() > 1) {
    Ordering o = make(retry);
    for (int q = iter_next(o); q >= 0 && !fits; q = iter_next(o)) {
      Drs pnew, told;
      shares(q, &pnew, &told);
      bool passed = CompareDrs(pnew, told) < 0;
      int wl = o.queue[q][o.next[q]++];
      if (passed) {
        std::string why;
        if (p.explain) {
          const int lca = shares(q, &pnew, &told);
          why = Cat(node_name(almost_lca(Node(q), lca)), "'s share is ", ShareText(told), " and ",
                    node_name(almost_lca(node, lca)), "'s with `", p.wl->w->name, "` is ", ShareText(pnew),
                    " (LessThanInitialShare: below the target's share before the eviction)");
        }
        RemoveWl(wl, true);
        targets.push_back({wl, PreemptionReason::kInCohortFairSharing, std::move(why)});
        if (fits_fs()) fits = true;
      }
      o.pruned_cq[q] = true;
    }
  }
  tree_.Remove(node, p.usage);
  if (!fits) {
    for (const Target& t : targets) AddWl(t.wl);
    return {};
  }
  targets = FillBack(p, std::move(targets), true);
  for (const Target& t : targets) AddWl(t.wl);
  return targets;
}

// --- the cycle ---------------------------------------------------------------

void Cycle::Nominate(Entry* e, const std::vector<std::vector<int>>* pin) {
  const Wl& p = pending_[e->wl];
  // The recorded search is forgotten when it is older than the previous
  // cycle and the queue lost an admitted workload since (Kueue's
  // lastAssignmentOutdated, with FlavorFungibilityPreserveScanProgress).
  const Workload& w = *p.w;
  const bool outdated = state_.cycle - w.flavor_scan_cycle > 1 && Cq(p.cq).generation > w.flavor_scan_generation;
  const bool resume = pin == nullptr && !w.flavor_scan.empty() && !outdated;
  e->assignment = Assign(p, pin, resume ? &w.flavor_scan : nullptr);
  e->targets.clear();
  if (e->assignment.mode == kPreempt) {
    // Kueue hands the preemptor's requests to the preemption search as the
    // workload's own total requests (Assignment.TotalRequestsFor), which do
    // not hold the `pods` count a queue covering `pods` adds; fits checks
    // later in the cycle use the whole assignment, `pods` included.
    Preemptor pre{&p, {}, {}, true};
    for (size_t s = 0; s < e->assignment.flavors.size(); ++s) {
      for (size_t r = 0; r < e->assignment.flavors[s].size(); ++r) {
        const int flavor = e->assignment.flavors[s][r];
        if (flavor < 0) continue;
        const int fr = tree_.fr(flavor, e->assignment.totals[s][r].first);
        if (e->assignment.modes[s][r] == kPreempt &&
            std::find(pre.frs.begin(), pre.frs.end(), fr) == pre.frs.end()) {
          pre.frs.push_back(fr);
        }
        if (static_cast<int>(r) != e->assignment.added_pods[s] && e->assignment.totals[s][r].second != 0) {
          AddTo(&pre.usage, fr, e->assignment.totals[s][r].second);
        }
      }
    }
    e->targets = GetTargets(pre);
  }
}

std::vector<int> Cycle::ClassicalOrder(std::vector<Entry>& entries) {
  std::vector<int> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const Entry& x = entries[a];
    const Entry& y = entries[b];
    if (x.assignment.borrowing != y.assignment.borrowing) return x.assignment.borrowing < y.assignment.borrowing;
    const Wl& wx = pending_[x.wl];
    const Wl& wy = pending_[y.wl];
    if (wx.w->priority != wy.w->priority) return wx.w->priority > wy.w->priority;
    return wx.ts < wy.ts;
  });
  return order;
}

// The fair-sharing tournament (fair_sharing_iterator.go): picks the next
// entry, or -1 when all are done.
int Cycle::PopFair(std::vector<Entry>& entries, std::vector<bool>* done) {
  int first = -1;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!(*done)[i]) {
      first = static_cast<int>(i);
      break;
    }
  }
  if (first < 0) return -1;
  const int first_node = Node(pending_[entries[first].wl].cq);
  if (tree_.parent(first_node) < 0) {
    (*done)[first] = true;
    return first;
  }
  const int root = tree_.root(first_node);
  std::vector<int> entry_of_cq(state_.cluster_queues.size(), -1);
  for (size_t i = 0; i < entries.size(); ++i) {
    if ((*done)[i]) continue;
    const int q = pending_[entries[i].wl].cq;
    const int n = Node(q);
    if (tree_.parent(n) < 0 || tree_.root(n) != root) continue;
    entry_of_cq[q] = static_cast<int>(i);
    Entry& e = entries[i];
    bool valid = !e.fs_versions.empty();
    for (const auto& [node, version] : e.fs_versions) valid = valid && tree_.version(node) == version;
    if (valid) continue;
    // Shares with the entry's usage added, at each level of its path.
    const std::vector<FrAmount>& usage = e.assignment.usage;
    e.fs_levels.clear();
    tree_.Add(n, usage);
    int child = n;
    for (int a = tree_.parent(n); a >= 0; a = tree_.parent(a)) {
      e.fs_levels.push_back({a, tree_.DominantResourceShare(child), tree_.BorrowingOn(child, usage)});
      child = a;
    }
    tree_.Remove(n, usage);
    e.fs_versions.clear();
    for (int m = n; m != root; m = tree_.parent(m)) e.fs_versions.emplace_back(m, tree_.version(m));
  }
  auto level_at = [&](int e, int cohort) -> const FsLevel& {
    for (const FsLevel& l : entries[e].fs_levels) {
      if (l.cohort == cohort) return l;
    }
    return entries[e].fs_levels.front();
  };
  auto less = [&](int a, int b, int cohort) {
    const FsLevel& la = level_at(a, cohort);
    const FsLevel& lb = level_at(b, cohort);
    if (la.borrowing_on_request != lb.borrowing_on_request) return !la.borrowing_on_request;
    int c = CompareDrs(la.drs, lb.drs);
    if (c != 0) return c < 0;
    const Wl& wa = pending_[entries[a].wl];
    const Wl& wb = pending_[entries[b].wl];
    if (wa.w->priority != wb.w->priority) return wa.w->priority > wb.w->priority;
    return wa.ts < wb.ts;
  };
  // The tournament, bottom-up over the cohorts of the tree (post-order).
  std::vector<int> order;
  std::vector<int> stack = {root};
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    order.push_back(n);
    for (int k : tree_.child_cohorts(n)) stack.push_back(k);
  }
  std::vector<int> winner(state_.cohorts.size(), -1);
  const int num_cohorts = static_cast<int>(state_.cohorts.size());
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    int cohort = *it;
    int best = -1;
    auto consider = [&](int e) {
      if (e < 0) return;
      if (best < 0 || less(e, best, cohort)) best = e;
    };
    for (int k : tree_.child_cohorts(cohort)) consider(winner[k]);
    for (int k : tree_.child_cqs(cohort)) consider(entry_of_cq[k - num_cohorts]);
    winner[cohort] = best;
  }
  int picked = winner[root];
  if (picked < 0) picked = first;
  (*done)[picked] = true;
  return picked;
}

void Cycle::Process(Entry* e, CycleResult* out) {
  const Wl& p = pending_[e->wl];
  const int cq = p.cq;
  const int node = Node(cq);
  const bool strict = Cq(cq).queueing_strategy == QueueingStrategy::kStrictFIFO;
  auto any_victim = [&](const std::vector<Target>& targets) {
    for (const Target& t : targets) {
      if (victim_[t.wl]) return true;
    }
    return false;
  };
  // fits(): usage ≤ available with every victim so far and this entry's
  // targets removed.
  // `short_of` (may be null) gets the first flavor-resource that does not
  // fit, in words.
  auto fits = [&](const Entry& entry, std::string* short_of) {
    std::vector<int> removed = victims_;
    for (const Target& t : entry.targets) {
      if (!victim_[t.wl]) removed.push_back(t.wl);
    }
    for (int i : removed) tree_.Remove(Node(admitted_[i].cq), admitted_[i].usage);
    bool ok = true;
    for (const FrAmount& u : entry.assignment.usage) {
      const int64_t available = tree_.Available(node, u.fr);
      if (available >= u.v) continue;
      if (ok && short_of != nullptr) {
        *short_of = Cat("`", Cq(cq).name, "` needs ", Q(u.fr, u.v), " ", FrText(u.fr), ", and ", Q(u.fr, available),
                        " is left");
      }
      ok = false;
    }
    for (int i : removed) tree_.Add(Node(admitted_[i].cq), admitted_[i].usage);
    return ok;
  };
  // `keep_scan`: Kueue keeps the entry's flavor search for the next cycle
  // (not after it issued preemptions or was deferred); a search that
  // stopped before the last flavor sends a BestEffortFIFO head back to the
  // active queue instead of parking it.
  auto pending = [&](PendingState state, bool parked, std::string message, bool keep_scan = true) {
    NotAdmitted n;
    n.name = p.w->name;
    n.cluster_queue = Cq(cq).name;
    n.state = state;
    bool pending_flavors = false;
    if (keep_scan) {
      n.flavor_scan = e->assignment.tried;
      for (const auto& set : n.flavor_scan) {
        for (int idx : set) pending_flavors = pending_flavors || idx >= 0;
      }
    }
    n.inadmissible = parked && !strict && !pending_flavors;
    n.message = std::move(message);
    out->not_admitted.push_back(std::move(n));
  };

  bool deferred = false;
  bool ok;
  std::string short_of;
  std::string taken;  // victims another head of this cycle already took
  if (any_victim(e->targets)) {
    for (const Target& t : e->targets) {
      if (victim_[t.wl]) CatAppend(&taken, taken.empty() ? "" : ", ", "`", admitted_[t.wl].w->name, "`");
    }
    // RecomputeAssignmentUponPreemptionTargetsOverlap: assign again against
    // the state after the other preemptions complete.
    std::vector<int> removed;
    for (int i : victims_) {
      if (!admitted_[i].hidden) {
        RemoveWl(i, true);
        removed.push_back(i);
      }
    }
    const std::vector<std::vector<int>> nominated = e->assignment.flavors;
    Nominate(e, &nominated);
    for (int i : removed) AddWl(i);
    if (e->assignment.mode == kFit) deferred = true;
    ok = fits(*e, &short_of);
  } else {
    ok = fits(*e, &short_of);
  }
  const AMode mode = deferred ? kDeferredFit : e->assignment.mode;
  if (mode == kNoFit) {
    pending(e->assignment.exceeds_max ? PendingState::kNoFitExceedsMaxQuota : PendingState::kNoFit, true,
            NoFitMessage(*e));
    return;
  }
  if (mode == kPreempt && e->targets.empty()) {
    // Hold back the quota this head would use, so that later entries cannot
    // borrow it, unless the queue can always reclaim it.
    if (Cq(cq).preemption.reclaim_within_cohort != PreemptionPolicy::kAny) {
      for (const FrAmount& u : e->assignment.usage) {
        const int64_t nominal = tree_.nominal(node, u.fr);
        const int64_t used = tree_.usage(node, u.fr);
        int64_t reserve;
        if (e->assignment.borrowing > 0) {
          const int64_t b = tree_.borrowing_limit(node, u.fr);
          reserve = b == kUnset ? u.v : std::min(u.v, SatSub(SatAdd(nominal, b), used));
        } else {
          reserve = std::max<int64_t>(0, std::min(u.v, SatSub(nominal, used)));
        }
        tree_.AddUsage(node, u.fr, reserve);
      }
    }
    pending(PendingState::kNoFitNoCandidates, true,
            Cat(NoFitMessage(*e), "; no set of workloads it may preempt makes room",
                Cq(cq).preemption.reclaim_within_cohort != PreemptionPolicy::kAny
                    ? "; its quota is held back for it in this cycle"
                    : ""));
    return;
  }
  if (mode == kDeferredFit) {
    tree_.Add(node, e->assignment.usage);
    pending(PendingState::kDeferredFit, false,
            Cat("its victims ", taken, " are already being preempted for a workload processed earlier in this cycle; "
                "without them it fits, and its quota is held until they have left"),
            false);
    return;
  }
  if (any_victim(e->targets)) {
    pending(PendingState::kSkippedNoLongerFits, false,
            "its preemption targets overlap those of a workload processed earlier in this cycle");
    return;
  }
  if (!ok) {
    pending(PendingState::kSkippedNoLongerFits, false,
            Cat("it fitted when the cycle began, but not after the workloads processed before it: ", short_of));
    return;
  }
  for (const Target& t : e->targets) {
    victim_[t.wl] = 1;
    victims_.push_back(t.wl);
  }
  tree_.Add(node, e->assignment.usage);
  if (mode == kPreempt) {
    std::string names;
    for (const Target& t : e->targets) {
      Preempted v;
      v.name = admitted_[t.wl].w->name;
      v.cluster_queue = Cq(admitted_[t.wl].cq).name;
      v.reason = t.reason;
      v.preemptor = p.w->name;
      v.message = PreemptMessage(p, t);
      CatAppend(&names, names.empty() ? "" : ", ", "`", v.name, "`");
      out->preempted.push_back(std::move(v));
    }
    pending(PendingState::kWaitingForPreemption, false,
            Cat(NoFitMessage(*e), "; preempting ", names, ", it is admitted once they have left"), false);
    return;
  }
  Admitted a;
  a.name = p.w->name;
  a.cluster_queue = Cq(cq).name;
  a.borrowing = e->assignment.borrowing > 0;
  for (size_t s = 0; s < p.w->pod_sets.size() && s < e->assignment.flavors.size(); ++s) {
    PodSetFlavors f;
    f.pod_set = p.w->pod_sets[s].name;
    for (size_t r = 0; r < e->assignment.flavors[s].size(); ++r) {
      if (e->assignment.flavors[s][r] < 0) continue;
      f.flavors.emplace_back(state_.resources[e->assignment.totals[s][r].first],
                             state_.flavors[e->assignment.flavors[s][r]]);
    }
    a.flavors.push_back(std::move(f));
  }
  a.message = AdmitMessage(*e);
  out->admitted.push_back(std::move(a));
}

std::string Cycle::NoFitMessage(const Entry& e) const {
  if (!e.assignment.reason.empty()) return e.assignment.reason;
  return Cat("`", Cq(pending_[e.wl].cq).name, "` cannot fit it");
}

std::string Cycle::AdmitMessage(const Entry& e) const {
  // Called after the entry's usage was added.
  const int node = Node(pending_[e.wl].cq);
  std::string text = Cat("admitted to `", Cq(pending_[e.wl].cq).name, "`");
  std::string borrowed;
  for (const FrAmount& u : e.assignment.usage) {
    const int64_t nominal = tree_.nominal(node, u.fr);
    const int64_t after = tree_.usage(node, u.fr);
    const int64_t before = SatSub(after, u.v);
    const int64_t extra = SatSub(std::max<int64_t>(0, SatSub(after, nominal)),
                                 std::max<int64_t>(0, SatSub(before, nominal)));
    CatAppend(&text, "; ", Q(u.fr, u.v), " ", FrText(u.fr), " (used ", Q(u.fr, after), " of nominal ",
              Q(u.fr, nominal), ")");
    if (extra > 0) CatAppend(&borrowed, borrowed.empty() ? "" : ", ", Q(u.fr, extra), " ", FrText(u.fr));
  }
  if (!borrowed.empty() && tree_.parent(node) >= 0) {
    CatAppend(&text, "; borrowing ", borrowed, " from cohort `", state_.cohorts[tree_.parent(node)].name, "`");
  }
  return text;
}

std::string Cycle::BorrowText(const Preemptor& p, int victim) const {
  const int q = admitted_[victim].cq;
  const int node = Node(q);
  for (int fr : p.frs) {
    if (!tree_.Borrowing(node, fr)) continue;
    return Cat("`", Cq(q).name, "` uses ", Q(fr, tree_.usage(node, fr)), " ", FrText(fr), " of its nominal ",
               Q(fr, tree_.nominal(node, fr)));
  }
  return "";
}

std::string Cycle::ShareText(const Drs& drs) const {
  if (drs.IsZero()) return "0";
  if (drs.weight == 0) return "infinite (weight 0)";
  // As Kueue reports it (status.fairSharing.weightedShare): rounded up.
  return Cat(static_cast<int64_t>(std::ceil(drs.Share())));
}

std::string Cycle::PreemptMessage(const Wl& preemptor, const Target& target) const {
  const Wl& victim = admitted_[target.wl];
  std::string why;
  switch (target.reason) {
    case PreemptionReason::kInClusterQueue:
      why = Cat("prioritization in cluster queue `", Cq(victim.cq).name, "` (priority ", preemptor.w->priority,
                " over ", victim.w->priority, ")");
      break;
    case PreemptionReason::kInCohortReclamation:
      why = Cat("reclamation within the cohort: `", Cq(preemptor.cq).name, "` takes back quota that `",
                Cq(victim.cq).name, "` borrows");
      break;
    case PreemptionReason::kInCohortReclaimWhileBorrowing:
      why = Cat("reclamation within the cohort while borrowing: `", Cq(victim.cq).name,
                "` borrows and its workload has a lower priority (", victim.w->priority, " under ",
                preemptor.w->priority, ")");
      break;
    case PreemptionReason::kInCohortFairSharing:
      why = target.why.empty() ? Cat("fair sharing within the cohort: `", Cq(victim.cq).name, "` has the larger share")
                               : Cat("fair sharing within the cohort: ", target.why);
      break;
  }
  std::string out = Cat("preempted by `", preemptor.w->name, "` of `", Cq(preemptor.cq).name, "` due to ", why);
  if (!target.why.empty() && target.reason != PreemptionReason::kInCohortFairSharing) {
    CatAppend(&out, " (", target.why, ")");
  }
  return out;
}

CycleResult Cycle::Run() {
  CycleResult out;
  victim_.assign(admitted_.size(), 0);
  // Heads: per queue, the first active workload in queue order.
  std::vector<std::vector<int>> queues(state_.cluster_queues.size());
  for (size_t i = 0; i < pending_.size(); ++i) queues[pending_[i].cq].push_back(static_cast<int>(i));
  std::vector<Entry> entries;
  for (size_t q = 0; q < queues.size(); ++q) {
    const bool best_effort = Cq(static_cast<int>(q)).queueing_strategy == QueueingStrategy::kBestEffortFIFO;
    std::vector<int>& list = queues[q];
    std::sort(list.begin(), list.end(), [&](int a, int b) {
      const Wl& x = pending_[a];
      const Wl& y = pending_[b];
      if (best_effort && x.w->preempting != y.w->preempting) return x.w->preempting;
      if (x.w->priority != y.w->priority) return x.w->priority > y.w->priority;
      if (x.ts != y.ts) return x.ts < y.ts;
      return x.w->uid < y.w->uid;
    });
    int head = -1;
    for (int i : list) {
      if (head < 0 && !pending_[i].w->inadmissible) {
        head = i;
        Entry e;
        e.wl = i;
        entries.push_back(std::move(e));
        continue;
      }
      Queued w;
      w.name = pending_[i].w->name;
      w.cluster_queue = Cq(static_cast<int>(q)).name;
      if (pending_[i].w->inadmissible) {
        w.message = "parked as inadmissible until capacity is freed in its cohort";
      } else {
        w.message = Cat("waits behind the head of `", w.cluster_queue, "`, `", pending_[head].w->name, "`");
      }
      out.queued.push_back(std::move(w));
    }
  }
  for (Entry& e : entries) Nominate(&e);
  if (state_.engine.fair_sharing) {
    std::vector<bool> done(entries.size(), false);
    for (int i = PopFair(entries, &done); i >= 0; i = PopFair(entries, &done)) Process(&entries[i], &out);
  } else {
    for (int i : ClassicalOrder(entries)) Process(&entries[i], &out);
  }
  return out;
}

absl::Status Validate(const State& s, const CycleOptions& options) {
  const int flavors = static_cast<int>(s.flavors.size());
  const int resources = static_cast<int>(s.resources.size());
  const int cohorts = static_cast<int>(s.cohorts.size());
  const int queues = static_cast<int>(s.cluster_queues.size());
  auto groups_ok = [&](const std::vector<ResourceGroup>& groups) {
    for (const ResourceGroup& g : groups) {
      for (int r : g.covered_resources) {
        if (r < 0 || r >= resources) return false;
      }
      for (const FlavorQuotas& f : g.flavors) {
        if (f.flavor < 0 || f.flavor >= flavors) return false;
        for (const ResourceQuota& q : f.resources) {
          if (q.resource < 0 || q.resource >= resources || q.nominal < 0) return false;
          if (q.borrowing_limit.has_value() && *q.borrowing_limit < 0) return false;
          if (q.lending_limit.has_value() && (*q.lending_limit < 0 || *q.lending_limit > q.nominal)) return false;
        }
      }
    }
    return true;
  };
  for (int c = 0; c < cohorts; ++c) {
    const Cohort& cohort = s.cohorts[c];
    if (cohort.parent < -1 || cohort.parent >= cohorts || !groups_ok(cohort.resource_groups)) {
      return absl::InvalidArgumentError(Cat("cohort `", cohort.name, "` refers to an unknown cohort, flavor or resource"));
    }
  }
  if (int c = internal::schedule::CohortInCycle(s.cohorts); c >= 0) {
    return absl::InvalidArgumentError(Cat("cohort `", s.cohorts[c].name, "` is in a cycle of parents"));
  }
  if (std::string error = internal::schedule::QuotaCellsError(s, options.max_quota_cells); !error.empty()) {
    return absl::InvalidArgumentError(error);
  }
  for (const ClusterQueue& cq : s.cluster_queues) {
    if (cq.cohort < -1 || cq.cohort >= cohorts || !groups_ok(cq.resource_groups)) {
      return absl::InvalidArgumentError(Cat("cluster queue `", cq.name, "` refers to an unknown cohort, flavor or resource, or has a bad quota"));
    }
  }
  for (const auto* list : {&s.admitted, &s.pending}) {
    for (const Workload& w : *list) {
      bool ok = w.cluster_queue >= 0 && w.cluster_queue < queues;
      for (const PodSet& ps : w.pod_sets) {
        ok = ok && ps.count >= 0;
        for (const Request& r : ps.requests) {
          ok = ok && r.resource >= 0 && r.resource < resources && r.per_pod >= 0 && r.flavor >= -1 && r.flavor < flavors;
        }
      }
      if (!ok) return absl::InvalidArgumentError(Cat("workload `", w.name, "` refers to an unknown queue, flavor or resource, or has a negative quantity"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string_view ReasonName(PreemptionReason reason) {
  switch (reason) {
    case PreemptionReason::kInClusterQueue: return "InClusterQueue";
    case PreemptionReason::kInCohortReclamation: return "InCohortReclamation";
    case PreemptionReason::kInCohortReclaimWhileBorrowing: return "InCohortReclaimWhileBorrowing";
    case PreemptionReason::kInCohortFairSharing: return "InCohortFairSharing";
  }
  return "Unknown";
}

std::string_view StateName(PendingState state) {
  switch (state) {
    case PendingState::kWaitingForPreemption: return "waiting_for_preemption";
    case PendingState::kNoFit: return "no_fit";
    case PendingState::kNoFitExceedsMaxQuota: return "no_fit_exceeds_max_quota";
    case PendingState::kNoFitNoCandidates: return "no_fit_no_candidates";
    case PendingState::kSkippedNoLongerFits: return "skipped_no_longer_fits";
    case PendingState::kDeferredFit: return "deferred_fit";
  }
  return "unknown";
}

absl::StatusOr<CycleResult> RunCycle(const State& state, const CycleOptions& options) {
  absl::Status valid = Validate(state, options);
  if (!valid.ok()) return valid;
  Cycle cycle(state, options);
  return cycle.Run();
}

}  // namespace charter::schedule
