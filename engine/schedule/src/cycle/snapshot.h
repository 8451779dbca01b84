// What one scheduling cycle works on (Kueue's cache snapshot): the quota tree
// of tree.h with every admitted workload's usage added, the admitted and the
// pending workloads as the cycle sees them, and the words the cycle's
// messages use for quantities. Flavor assignment, preemption and the cycle
// driver all change it; a search that takes workloads out to try a
// preemption puts them back before it returns.
#ifndef CHARTER_CYCLE_SNAPSHOT_H_
#define CHARTER_CYCLE_SNAPSHOT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "charter/schedule.h"
#include "cycle/tree.h"

namespace charter::internal::schedule {

// A workload as the cycle sees it.
struct WorkloadInfo {
  const ::charter::schedule::Workload* workload;
  int cluster_queue;            // index into State::cluster_queues
  double queue_time;            // queue-order timestamp; unset = -inf
  double reserved_at;           // admitted: quota reservation time
  std::vector<FlavorResourceAmount> usage;  // admitted: what it holds
  bool hidden = false;          // removed from its queue's workload list (simulation)
};

// Adds `v` to the amount of flavor-resource `fr` in `usage`.
void AddTo(std::vector<FlavorResourceAmount>* usage, int fr, int64_t v);
// The amount of flavor-resource `fr` in `usage` (0 when absent).
int64_t AmountOf(const std::vector<FlavorResourceAmount>& usage, int fr);

class Snapshot {
 public:
  // INVARIANT: `state` passed RunCycle's Validate (see Tree) and outlives
  // the snapshot.
  explicit Snapshot(const ::charter::schedule::State& state);

  const ::charter::schedule::State& state() const { return state_; }
  Tree& tree() { return tree_; }
  const Tree& tree() const { return tree_; }
  int num_cohorts() const { return static_cast<int>(state_.cohorts.size()); }
  int num_cluster_queues() const { return static_cast<int>(state_.cluster_queues.size()); }
  const ::charter::schedule::ClusterQueue& cluster_queue(int index) const { return state_.cluster_queues[index]; }
  // The tree node of a cluster queue.
  int node(int cluster_queue) const { return tree_.queue_node(cluster_queue); }
  // The index of the `pods` resource, or -1 when the state has none.
  int pods_resource() const { return pods_resource_; }
  // The resource group of cluster queue `queue` that covers `resource`, or null.
  const ::charter::schedule::ResourceGroup* ResourceGroupOf(int queue, int resource) const {
    for (const ::charter::schedule::ResourceGroup& g : cluster_queue(queue).resource_groups) {
      for (int r : g.covered_resources) {
        if (r == resource) return &g;
      }
    }
    return nullptr;
  }

  const std::vector<WorkloadInfo>& admitted() const { return admitted_; }
  const std::vector<WorkloadInfo>& pending() const { return pending_; }
  // Indices into admitted() of the workloads admitted to `cluster_queue`.
  const std::vector<int>& admitted_to(int cluster_queue) const { return admitted_to_[cluster_queue]; }

  // Takes admitted workload `i`'s usage out of the tree; `hide` also takes
  // it out of its queue's workload list (it is then no preemption candidate).
  void RemoveAdmitted(int i, bool hide) {
    tree_.Remove(node(admitted_[i].cluster_queue), admitted_[i].usage);
    if (hide) admitted_[i].hidden = true;
  }
  // Puts admitted workload `i` back, usage and list entry.
  void RestoreAdmitted(int i) {
    tree_.Add(node(admitted_[i].cluster_queue), admitted_[i].usage);
    admitted_[i].hidden = false;
  }

  // For messages: an amount of flavor-resource `fr` ("500m", "16Gi") and the
  // flavor-resource itself ("cpu in flavor default").
  std::string Quantity(int fr, int64_t v) const;
  std::string FlavorResourceText(int fr) const;

 private:
  const ::charter::schedule::State& state_;
  Tree tree_;
  int pods_resource_ = -1;
  std::vector<WorkloadInfo> admitted_;
  std::vector<WorkloadInfo> pending_;
  std::vector<std::vector<int>> admitted_to_;
};

}  // namespace charter::internal::schedule

#endif  // CHARTER_CYCLE_SNAPSHOT_H_
