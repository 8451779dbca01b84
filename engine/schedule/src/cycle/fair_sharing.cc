// The fair-sharing tournament over a cycle's entries.
#include "cycle/fair_sharing.h"

#include <vector>

#include "cycle/tree.h"

namespace charter::internal::schedule {

int NextByFairSharing(Snapshot& snapshot, std::vector<Entry>& entries, std::vector<bool>* done) {
  Tree& tree = snapshot.tree();
  const std::vector<WorkloadInfo>& pending = snapshot.pending();
  int first = -1;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!(*done)[i]) {
      first = static_cast<int>(i);
      break;
    }
  }
  if (first < 0) return -1;
  const int first_node = snapshot.node(pending[entries[first].pending].cluster_queue);
  if (tree.parent(first_node) < 0) {
    (*done)[first] = true;
    return first;
  }
  const int root = tree.root(first_node);
  const int num_cohorts = snapshot.num_cohorts();
  std::vector<int> entry_of_queue(snapshot.num_cluster_queues(), -1);
  for (size_t i = 0; i < entries.size(); ++i) {
    if ((*done)[i]) continue;
    const int q = pending[entries[i].pending].cluster_queue;
    const int n = snapshot.node(q);
    if (tree.parent(n) < 0 || tree.root(n) != root) continue;
    entry_of_queue[q] = static_cast<int>(i);
    Entry& e = entries[i];
    bool valid = !e.fair_sharing_versions.empty();
    for (const auto& [node, version] : e.fair_sharing_versions) valid = valid && tree.version(node) == version;
    if (valid) continue;
    // Shares with the entry's usage added, at each level of its path.
    const std::vector<FlavorResourceAmount>& usage = e.assignment.usage;
    e.fair_sharing_levels.clear();
    tree.Add(n, usage);
    int child = n;
    for (int a = tree.parent(n); a >= 0; a = tree.parent(a)) {
      e.fair_sharing_levels.push_back({a, tree.DominantResourceShare(child), tree.BorrowingOn(child, usage)});
      child = a;
    }
    tree.Remove(n, usage);
    e.fair_sharing_versions.clear();
    for (int m = n; m != root; m = tree.parent(m)) e.fair_sharing_versions.emplace_back(m, tree.version(m));
  }
  auto level_at = [&](int e, int cohort) -> const FairSharingLevel& {
    for (const FairSharingLevel& l : entries[e].fair_sharing_levels) {
      if (l.cohort == cohort) return l;
    }
    return entries[e].fair_sharing_levels.front();
  };
  auto less = [&](int a, int b, int cohort) {
    const FairSharingLevel& la = level_at(a, cohort);
    const FairSharingLevel& lb = level_at(b, cohort);
    if (la.borrowing_on_request != lb.borrowing_on_request) return !la.borrowing_on_request;
    int c = CompareDrs(la.drs, lb.drs);
    if (c != 0) return c < 0;
    const WorkloadInfo& wa = pending[entries[a].pending];
    const WorkloadInfo& wb = pending[entries[b].pending];
    if (wa.workload->priority != wb.workload->priority) return wa.workload->priority > wb.workload->priority;
    return wa.queue_time < wb.queue_time;
  };
  // The tournament, bottom-up over the cohorts of the tree (post-order).
  std::vector<int> order;
  std::vector<int> stack = {root};
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    order.push_back(n);
    for (int k : tree.child_cohorts(n)) stack.push_back(k);
  }
  std::vector<int> winner(num_cohorts, -1);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    int cohort = *it;
    int best = -1;
    auto consider = [&](int e) {
      if (e < 0) return;
      if (best < 0 || less(e, best, cohort)) best = e;
    };
    for (int k : tree.child_cohorts(cohort)) consider(winner[k]);
    for (int k : tree.child_cqs(cohort)) consider(entry_of_queue[k - num_cohorts]);
    winner[cohort] = best;
  }
  int picked = winner[root];
  if (picked < 0) picked = first;
  (*done)[picked] = true;
  return picked;
}

}  // namespace charter::internal::schedule
