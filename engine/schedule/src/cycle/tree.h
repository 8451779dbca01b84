// The quota tree of one scheduling cycle: every cohort and cluster queue is a
// node with, per flavor-resource (FR), its own quota, the quota of its
// subtree and its usage, kept as dense integer arrays. The formulas are
// Kueue's (pkg/cache/scheduler/resource_node.go), restated in
// docs/scheduling.md:
//
//   localQuota(n)     = lendingLimit set ? max(0, subtree(n) - lendingLimit) : 0
//   LocalAvailable(n) = max(0, localQuota(n) - usage(n))
//   subtree(cohort)   = nominal + Σ children (subtree(child) - localQuota(child))
//   usage(cohort)     = Σ children max(0, usage(child) - localQuota(child))
//   available(root)   = subtree - usage
//   available(n)      = LocalAvailable(n) + min(available(parent),
//                         borrowingLimit set ? stored - usedInParent + borrowingLimit : ∞)
#ifndef CHARTER_CYCLE_TREE_H_
#define CHARTER_CYCLE_TREE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "charter/schedule.h"

namespace charter::internal::schedule {

inline constexpr int64_t kUnset = INT64_MIN;  // a borrowing or lending limit that is not set

// An amount of one flavor-resource (a resource of one flavor: fr, as
// Tree::fr numbers them).
struct FlavorResourceAmount {
  int fr;
  int64_t v;
};

// Dominant resource share of a node (Kueue's DRS, fair_sharing.go).
struct Drs {
  double weight = 1.0;
  double ratio = 0;  // borrowed × 1000 / lendable, the largest over resources
  bool borrowing = false;
  bool IsZero() const { return ratio == 0; }
  bool ZeroWeightBorrows() const { return weight == 0 && !IsZero(); }
  double Share() const;
  static Drs Negative() {
    Drs d;
    d.ratio = -1;
    return d;
  }
};
int CompareDrs(const Drs& a, const Drs& b);

// The number of quota cells a Tree of `state` holds: (cohorts + cluster
// queues) × max(1, flavors) × max(1, resources), computed without overflow
// (saturating at UINT64_MAX).
uint64_t QuotaCells(const ::charter::schedule::State& state);

// Empty when QuotaCells(state) ≤ max_cells; otherwise the reason, naming the
// counts.
std::string QuotaCellsError(const ::charter::schedule::State& state, uint64_t max_cells);

// A cohort that is in a cycle of parents, or -1 when the parent links form a
// forest. Linear in the number of cohorts: each is walked once.
int CohortInCycle(const std::vector<::charter::schedule::Cohort>& cohorts);

class Tree {
 public:
  // Nodes: cohorts are 0..C-1, cluster queue q is C+q.
  // INVARIANT: the state passed RunCycle's Validate, so the parent links form
  // a forest and QuotaCells(state) ≤ CycleOptions::max_quota_cells, which
  // keeps every node × FR index within int.
  explicit Tree(const ::charter::schedule::State& state);

  int num_resources() const { return num_resources_; }
  int num_frs() const { return num_frs_; }
  int fr(int flavor, int resource) const { return flavor * num_resources_ + resource; }
  int flavor_of(int fr) const { return fr / num_resources_; }
  int resource_of(int fr) const { return fr % num_resources_; }
  // The node of cluster queue `queue` (cohorts come first).
  int queue_node(int queue) const { return num_cohorts_ + queue; }
  bool is_cluster_queue(int node) const { return node >= num_cohorts_; }
  int parent(int node) const { return parent_[node]; }
  int root(int node) const { return root_[node]; }
  int height(int cohort) const { return height_[cohort]; }
  const std::vector<int>& child_cohorts(int node) const { return child_cohorts_[node]; }
  const std::vector<int>& child_cqs(int node) const { return child_cqs_[node]; }

  int64_t nominal(int node, int fr) const { return nominal_[At(node, fr)]; }
  int64_t borrowing_limit(int node, int fr) const { return blimit_[At(node, fr)]; }
  int64_t lending_limit(int node, int fr) const { return llimit_[At(node, fr)]; }
  int64_t subtree(int node, int fr) const { return subtree_[At(node, fr)]; }
  int64_t usage(int node, int fr) const { return usage_[At(node, fr)]; }
  bool has(int node, int fr) const { return has_[At(node, fr)] != 0; }

  int64_t LocalQuota(int node, int fr) const;
  int64_t LocalAvailable(int node, int fr) const;
  int64_t AvailableRaw(int node, int fr) const;  // may be negative
  int64_t Available(int node, int fr) const;     // max(0, AvailableRaw)
  // Static: quotas do not change during a cycle, so this is computed once.
  int64_t PotentialAvailable(int node, int fr) const { return potential_[At(node, fr)]; }
  bool BorrowingWith(int node, int fr, int64_t v) const;
  bool Borrowing(int node, int fr) const { return BorrowingWith(node, fr, 0); }
  bool WithinNominal(int node, const std::vector<int>& frs) const;
  // Kueue's FindHeightOfLowestSubtreeThatFits: {borrowing level, may
  // reclaim in the hierarchy}.
  std::pair<int, bool> LowestSubtreeThatFits(int queue_node, int fr, int64_t v) const;

  void AddUsage(int node, int fr, int64_t v);
  void RemoveUsage(int node, int fr, int64_t v);
  void Add(int queue_node, const std::vector<FlavorResourceAmount>& usage) {
    for (const FlavorResourceAmount& u : usage) AddUsage(queue_node, u.fr, u.v);
  }
  void Remove(int queue_node, const std::vector<FlavorResourceAmount>& usage) {
    for (const FlavorResourceAmount& u : usage) RemoveUsage(queue_node, u.fr, u.v);
  }

  // Computed from the node's usage, so cached until that usage changes.
  Drs DominantResourceShare(int node) const;
  // Kueue's DRS.IsBorrowingOn: the node's usage is above its subtree quota
  // on a flavor-resource that `requested` asks a positive amount of.
  bool BorrowingOn(int node, const std::vector<FlavorResourceAmount>& requested) const;
  // Changes whenever the node's usage changes (AddUsage, RemoveUsage).
  uint64_t version(int node) const { return version_[node]; }

 private:
  size_t At(int node, int fr) const { return static_cast<size_t>(node) * num_frs_ + fr; }
  void Accumulate(int node);

  int num_cohorts_ = 0;
  int num_resources_ = 1;
  int num_frs_ = 1;
  std::vector<int> parent_, root_, height_;
  std::vector<std::vector<int>> child_cohorts_, child_cqs_;
  std::vector<double> weight_;
  std::vector<int64_t> nominal_, blimit_, llimit_, subtree_, usage_, potential_;
  std::vector<uint8_t> has_;
  std::vector<int64_t> lendable_;  // node × resource: Σ potentialAvailable(parent) over the root's FRs
  std::vector<uint64_t> version_;  // per node
  mutable std::vector<uint64_t> drs_version_;  // per node: the version drs_ was computed at, or ~0
  mutable std::vector<Drs> drs_;
};

}  // namespace charter::internal::schedule

#endif  // CHARTER_CYCLE_TREE_H_
