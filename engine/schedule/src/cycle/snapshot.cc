// The cycle's snapshot: the quota tree with the admitted workloads' usage.
#include "cycle/snapshot.h"

#include <limits>
#include <utility>

#include "common/strings.h"
#include "cycle/quantity.h"

namespace charter::internal::schedule {
namespace {

using ::charter::schedule::PodSet;
using ::charter::schedule::Request;
using ::charter::schedule::State;
using ::charter::schedule::Workload;

double QueueTime(const Workload& w) {
  return w.created_at.has_value() ? *w.created_at : -std::numeric_limits<double>::infinity();
}

}  // namespace

void AddTo(std::vector<FlavorResourceAmount>* usage, int fr, int64_t v) {
  for (FlavorResourceAmount& u : *usage) {
    if (u.fr == fr) {
      u.v = SatAdd(u.v, v);
      return;
    }
  }
  usage->push_back({fr, v});
}

int64_t AmountOf(const std::vector<FlavorResourceAmount>& usage, int fr) {
  for (const FlavorResourceAmount& u : usage) {
    if (u.fr == fr) return u.v;
  }
  return 0;
}

Snapshot::Snapshot(const State& state) : state_(state), tree_(state) {
  for (size_t r = 0; r < state.resources.size(); ++r) {
    if (state.resources[r] == "pods") pods_resource_ = static_cast<int>(r);
  }
  admitted_to_.resize(state.cluster_queues.size());
  for (const Workload& w : state.admitted) {
    WorkloadInfo info{&w, w.cluster_queue, QueueTime(w), w.quota_reserved_at.value_or(state.now), {}, false};
    for (const PodSet& ps : w.pod_sets) {
      for (const Request& r : ps.requests) {
        if (r.flavor < 0) continue;
        AddTo(&info.usage, tree_.fr(r.flavor, r.resource), SatMul(ps.count, r.per_pod));
      }
    }
    tree_.Add(tree_.queue_node(w.cluster_queue), info.usage);
    admitted_to_[w.cluster_queue].push_back(static_cast<int>(admitted_.size()));
    admitted_.push_back(std::move(info));
  }
  for (const Workload& w : state.pending) {
    pending_.push_back(WorkloadInfo{&w, w.cluster_queue, QueueTime(w), 0, {}, false});
  }
}

std::string Snapshot::Quantity(int fr, int64_t v) const {
  const int resource = tree_.resource_of(fr);
  // Kueue counts cpu in milli-units, every other resource in whole units.
  return FormatQuantity(v, state_.resources[resource] == "cpu");
}

std::string Snapshot::FlavorResourceText(int fr) const {
  return Cat(state_.resources[tree_.resource_of(fr)], " in flavor ", state_.flavors[tree_.flavor_of(fr)]);
}

}  // namespace charter::internal::schedule
