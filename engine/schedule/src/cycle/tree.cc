// The quota tree: Kueue's resource-node arithmetic over dense arrays, walked
// with loops (cohort trees can be deep; no recursion on user-shaped data).
#include "cycle/tree.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/strings.h"
#include "cycle/quantity.h"

namespace charter::internal::schedule {

using ::charter::schedule::ResourceGroup;
using ::charter::schedule::State;
using ::charter::internal::Cat;

double Drs::Share() const {
  if (IsZero()) return 0;
  if (weight == 0) return std::numeric_limits<double>::infinity();
  return ratio / weight;
}

bool Tree::BorrowingOn(int node, const std::vector<FlavorResourceAmount>& requested) const {
  for (const FlavorResourceAmount& r : requested) {
    if (r.v > 0 && has(node, r.fr) && usage(node, r.fr) > subtree(node, r.fr)) return true;
  }
  return false;
}

int CompareDrs(const Drs& a, const Drs& b) {
  auto cmp = [](double x, double y) { return x < y ? -1 : (x > y ? 1 : 0); };
  if (a.ZeroWeightBorrows() && b.ZeroWeightBorrows()) return cmp(a.ratio, b.ratio);
  if (a.ZeroWeightBorrows()) return 1;
  if (b.ZeroWeightBorrows()) return -1;
  return cmp(a.Share(), b.Share());
}

uint64_t QuotaCells(const State& state) {
  const uint64_t nodes = uint64_t{state.cohorts.size()} + state.cluster_queues.size();
  const uint64_t flavors = std::max<uint64_t>(1, state.flavors.size());
  const uint64_t resources = std::max<uint64_t>(1, state.resources.size());
  uint64_t cells = 0;
  if (__builtin_mul_overflow(nodes, flavors, &cells) || __builtin_mul_overflow(cells, resources, &cells)) {
    return UINT64_MAX;
  }
  return cells;
}

std::string QuotaCellsError(const State& state, uint64_t max_cells) {
  const uint64_t cells = QuotaCells(state);
  if (cells <= max_cells) return {};
  return Cat("the quota tree would need ", state.cohorts.size(), " cohorts + ", state.cluster_queues.size(),
             " cluster queues × ", state.flavors.size(), " flavors × ", state.resources.size(), " resources = ",
             cells == UINT64_MAX ? std::string("more than 2^64") : Cat(cells), " quota cells, above the limit of ",
             max_cells, " (every requested resource name is a resource)");
}

int CohortInCycle(const std::vector<::charter::schedule::Cohort>& cohorts) {
  // 0: not seen; 1: on the current walk; 2: known to reach a root.
  std::vector<uint8_t> mark(cohorts.size(), 0);
  std::vector<int> walk;
  for (size_t i = 0; i < cohorts.size(); ++i) {
    walk.clear();
    int at = static_cast<int>(i);
    while (at >= 0 && mark[at] == 0) {
      mark[at] = 1;
      walk.push_back(at);
      at = cohorts[at].parent;
    }
    if (at >= 0 && mark[at] == 1) return at;
    for (int n : walk) mark[n] = 2;
  }
  return -1;
}

Tree::Tree(const State& state) {
  num_cohorts_ = static_cast<int>(state.cohorts.size());
  num_resources_ = std::max<int>(1, static_cast<int>(state.resources.size()));
  num_frs_ = std::max<int>(1, static_cast<int>(state.flavors.size())) * num_resources_;
  const int nodes = num_cohorts_ + static_cast<int>(state.cluster_queues.size());
  const size_t cells = static_cast<size_t>(nodes) * static_cast<size_t>(num_frs_);
  parent_.assign(nodes, -1);
  root_.assign(nodes, -1);
  height_.assign(nodes, 0);
  child_cohorts_.resize(nodes);
  child_cqs_.resize(nodes);
  weight_.assign(nodes, 1.0);
  nominal_.assign(cells, 0);
  blimit_.assign(cells, kUnset);
  llimit_.assign(cells, kUnset);
  subtree_.assign(cells, 0);
  usage_.assign(cells, 0);
  has_.assign(cells, 0);
  version_.assign(nodes, 0);
  drs_version_.assign(nodes, ~uint64_t{0});
  drs_.assign(nodes, Drs());
  auto quotas = [&](int node, const std::vector<ResourceGroup>& groups) {
    for (const ResourceGroup& g : groups) {
      for (const auto& f : g.flavors) {
        for (const auto& q : f.resources) {
          size_t at = At(node, fr(f.flavor, q.resource));
          nominal_[at] = q.nominal;
          blimit_[at] = q.borrowing_limit.has_value() ? *q.borrowing_limit : kUnset;
          llimit_[at] = q.lending_limit.has_value() ? *q.lending_limit : kUnset;
          has_[at] = 1;
        }
      }
    }
  };
  for (int c = 0; c < num_cohorts_; ++c) {
    const auto& cohort = state.cohorts[c];
    parent_[c] = cohort.parent;
    weight_[c] = cohort.fair_weight;
    if (cohort.parent >= 0) child_cohorts_[cohort.parent].push_back(c);
    quotas(c, cohort.resource_groups);
  }
  for (size_t q = 0; q < state.cluster_queues.size(); ++q) {
    const auto& cq = state.cluster_queues[q];
    const int node = queue_node(static_cast<int>(q));
    parent_[node] = cq.cohort;
    weight_[node] = cq.fair_weight;
    if (cq.cohort >= 0) child_cqs_[cq.cohort].push_back(node);
    quotas(node, cq.resource_groups);
  }
  // Subtree quotas, children before parents: an explicit post-order walk
  // from every root.
  for (int n = 0; n < nodes; ++n) {
    for (int f = 0; f < num_frs_; ++f) subtree_[At(n, f)] = nominal_[At(n, f)];
  }
  // `order` lists every cohort, parents before children.
  std::vector<int> order;
  for (int c = 0; c < num_cohorts_; ++c) {
    if (parent_[c] >= 0) continue;
    std::vector<int> stack = {c};
    while (!stack.empty()) {
      int n = stack.back();
      stack.pop_back();
      order.push_back(n);
      for (int k : child_cohorts_[n]) stack.push_back(k);
    }
  }
  for (int n : order) root_[n] = parent_[n] < 0 ? n : root_[parent_[n]];
  for (int n = num_cohorts_; n < nodes; ++n) root_[n] = parent_[n] < 0 ? n : root_[parent_[n]];
  for (auto it = order.rbegin(); it != order.rend(); ++it) Accumulate(*it);
  // Heights: a cohort with children has height ≥ 1; one more than its
  // highest child cohort.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    int n = *it;
    int h = std::min<int>(1, static_cast<int>(child_cohorts_[n].size() + child_cqs_[n].size()));
    for (int k : child_cohorts_[n]) h = std::max(h, height_[k] + 1);
    height_[n] = h;
  }
  // Potential availability, parents before children (static: it depends on
  // quota only):
  //   potential(root) = subtree(root)
  //   potential(n)    = min(localQuota(n) + potential(parent),
  //                         borrowingLimit set ? subtree(n) + borrowingLimit : ∞)
  potential_.assign(cells, 0);
  auto potential = [&](int n) {
    const int p = parent_[n];
    for (int f = 0; f < num_frs_; ++f) {
      if (p < 0) {
        potential_[At(n, f)] = subtree(n, f);
        continue;
      }
      int64_t avail = SatAdd(LocalQuota(n, f), potential_[At(p, f)]);
      int64_t b = borrowing_limit(n, f);
      if (b != kUnset) avail = std::min(SatAdd(subtree(n, f), b), avail);
      potential_[At(n, f)] = avail;
    }
  };
  for (int n : order) potential(n);
  for (int n = num_cohorts_; n < nodes; ++n) potential(n);
  // Lendable capacity per node and resource (static: it depends on quota
  // only).
  lendable_.assign(static_cast<size_t>(nodes) * num_resources_, 0);
  for (int n = 0; n < nodes; ++n) {
    int p = parent_[n];
    if (p < 0) continue;
    int r = root(n);
    for (int f = 0; f < num_frs_; ++f) {
      if (!has(r, f)) continue;
      int64_t& cell = lendable_[static_cast<size_t>(n) * num_resources_ + resource_of(f)];
      cell = SatAdd(cell, PotentialAvailable(p, f));
    }
  }
}

void Tree::Accumulate(int node) {
  auto from_child = [&](int child) {
    for (int f = 0; f < num_frs_; ++f) {
      if (!has(child, f)) continue;
      size_t at = At(node, f);
      subtree_[at] = SatAdd(subtree_[at], SatSub(subtree(child, f), LocalQuota(child, f)));
      has_[at] = 1;
    }
  };
  for (int k : child_cohorts_[node]) from_child(k);
  for (int k : child_cqs_[node]) from_child(k);
}

int64_t Tree::LocalQuota(int node, int fr) const {
  int64_t l = lending_limit(node, fr);
  if (l == kUnset) return 0;
  return std::max<int64_t>(0, SatSub(subtree(node, fr), l));
}

int64_t Tree::LocalAvailable(int node, int fr) const {
  return std::max<int64_t>(0, SatSub(LocalQuota(node, fr), usage(node, fr)));
}

int64_t Tree::AvailableRaw(int node, int fr) const {
  // Walk to the root, then come back down applying each node's limit.
  int path[256];
  std::vector<int> long_path;
  int depth = 0;
  for (int n = node; n >= 0; n = parent_[n]) {
    if (depth < 256) {
      path[depth] = n;
    } else {
      if (long_path.empty()) long_path.assign(path, path + 256);
      long_path.push_back(n);
    }
    ++depth;
  }
  auto at = [&](int i) { return long_path.empty() ? path[i] : long_path[i]; };
  int r = at(depth - 1);
  int64_t avail = SatSub(subtree(r, fr), usage(r, fr));
  for (int i = depth - 2; i >= 0; --i) {
    int n = at(i);
    int64_t b = borrowing_limit(n, fr);
    if (b != kUnset) {
      int64_t lq = LocalQuota(n, fr);
      int64_t stored = SatSub(subtree(n, fr), lq);
      int64_t used = std::max<int64_t>(0, SatSub(usage(n, fr), lq));
      avail = std::min(SatAdd(SatSub(stored, used), b), avail);
    }
    avail = SatAdd(LocalAvailable(n, fr), avail);
  }
  return avail;
}

int64_t Tree::Available(int node, int fr) const { return std::max<int64_t>(0, AvailableRaw(node, fr)); }

bool Tree::BorrowingWith(int node, int fr, int64_t v) const {
  // For a cluster queue the subtree quota is its nominal quota.
  return subtree(node, fr) < SatAdd(usage(node, fr), v);
}

bool Tree::WithinNominal(int node, const std::vector<int>& frs) const {
  for (int f : frs) {
    if (subtree(node, f) < usage(node, f)) return false;
  }
  return true;
}

std::pair<int, bool> Tree::LowestSubtreeThatFits(int cq, int fr, int64_t v) const {
  const bool has_parent = parent_[cq] >= 0;
  if (!BorrowingWith(cq, fr, v) || !has_parent) return {0, has_parent};
  int64_t remaining = SatSub(v, LocalAvailable(cq, fr));
  for (int n = parent_[cq]; n >= 0; n = parent_[n]) {
    if (!BorrowingWith(n, fr, remaining)) return {height_[n], parent_[n] >= 0};
    remaining = SatSub(remaining, LocalAvailable(n, fr));
  }
  return {height_[root(cq)], false};
}

void Tree::AddUsage(int node, int fr, int64_t v) {
  for (int n = node; n >= 0;) {
    int64_t local = LocalAvailable(n, fr);
    size_t at = At(n, fr);
    usage_[at] = SatAdd(usage_[at], v);
    ++version_[n];
    if (parent_[n] < 0 || v <= local) return;
    v = SatSub(v, local);
    n = parent_[n];
  }
}

void Tree::RemoveUsage(int node, int fr, int64_t v) {
  for (int n = node; n >= 0;) {
    size_t at = At(n, fr);
    int64_t stored = SatSub(usage_[at], LocalQuota(n, fr));
    usage_[at] = SatSub(usage_[at], v);
    ++version_[n];
    if (stored <= 0 || parent_[n] < 0) return;
    v = std::min(v, stored);
    n = parent_[n];
  }
}

Drs Tree::DominantResourceShare(int node) const {
  if (drs_version_[node] == version_[node]) return drs_[node];
  Drs drs;
  drs.weight = weight_[node];
  if (parent_[node] >= 0) {
    // Per resource, the amount borrowed summed over its flavors, without a
    // scratch array: flavor-resource f is flavor f / R, resource f % R.
    const int flavors = num_frs_ / num_resources_;
    for (int r = 0; r < num_resources_; ++r) {
      int64_t borrowed = 0;
      for (int fl = 0; fl < flavors; ++fl) {
        const int f = fl * num_resources_ + r;
        if (!has(node, f)) continue;
        const int64_t b = SatSub(usage(node, f), subtree(node, f));
        if (b > 0) borrowed = SatAdd(borrowed, b);
      }
      if (borrowed <= 0) continue;
      drs.borrowing = true;
      const int64_t lendable = lendable_[static_cast<size_t>(node) * num_resources_ + r];
      if (lendable <= 0) continue;
      const double ratio = static_cast<double>(borrowed) * 1000.0 / static_cast<double>(lendable);
      drs.ratio = std::max(drs.ratio, ratio);
    }
  }
  drs_version_[node] = version_[node];
  drs_[node] = drs;
  return drs;
}

}  // namespace charter::internal::schedule
