// The outcome of a cycle as JSON and as text, and applying it to a state
// for multi-cycle simulation.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "charter/schedule.h"
#include "common/strings.h"
#include "json/json.h"

namespace charter::schedule {
namespace {

using internal::Cat;
using internal::CatAppend;
using internal::json::AppendQuoted;

void Field(std::string* out, std::string_view key, std::string_view value, bool first = false) {
  if (!first) out->push_back(',');
  AppendQuoted(out, key);
  out->push_back(':');
  AppendQuoted(out, value);
}

// Kueue's scheduling equivalence: the same priority and the same pod sets
// (names, counts, per-pod requests, in any order of resources).
bool SameShape(const Workload& a, const Workload& b) {
  if (a.priority != b.priority || a.pod_sets.size() != b.pod_sets.size()) return false;
  for (size_t s = 0; s < a.pod_sets.size(); ++s) {
    const PodSet& x = a.pod_sets[s];
    const PodSet& y = b.pod_sets[s];
    if (x.name != y.name || x.count != y.count || x.requests.size() != y.requests.size()) return false;
    for (const Request& r : x.requests) {
      auto m = std::find_if(y.requests.begin(), y.requests.end(),
                            [&](const Request& q) { return q.resource == r.resource; });
      if (m == y.requests.end() || m->per_pod != r.per_pod) return false;
    }
  }
  return true;
}

// ,"rules":[{"rule","action","subject"[,"error"]}], when there are any.
void RulesField(std::string* out, const std::vector<RuleNote>& rules) {
  if (rules.empty()) return;
  *out += ",\"rules\":[";
  for (size_t i = 0; i < rules.size(); ++i) {
    if (i > 0) out->push_back(',');
    out->push_back('{');
    Field(out, "rule", rules[i].rule, true);
    Field(out, "action", rules[i].action);
    Field(out, "subject", rules[i].subject);
    if (!rules[i].error.empty()) Field(out, "error", rules[i].error);
    out->push_back('}');
  }
  out->push_back(']');
}

}  // namespace

std::string CycleResult::ToJson() const {
  std::string out = "{\"admitted\":[";
  for (size_t i = 0; i < admitted.size(); ++i) {
    const Admitted& a = admitted[i];
    if (i > 0) out.push_back(',');
    out.push_back('{');
    Field(&out, "name", a.name, true);
    Field(&out, "cluster_queue", a.cluster_queue);
    out += ",\"flavors\":{";
    for (size_t s = 0; s < a.flavors.size(); ++s) {
      if (s > 0) out.push_back(',');
      AppendQuoted(&out, a.flavors[s].pod_set);
      out += ":{";
      for (size_t r = 0; r < a.flavors[s].flavors.size(); ++r) {
        Field(&out, a.flavors[s].flavors[r].first, a.flavors[s].flavors[r].second, r == 0);
      }
      out.push_back('}');
    }
    out += "},\"borrowing\":";
    out += a.borrowing ? "true" : "false";
    Field(&out, "message", a.message);
    RulesField(&out, a.rules);
    out.push_back('}');
  }
  out += "],\"preempted\":[";
  for (size_t i = 0; i < preempted.size(); ++i) {
    const Preempted& p = preempted[i];
    if (i > 0) out.push_back(',');
    out.push_back('{');
    Field(&out, "name", p.name, true);
    Field(&out, "cluster_queue", p.cluster_queue);
    Field(&out, "reason", ReasonName(p.reason));
    Field(&out, "preemptor", p.preemptor);
    Field(&out, "message", p.message);
    out.push_back('}');
  }
  out += "],\"not_admitted\":[";
  for (size_t i = 0; i < not_admitted.size(); ++i) {
    const NotAdmitted& n = not_admitted[i];
    if (i > 0) out.push_back(',');
    out.push_back('{');
    Field(&out, "name", n.name, true);
    Field(&out, "cluster_queue", n.cluster_queue);
    Field(&out, "state", StateName(n.state));
    Field(&out, "reason", KueueReason(n.state));
    Field(&out, "queue_state", n.inadmissible ? "inadmissible" : "active");
    CatAppend(&out, ",\"position\":", n.position, ",\"queue_length\":", n.queue_length);
    Field(&out, "message", n.message);
    if (!n.went_first.empty()) Field(&out, "went_first", n.went_first);
    if (!n.holders.empty()) {
      out += ",\"holders\":[";
      for (size_t h = 0; h < n.holders.size(); ++h) {
        if (h > 0) out.push_back(',');
        out.push_back('{');
        Field(&out, "name", n.holders[h].name, true);
        Field(&out, "cluster_queue", n.holders[h].cluster_queue);
        Field(&out, "usage", n.holders[h].usage);
        CatAppend(&out, ",\"candidate\":", n.holders[h].candidate ? "true" : "false");
        Field(&out, "why", n.holders[h].why);
        out.push_back('}');
      }
      out.push_back(']');
      if (n.more_holders > 0) CatAppend(&out, ",\"more_holders\":", n.more_holders);
    }
    RulesField(&out, n.rules);
    out.push_back('}');
  }
  out += "],\"queued\":[";
  for (size_t i = 0; i < queued.size(); ++i) {
    if (i > 0) out.push_back(',');
    out.push_back('{');
    Field(&out, "name", queued[i].name, true);
    Field(&out, "cluster_queue", queued[i].cluster_queue);
    if (std::string_view reason = KueueReason(queued[i]); !reason.empty()) Field(&out, "reason", reason);
    CatAppend(&out, ",\"position\":", queued[i].position, ",\"queue_length\":", queued[i].queue_length);
    Field(&out, "message", queued[i].message);
    out.push_back('}');
  }
  out += "]}";
  return out;
}

std::string CycleResult::ToText() const {
  std::string out;
  for (const Admitted& a : admitted) {
    std::string flavors;
    for (const PodSetFlavors& f : a.flavors) {
      for (const auto& [res, flavor] : f.flavors) {
        CatAppend(&flavors, flavors.empty() ? "" : " ", f.pod_set, ".", res, "=", flavor);
      }
    }
    CatAppend(&out, "ADMIT    ", a.name, " (", a.cluster_queue, ") ", flavors, a.borrowing ? " borrowing" : "",
              "\n         ", a.message, "\n");
  }
  for (const Preempted& p : preempted) {
    CatAppend(&out, "PREEMPT  ", p.name, " (", p.cluster_queue, ") ", ReasonName(p.reason), "\n         ",
              p.message, "\n");
  }
  for (const NotAdmitted& n : not_admitted) {
    CatAppend(&out, "PENDING  ", n.name, " (", n.cluster_queue, ") ", StateName(n.state),
              n.inadmissible ? ", inadmissible" : "", "; ", KueueReason(n.state), "; position ", n.position, " of ",
              n.queue_length, "\n         ", n.message, "\n");
    for (const Holder& h : n.holders) {
      CatAppend(&out, "         held by `", h.name, "` (", h.cluster_queue, "): ", h.usage,
                h.candidate ? "; a candidate: " : "; not a candidate: ", h.why, "\n");
    }
    if (n.more_holders > 0) {
      CatAppend(&out, "         and ", n.more_holders, " more holder", n.more_holders == 1 ? "" : "s", "\n");
    }
  }
  for (const Queued& q : queued) {
    std::string_view reason = KueueReason(q);
    CatAppend(&out, "QUEUED   ", q.name, " (", q.cluster_queue, ") ", q.message, reason.empty() ? "" : "; ", reason,
              "; position ", q.position, " of ", q.queue_length, "\n");
  }
  if (out.empty()) out = "nothing to schedule\n";
  return out;
}

namespace {

// ApplyCycle over a state of its own (a copy, or the caller's, moved).
absl::StatusOr<State> ApplyTo(State next, const CycleResult& result) {
  // What the cycle saw, before the changes below.
  const int64_t now = next.now;
  const int64_t cycle = next.cycle;
  std::vector<int64_t> generation(next.cluster_queues.size());
  for (size_t q = 0; q < next.cluster_queues.size(); ++q) generation[q] = next.cluster_queues[q].generation;
  // (Keyed by the names in next's vectors, which stay in place until the
  // lists are rebuilt at the end.)
  absl::flat_hash_map<std::string_view, size_t> pending, admitted;
  pending.reserve(next.pending.size());
  admitted.reserve(next.admitted.size());
  for (size_t i = 0; i < next.pending.size(); ++i) pending.emplace(next.pending[i].name, i);
  for (size_t i = 0; i < next.admitted.size(); ++i) admitted.emplace(next.admitted[i].name, i);
  absl::flat_hash_map<std::string, int> flavor_index;
  for (size_t f = 0; f < next.flavors.size(); ++f) flavor_index.emplace(next.flavors[f], static_cast<int>(f));
  std::vector<bool> leave_pending(next.pending.size(), false), leave_admitted(next.admitted.size(), false);
  // The pending workloads of each cluster queue, in the state's order (the
  // loops below look at one queue's; a state holds thousands).
  std::vector<std::vector<size_t>> pending_of(next.cluster_queues.size());
  for (size_t i = 0; i < next.pending.size(); ++i) {
    const int q = next.pending[i].cluster_queue;
    if (q >= 0 && static_cast<size_t>(q) < pending_of.size()) pending_of[q].push_back(i);
  }
  std::vector<Workload> to_admitted, to_pending;
  // Cohort trees where a preemption frees capacity: parked workloads there
  // become active again.
  std::vector<bool> freed_root(next.cohorts.size() + next.cluster_queues.size(), false);
  auto root_key = [&](int cq) {
    int c = next.cluster_queues[cq].cohort;
    if (c < 0) return static_cast<int>(next.cohorts.size()) + cq;
    while (next.cohorts[c].parent >= 0) c = next.cohorts[c].parent;
    return c;
  };
  for (const Admitted& a : result.admitted) {
    auto it = pending.find(a.name);
    if (it == pending.end()) return absl::InvalidArgumentError(Cat("admitted workload `", a.name, "` is not pending"));
    Workload w = next.pending[it->second];
    leave_pending[it->second] = true;
    for (size_t s = 0; s < w.pod_sets.size() && s < a.flavors.size(); ++s) {
      for (Request& r : w.pod_sets[s].requests) {
        for (const auto& [res, flavor] : a.flavors[s].flavors) {
          if (res != next.resources[r.resource]) continue;
          auto f = flavor_index.find(flavor);
          if (f == flavor_index.end()) {
            return absl::InvalidArgumentError(
                Cat("admitted workload `", a.name, "` names an unknown resource flavor `", flavor, "`"));
          }
          r.flavor = f->second;
        }
      }
      // The `pods` resource is counted when the queue covers it.
      for (const auto& [res, flavor] : a.flavors[s].flavors) {
        if (res != "pods") continue;
        bool has = std::any_of(w.pod_sets[s].requests.begin(), w.pod_sets[s].requests.end(),
                               [&](const Request& r) { return next.resources[r.resource] == "pods"; });
        if (!has) {
          auto pods = std::find(next.resources.begin(), next.resources.end(), "pods");
          auto f = flavor_index.find(flavor);
          if (pods == next.resources.end() || f == flavor_index.end()) {
            return absl::InvalidArgumentError(
                Cat("admitted workload `", a.name, "` has a `pods` flavor `", flavor, "`, but ",
                    pods == next.resources.end() ? "no queue covers `pods`" : "the flavor is unknown"));
          }
          w.pod_sets[s].requests.push_back(
              Request{static_cast<int>(pods - next.resources.begin()), 1, f->second});
        }
      }
    }
    w.quota_reserved_at = now;
    w.inadmissible = false;
    w.preempting = false;
    w.flavor_scan.clear();
    to_admitted.push_back(std::move(w));
  }
  for (const Preempted& p : result.preempted) {
    auto it = admitted.find(p.name);
    if (it == admitted.end()) return absl::InvalidArgumentError(Cat("preempted workload `", p.name, "` is not admitted"));
    if (leave_admitted[it->second]) continue;
    leave_admitted[it->second] = true;
    Workload w = next.admitted[it->second];
    freed_root[root_key(w.cluster_queue)] = true;
    ++next.cluster_queues[w.cluster_queue].generation;  // Kueue's AllocatableResourceGeneration
    w.quota_reserved_at.reset();
    w.preempting = false;
    w.inadmissible = false;
    for (PodSet& ps : w.pod_sets) {
      for (Request& r : ps.requests) r.flavor = -1;
      ps.requests.erase(std::remove_if(ps.requests.begin(), ps.requests.end(),
                                       [&](const Request& r) { return next.resources[r.resource] == "pods"; }),
                        ps.requests.end());
    }
    to_pending.push_back(std::move(w));
  }
  for (const NotAdmitted& n : result.not_admitted) {
    auto it = pending.find(n.name);
    if (it == pending.end()) continue;
    Workload& w = next.pending[it->second];
    w.inadmissible = n.inadmissible;
    w.flavor_scan = n.flavor_scan;
    w.flavor_scan_cycle = cycle;
    w.flavor_scan_generation = generation[w.cluster_queue];
    // A head that issued preemptions, or that fits once they complete, is
    // its queue's preemptor (one a queue) until it is admitted; in a
    // BestEffortFIFO queue it stays at the head.
    if (n.state == PendingState::kWaitingForPreemption || n.state == PendingState::kDeferredFit) {
      for (size_t i : pending_of[w.cluster_queue]) next.pending[i].preempting = false;
      w.preempting = true;
    }
  }
  // SchedulingEquivalenceHashing: a BestEffortFIFO head parked because it
  // does not fit takes the active workloads of its queue with the same shape
  // (priority, pod sets, counts and requests) with it.
  for (const NotAdmitted& n : result.not_admitted) {
    if (!n.inadmissible || (n.state != PendingState::kNoFit && n.state != PendingState::kNoFitExceedsMaxQuota &&
                            n.state != PendingState::kNoFitNoCandidates)) {
      continue;
    }
    auto it = pending.find(n.name);
    if (it == pending.end()) continue;
    const Workload& head = next.pending[it->second];
    for (size_t i : pending_of[head.cluster_queue]) {
      Workload& other = next.pending[i];
      if (i == it->second || leave_pending[i] || other.inadmissible || !SameShape(head, other)) continue;
      other.inadmissible = true;
    }
  }
  std::vector<Workload> admitted_list, pending_list;
  admitted_list.reserve(next.admitted.size() + to_admitted.size());
  pending_list.reserve(next.pending.size() + to_pending.size());
  for (size_t i = 0; i < next.admitted.size(); ++i) {
    if (!leave_admitted[i]) admitted_list.push_back(std::move(next.admitted[i]));
  }
  for (Workload& w : to_admitted) admitted_list.push_back(std::move(w));
  for (size_t i = 0; i < next.pending.size(); ++i) {
    if (!leave_pending[i]) pending_list.push_back(std::move(next.pending[i]));
  }
  for (Workload& w : to_pending) pending_list.push_back(std::move(w));
  for (Workload& w : pending_list) {
    if (w.inadmissible && freed_root[root_key(w.cluster_queue)]) w.inadmissible = false;
  }
  next.admitted = std::move(admitted_list);
  next.pending = std::move(pending_list);
  next.now = now + 1;
  next.cycle = cycle + 1;
  return next;
}

}  // namespace

absl::StatusOr<State> ApplyCycle(const State& state, const CycleResult& result) { return ApplyTo(state, result); }

absl::StatusOr<State> ApplyCycle(State&& state, const CycleResult& result) {
  return ApplyTo(std::move(state), result);
}

bool IsStable(const State& before, const CycleResult& result) {
  if (!result.admitted.empty() || !result.preempted.empty()) return false;
  // A head newly parked changes the next cycle's heads (and may park the
  // workloads of the same shape with it), and a flavor search that stopped
  // elsewhere starts elsewhere next time. Preemptor marks change only with
  // preemptions.
  absl::flat_hash_map<std::string_view, const NotAdmitted*> heads;
  for (const NotAdmitted& n : result.not_admitted) heads.emplace(n.name, &n);
  if (heads.empty()) return true;
  for (const Workload& w : before.pending) {
    auto it = heads.find(w.name);
    if (it == heads.end()) continue;
    const NotAdmitted& n = *it->second;
    if (n.inadmissible && !w.inadmissible) return false;
    if (n.flavor_scan != w.flavor_scan) return false;
  }
  return true;
}

}  // namespace charter::schedule
