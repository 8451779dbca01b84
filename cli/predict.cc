#include "predict.h"

#include <algorithm>
#include <limits>
#include <set>
#include <utility>

#include "svg.h"
#include "util.h"

namespace charter::cli {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The root of a queue's cohort tree; a queue without a cohort is its own
// (a negative number, apart from every cohort's index).
int RootOf(const schedule::State& s, int queue) {
  int c = s.cluster_queues[queue].cohort;
  if (c < 0) return -1 - queue;
  for (size_t steps = 0; s.cohorts[c].parent >= 0 && steps < s.cohorts.size(); ++steps) c = s.cohorts[c].parent;
  return c;
}

}  // namespace

absl::StatusOr<std::map<std::string, Prediction>> PredictAdmissions(const schedule::State& start,
                                                                     const std::vector<kueue::WorkloadHistory>& history,
                                                                     double now, const schedule::CycleOptions& options,
                                                                     int64_t max_cycles) {
  std::map<std::string, Prediction> out;
  // Each queue's run times, from the workloads that finished.
  std::vector<std::vector<double>> runs(start.cluster_queues.size());
  std::vector<double> all;
  for (const kueue::WorkloadHistory& h : history) {
    const std::optional<double> from = h.quota_reserved ? h.quota_reserved : h.admitted;
    if (!h.holds_quota || !from || !h.finished || *h.finished < *from) continue;
    runs[h.cluster_queue].push_back(*h.finished - *from);
    all.push_back(*h.finished - *from);
  }
  if (all.empty()) {
    for (const schedule::Workload& w : start.pending) {
      out[w.name].note = "no finished workload in the history to learn run times from";
    }
    return out;
  }
  const double everywhere = Median(all);
  std::vector<double> typical(start.cluster_queues.size(), everywhere);
  for (size_t q = 0; q < runs.size(); ++q) {
    if (!runs[q].empty()) typical[q] = Median(runs[q]);
  }

  schedule::State state = start;
  state.now = 0;  // the state's times are relative to `now`
  std::map<std::string, int> queue_of;
  for (size_t q = 0; q < state.cluster_queues.size(); ++q) queue_of[state.cluster_queues[q].name] = static_cast<int>(q);
  // When each admitted workload is expected to finish (relative to now): one
  // that has run past its queue's run time finishes a second from now.
  std::map<std::string, double> ends;
  for (const schedule::Workload& w : state.admitted) {
    ends[w.name] = std::max(1.0, w.quota_reserved_at.value_or(0) + typical[w.cluster_queue]);
  }
  std::map<std::string, double> admitted_at;
  int64_t cycles = 0;
  bool exhausted = false;
  while (!state.pending.empty()) {
    // Cycles until the state settles.
    for (;;) {
      if (cycles >= max_cycles) {
        exhausted = true;
        break;
      }
      absl::StatusOr<schedule::CycleResult> r = schedule::RunCycle(state, options);
      if (!r.ok()) return r.status();
      ++cycles;
      for (const schedule::Admitted& a : r->admitted) {
        admitted_at.emplace(a.name, state.now);
        auto q = queue_of.find(a.cluster_queue);
        ends[a.name] = state.now + (q == queue_of.end() ? everywhere : typical[static_cast<size_t>(q->second)]);
      }
      for (const schedule::Preempted& p : r->preempted) {
        ends.erase(p.name);
        admitted_at.erase(p.name);  // it waits again
      }
      const bool stable = schedule::IsStable(state, *r);
      absl::StatusOr<schedule::State> next = schedule::ApplyCycle(std::move(state), *r);
      if (!next.ok()) return next.status();
      state = *std::move(next);
      if (stable) break;
    }
    if (exhausted || state.pending.empty()) break;
    // The next expected finish: its quota is freed, and the parked
    // workloads of its cohort tree wake.
    double next = std::numeric_limits<double>::infinity();
    for (const schedule::Workload& w : state.admitted) {
      auto it = ends.find(w.name);
      if (it != ends.end()) next = std::min(next, it->second);
    }
    if (next == std::numeric_limits<double>::infinity()) break;
    state.now = std::max(state.now, next);
    std::set<int> roots;
    std::vector<schedule::Workload> staying;
    for (schedule::Workload& w : state.admitted) {
      auto it = ends.find(w.name);
      if (it != ends.end() && it->second <= state.now) {
        roots.insert(RootOf(state, w.cluster_queue));
        ends.erase(it);
      } else {
        staying.push_back(std::move(w));
      }
    }
    state.admitted = std::move(staying);
    for (schedule::Workload& w : state.pending) {
      if (roots.count(RootOf(state, w.cluster_queue))) w.inadmissible = false;
    }
  }
  for (const schedule::Workload& w : start.pending) {
    Prediction& p = out[w.name];
    auto it = admitted_at.find(w.name);
    if (it != admitted_at.end()) {
      p.at = now + it->second;
      p.note = Cat("in ", svg::Duration(it->second), ", by ", cycles, " simulated cycle", cycles == 1 ? "" : "s",
                   ", with run times learned from ", all.size(), " finished workload", all.size() == 1 ? "" : "s");
    } else if (exhausted) {
      p.note = Cat("not admitted within the ", max_cycles, " cycles simulated (--simulate)");
    } else {
      p.note = "not admitted once every running workload has finished: it never fits as the queues stand";
    }
  }
  return out;
}

}  // namespace charter::cli
