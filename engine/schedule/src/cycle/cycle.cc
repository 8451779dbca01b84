// One Kueue scheduling cycle (pkg/scheduler/scheduler.go), the driver over
// the snapshot (snapshot.h), the flavor assigner (flavor_assigner.h), the
// preemptor (preemption.h) and the fair-sharing tournament (fair_sharing.h):
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
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "charter/schedule.h"
#include "common/strings.h"
#include "cycle/entry.h"
#include "cycle/fair_sharing.h"
#include "cycle/flavor_assigner.h"
#include "cycle/names.h"
#include "cycle/preemption.h"
#include "cycle/quantity.h"
#include "cycle/rules_hook.h"
#include "cycle/snapshot.h"
#include "cycle/tree.h"

namespace charter::schedule {
namespace {

using internal::Cat;
using internal::CatAppend;
using internal::schedule::AddTo;
using internal::schedule::Assignment;
using internal::schedule::AssignmentMode;
using internal::schedule::Entry;
using internal::schedule::FlavorAssigner;
using internal::schedule::FlavorResourceAmount;
using internal::schedule::kUnset;
using internal::schedule::NextByFairSharing;
using internal::schedule::PreemptionRequest;
using internal::schedule::AdmitFacts;
using internal::schedule::CycleRules;
using internal::schedule::PreemptionTarget;
using internal::schedule::Preemptor;
using internal::schedule::RuleSink;
using internal::schedule::SatAdd;
using internal::schedule::SatSub;
using internal::schedule::Snapshot;
using internal::schedule::Tree;
using internal::schedule::WorkloadInfo;

class Cycle {
 public:
  Cycle(const State& state, const CycleOptions& options)
      : state_(state),
        options_(options),
        snapshot_(state),
        tree_(snapshot_.tree()),
        preemptor_(snapshot_, options),
        assigner_(snapshot_, preemptor_) {
    if (options.rules != nullptr) {
      if (const internal::schedule::RuleSet* set = RulesAccess::Get(*options.rules)) {
        rules_ = set->Begin(snapshot_);
        sink_.rules = rules_.get();
        assigner_.set_rules(&sink_);
        preemptor_.set_rules(&sink_);
      }
    }
  }

  CycleResult Run();

 private:
  const ClusterQueue& cluster_queue(int index) const { return snapshot_.cluster_queue(index); }
  std::string Quantity(int fr, int64_t v) const { return snapshot_.Quantity(fr, v); }
  std::string FlavorResourceText(int fr) const { return snapshot_.FlavorResourceText(fr); }

  // The first nomination of the cycle resumes the workload's recorded flavor
  // search; an assignment again after overlapping targets (`pin`) starts
  // from the first flavor.
  void Nominate(Entry* e, const std::vector<std::vector<int>>* pin = nullptr);
  void Process(Entry* e, CycleResult* out);
  std::vector<int> ClassicalOrder(std::vector<Entry>& entries);

  std::string NoFitMessage(const Entry& e) const;
  std::string AdmitMessage(const Entry& e) const;
  std::string PreemptMessage(const WorkloadInfo& preemptor, const PreemptionTarget& target) const;
  // The rules that changed an outcome, in words: "rule `x` forbids borrowing
  // cpu in flavor spot; ...".
  static std::string RulesText(const std::vector<RuleNote>& notes);
  static std::string WithRules(std::string message, const std::vector<RuleNote>& notes) {
    if (!notes.empty()) CatAppend(&message, "; ", RulesText(notes));
    return message;
  }

  // The admitted workloads that hold what `e` needs, with whether the
  // preemption search may take them (NotAdmitted::holders).
  void AddHolders(const Entry& e, NotAdmitted* n) const;
  // For an entry skipped because an earlier one took its room: that entry
  // and the ordering rule that put it first.
  std::string WentFirst(const Entry& e) const;

  const State& state_;
  const CycleOptions& options_;
  Snapshot snapshot_;
  Tree& tree_;
  Preemptor preemptor_;
  FlavorAssigner assigner_;
  std::vector<uint8_t> victim_;  // admitted index -> preempted this cycle
  std::vector<int> victims_;     // the same, as a list
  std::vector<int> position_;    // pending index -> place in its queue's order (1: first)
  std::vector<int> queue_length_;  // cluster queue -> its pending workloads
  std::vector<const Entry*> processed_;  // entries admitted or reserving quota, in processing order
  std::unique_ptr<CycleRules> rules_;  // null without rules
  RuleSink sink_;                      // what the searches report the rules' refusals to
};

std::string Cycle::RulesText(const std::vector<RuleNote>& notes) {
  std::string text;
  for (const RuleNote& n : notes) {
    std::string what;
    if (n.action == "admit") {
      what = Cat("admitting it to ", n.subject);
    } else if (n.action == "borrow") {
      what = Cat("borrowing ", n.subject);
    } else if (n.action == "preempt") {
      what = Cat("preempting ", n.subject);
    } else {
      what = Cat("evicting ", n.subject);
    }
    CatAppend(&text, text.empty() ? "" : "; ", "rule `", n.rule, "` ",
              n.error.empty() ? "forbids " : Cat("erred (", n.error, "), which forbids "), what);
  }
  return text;
}

void Cycle::Nominate(Entry* e, const std::vector<std::vector<int>>* pin) {
  const WorkloadInfo& head = snapshot_.pending()[e->pending];
  // The recorded search is forgotten when it is older than the previous
  // cycle and the queue lost an admitted workload since (Kueue's
  // lastAssignmentOutdated, with FlavorFungibilityPreserveScanProgress).
  const Workload& w = *head.workload;
  const bool outdated =
      state_.cycle - w.flavor_scan_cycle > 1 && cluster_queue(head.cluster_queue).generation > w.flavor_scan_generation;
  const bool resume = pin == nullptr && !w.flavor_scan.empty() && !outdated;
  sink_.notes = &e->notes;
  e->assignment = assigner_.Assign(head, pin, resume ? &w.flavor_scan : nullptr);
  e->targets.clear();
  if (sink_.rules != nullptr && pin == nullptr && e->assignment.mode != AssignmentMode::kNoFit) {
    // May it be admitted at all (by preempting, if it needs to)?
    AdmitFacts facts;
    facts.borrowing = e->assignment.borrowing > 0;
    facts.preempting = e->assignment.mode == AssignmentMode::kPreempt;
    for (const std::vector<int>& set : e->assignment.flavors) {
      for (int f : set) {
        if (f >= 0 && std::find(facts.flavors.begin(), facts.flavors.end(), f) == facts.flavors.end()) {
          facts.flavors.push_back(f);
        }
      }
    }
    if (!sink_.rules->MayAdmit(head, facts)) {
      sink_.Note("admit", Cat("`", cluster_queue(head.cluster_queue).name, "`"));
      e->denied = true;
      return;
    }
  }
  if (e->assignment.mode == AssignmentMode::kPreempt) {
    // Kueue hands the preemptor's requests to the preemption search as the
    // workload's own total requests (Assignment.TotalRequestsFor), which do
    // not hold the `pods` count a queue covering `pods` adds; fits checks
    // later in the cycle use the whole assignment, `pods` included.
    PreemptionRequest request{&head, {}, {}, true};
    for (size_t s = 0; s < e->assignment.flavors.size(); ++s) {
      for (size_t r = 0; r < e->assignment.flavors[s].size(); ++r) {
        const int flavor = e->assignment.flavors[s][r];
        if (flavor < 0) continue;
        const int fr = tree_.fr(flavor, e->assignment.totals[s][r].first);
        if (e->assignment.modes[s][r] == AssignmentMode::kPreempt &&
            std::find(request.frs.begin(), request.frs.end(), fr) == request.frs.end()) {
          request.frs.push_back(fr);
        }
        if (static_cast<int>(r) != e->assignment.added_pods[s] && e->assignment.totals[s][r].second != 0) {
          AddTo(&request.usage, fr, e->assignment.totals[s][r].second);
        }
      }
    }
    e->targets = preemptor_.FindTargets(request);
  }
}

std::vector<int> Cycle::ClassicalOrder(std::vector<Entry>& entries) {
  std::vector<int> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const Entry& x = entries[a];
    const Entry& y = entries[b];
    if (x.assignment.borrowing != y.assignment.borrowing) return x.assignment.borrowing < y.assignment.borrowing;
    const WorkloadInfo& wx = snapshot_.pending()[x.pending];
    const WorkloadInfo& wy = snapshot_.pending()[y.pending];
    if (wx.workload->priority != wy.workload->priority) return wx.workload->priority > wy.workload->priority;
    return wx.queue_time < wy.queue_time;
  });
  return order;
}

void Cycle::Process(Entry* e, CycleResult* out) {
  const WorkloadInfo& head = snapshot_.pending()[e->pending];
  sink_.notes = &e->notes;
  const std::vector<WorkloadInfo>& admitted = snapshot_.admitted();
  const int queue = head.cluster_queue;
  const int node = snapshot_.node(queue);
  const bool strict = cluster_queue(queue).queueing_strategy == QueueingStrategy::kStrictFIFO;
  auto any_victim = [&](const std::vector<PreemptionTarget>& targets) {
    for (const PreemptionTarget& t : targets) {
      if (victim_[t.admitted]) return true;
    }
    return false;
  };
  // fits(): usage ≤ available with every victim so far and this entry's
  // targets removed.
  // `short_of` (may be null) gets the first flavor-resource that does not
  // fit, in words.
  auto fits = [&](const Entry& entry, std::string* short_of) {
    std::vector<int> removed = victims_;
    for (const PreemptionTarget& t : entry.targets) {
      if (!victim_[t.admitted]) removed.push_back(t.admitted);
    }
    for (int i : removed) tree_.Remove(snapshot_.node(admitted[i].cluster_queue), admitted[i].usage);
    bool ok = true;
    for (const FlavorResourceAmount& u : entry.assignment.usage) {
      const int64_t available = tree_.Available(node, u.fr);
      if (available >= u.v) continue;
      if (ok && short_of != nullptr) {
        *short_of = Cat("`", cluster_queue(queue).name, "` needs ", Quantity(u.fr, u.v), " ", FlavorResourceText(u.fr),
                        ", and ", Quantity(u.fr, available), " is left");
      }
      ok = false;
    }
    for (int i : removed) tree_.Add(snapshot_.node(admitted[i].cluster_queue), admitted[i].usage);
    return ok;
  };
  // `keep_scan`: Kueue keeps the entry's flavor search for the next cycle
  // (not after it issued preemptions or was deferred); a search that
  // stopped before the last flavor sends a BestEffortFIFO head back to the
  // active queue instead of parking it.
  auto pending = [&](PendingState state, bool parked, std::string message, bool keep_scan = true) {
    NotAdmitted n;
    n.name = head.workload->name;
    n.cluster_queue = cluster_queue(queue).name;
    n.state = state;
    bool pending_flavors = false;
    if (keep_scan) {
      n.flavor_scan = e->assignment.tried;
      for (const auto& set : n.flavor_scan) {
        for (int idx : set) pending_flavors = pending_flavors || idx >= 0;
      }
    }
    n.inadmissible = parked && !strict && !pending_flavors;
    n.position = position_[e->pending];
    n.queue_length = queue_length_[queue];
    if (state == PendingState::kSkippedNoLongerFits) {
      n.went_first = WentFirst(*e);
      if (!n.went_first.empty()) CatAppend(&message, "; ", n.went_first);
    }
    if (state == PendingState::kNoFit || state == PendingState::kNoFitNoCandidates ||
        state == PendingState::kSkippedNoLongerFits) {
      AddHolders(*e, &n);
    }
    n.message = WithRules(std::move(message), e->notes);
    n.rules = e->notes;
    out->not_admitted.push_back(std::move(n));
  };
  if (e->denied) {
    NotAdmitted n;
    n.name = head.workload->name;
    n.cluster_queue = cluster_queue(queue).name;
    n.state = PendingState::kDeniedByRule;
    n.inadmissible = !strict;
    n.position = position_[e->pending];
    n.queue_length = queue_length_[queue];
    n.message = RulesText(e->notes);
    n.rules = e->notes;
    out->not_admitted.push_back(std::move(n));
    return;
  }

  bool deferred = false;
  bool ok;
  std::string short_of;
  std::string taken;  // victims another head of this cycle already took
  if (any_victim(e->targets)) {
    for (const PreemptionTarget& t : e->targets) {
      if (victim_[t.admitted])
        CatAppend(&taken, taken.empty() ? "" : ", ", "`", admitted[t.admitted].workload->name, "`");
    }
    // RecomputeAssignmentUponPreemptionTargetsOverlap: assign again against
    // the state after the other preemptions complete.
    std::vector<int> removed;
    for (int i : victims_) {
      if (!admitted[i].hidden) {
        snapshot_.RemoveAdmitted(i, true);
        removed.push_back(i);
      }
    }
    const std::vector<std::vector<int>> nominated = e->assignment.flavors;
    Nominate(e, &nominated);
    for (int i : removed) snapshot_.RestoreAdmitted(i);
    if (e->assignment.mode == AssignmentMode::kFit) deferred = true;
    ok = fits(*e, &short_of);
  } else {
    ok = fits(*e, &short_of);
  }
  const AssignmentMode mode = deferred ? AssignmentMode::kDeferredFit : e->assignment.mode;
  if (mode == AssignmentMode::kNoFit) {
    pending(e->assignment.exceeds_max ? PendingState::kNoFitExceedsMaxQuota : PendingState::kNoFit, true,
            NoFitMessage(*e));
    return;
  }
  if (mode == AssignmentMode::kPreempt && e->targets.empty()) {
    // Hold back the quota this head would use, so that later entries cannot
    // borrow it, unless the queue can always reclaim it.
    if (cluster_queue(queue).preemption.reclaim_within_cohort != PreemptionPolicy::kAny) {
      for (const FlavorResourceAmount& u : e->assignment.usage) {
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
                cluster_queue(queue).preemption.reclaim_within_cohort != PreemptionPolicy::kAny
                    ? "; its quota is held back for it in this cycle"
                    : ""));
    return;
  }
  if (mode == AssignmentMode::kDeferredFit) {
    tree_.Add(node, e->assignment.usage);
    processed_.push_back(e);
    pending(PendingState::kDeferredFit, false,
            Cat("its victims ", taken,
                " are already being preempted for a workload processed earlier in this cycle; "
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
  for (const PreemptionTarget& t : e->targets) {
    victim_[t.admitted] = 1;
    victims_.push_back(t.admitted);
  }
  tree_.Add(node, e->assignment.usage);
  processed_.push_back(e);
  if (mode == AssignmentMode::kPreempt) {
    std::string names;
    for (const PreemptionTarget& t : e->targets) {
      Preempted v;
      v.name = admitted[t.admitted].workload->name;
      v.cluster_queue = cluster_queue(admitted[t.admitted].cluster_queue).name;
      v.reason = t.reason;
      v.preemptor = head.workload->name;
      v.message = PreemptMessage(head, t);
      CatAppend(&names, names.empty() ? "" : ", ", "`", v.name, "`");
      out->preempted.push_back(std::move(v));
    }
    pending(PendingState::kWaitingForPreemption, false,
            Cat(NoFitMessage(*e), "; preempting ", names, ", it is admitted once they have left"), false);
    return;
  }
  Admitted a;
  a.name = head.workload->name;
  a.cluster_queue = cluster_queue(queue).name;
  a.borrowing = e->assignment.borrowing > 0;
  for (size_t s = 0; s < head.workload->pod_sets.size() && s < e->assignment.flavors.size(); ++s) {
    PodSetFlavors f;
    f.pod_set = head.workload->pod_sets[s].name;
    for (size_t r = 0; r < e->assignment.flavors[s].size(); ++r) {
      if (e->assignment.flavors[s][r] < 0) continue;
      f.flavors.emplace_back(state_.resources[e->assignment.totals[s][r].first],
                             state_.flavors[e->assignment.flavors[s][r]]);
    }
    a.flavors.push_back(std::move(f));
  }
  a.message = WithRules(AdmitMessage(*e), e->notes);
  a.rules = e->notes;
  out->admitted.push_back(std::move(a));
}

void Cycle::AddHolders(const Entry& e, NotAdmitted* n) const {
  const std::vector<WorkloadInfo>& admitted = snapshot_.admitted();
  const WorkloadInfo& head = snapshot_.pending()[e.pending];
  const int queue = head.cluster_queue;
  const int node = snapshot_.node(queue);
  std::vector<int> frs;
  for (const FlavorResourceAmount& u : e.assignment.usage) {
    if (std::find(frs.begin(), frs.end(), u.fr) == frs.end()) frs.push_back(u.fr);
  }
  if (frs.empty()) return;
  const int root = tree_.root(node);
  const bool in_cohort = tree_.parent(node) >= 0;
  auto holds = [&](const WorkloadInfo& w) {
    for (const FlavorResourceAmount& u : w.usage) {
      if (u.v != 0 && std::find(frs.begin(), frs.end(), u.fr) != frs.end()) return true;
    }
    return false;
  };
  // The holders, its own queue's first; only those named are put in words.
  std::vector<int> own, others;
  for (int i : snapshot_.admitted_to(queue)) {
    if (!admitted[i].hidden && !victim_[i] && holds(admitted[i])) own.push_back(i);
  }
  if (in_cohort) {
    for (size_t q = 0; q < state_.cluster_queues.size(); ++q) {
      const int other = static_cast<int>(q);
      if (other == queue || tree_.root(snapshot_.node(other)) != root) continue;
      for (int i : snapshot_.admitted_to(other)) {
        if (!admitted[i].hidden && !victim_[i] && holds(admitted[i])) others.push_back(i);
      }
    }
  }
  if (options_.max_holders == 0) {  // none named: the count alone
    n->more_holders += own.size() + others.size();
    return;
  }
  std::sort(own.begin(), own.end());
  std::sort(others.begin(), others.end());
  const Preemption& policy = cluster_queue(queue).preemption;
  for (const std::vector<int>* list : {&own, &others}) {
    for (int i : *list) {
      if (n->holders.size() >= options_.max_holders) {
        ++n->more_holders;
        continue;
      }
      const WorkloadInfo& w = admitted[i];
      Holder h;
      h.name = w.workload->name;
      h.cluster_queue = cluster_queue(w.cluster_queue).name;
      for (const FlavorResourceAmount& u : w.usage) {
        if (std::find(frs.begin(), frs.end(), u.fr) == frs.end() || u.v == 0) continue;
        CatAppend(&h.usage, h.usage.empty() ? "" : ", ", Quantity(u.fr, u.v), " ", FlavorResourceText(u.fr));
      }
      const std::string priorities = Cat("priority ", w.workload->priority, " against ", head.workload->priority);
      if (list == &own) {
        const PreemptionPolicy p = policy.within_cluster_queue;
        if (p == PreemptionPolicy::kNever) {
          h.why = "its queue never preempts within itself (`within_queue: Never`)";
        } else if (!preemptor_.SatisfiesPolicy(head, w, p)) {
          h.why = Cat("not preemptible within the queue (`within_queue: ", PolicyName(p), "`, ", priorities, ")");
        } else {
          h.candidate = true;
          h.why = Cat("preemptible within the queue (`within_queue: ", PolicyName(p), "`, ", priorities, ")");
        }
      } else {
        const PreemptionPolicy p = policy.reclaim_within_cohort;
        const std::string holder_queue = Cat("`", h.cluster_queue, "`");
        if (p == PreemptionPolicy::kNever) {
          h.why = Cat("`", cluster_queue(queue).name,
                      "` never reclaims from its cohort (`reclaim_within_cohort: Never`)");
        } else if (tree_.WithinNominal(snapshot_.node(w.cluster_queue), frs)) {
          h.why = Cat(holder_queue,
                      " uses no more than its nominal quota of it, and only what a queue borrows is reclaimed");
        } else if (!preemptor_.SatisfiesPolicy(head, w, p)) {
          h.why = Cat(holder_queue, " borrows, but the policy does not let it be reclaimed (`reclaim_within_cohort: ",
                      PolicyName(p), "`, ", priorities, ")");
        } else {
          h.candidate = true;
          h.why = Cat(holder_queue, " borrows (`reclaim_within_cohort: ", PolicyName(p), "`, ", priorities, ")",
                      state_.engine.fair_sharing ? "; with fair sharing, the queues' shares decide whether it is taken"
                                                 : "");
        }
      }
      n->holders.push_back(std::move(h));
    }
  }
}

std::string Cycle::WentFirst(const Entry& e) const {
  const WorkloadInfo& head = snapshot_.pending()[e.pending];
  const int node = snapshot_.node(head.cluster_queue);
  for (const Entry* x : processed_) {
    const WorkloadInfo& w = snapshot_.pending()[x->pending];
    const int other = snapshot_.node(w.cluster_queue);
    if (x == &e || (other != node && tree_.root(other) != tree_.root(node))) continue;
    bool shares = false;
    for (const FlavorResourceAmount& a : x->assignment.usage) {
      for (const FlavorResourceAmount& b : e.assignment.usage) shares = shares || (a.fr == b.fr && a.v > 0);
    }
    if (!shares) continue;
    std::string rule;
    if (state_.engine.fair_sharing) {
      rule = "the fair-sharing tournament chose it first (the lower dominant resource share)";
    } else if (x->assignment.borrowing == 0 && e.assignment.borrowing > 0) {
      rule = "it does not borrow and this one would, and Kueue processes entries that do not borrow first";
    } else if (x->assignment.borrowing < e.assignment.borrowing) {
      rule = "it borrows lower in the cohort tree, and Kueue processes entries by how high they borrow first";
    } else if (w.workload->priority > head.workload->priority) {
      rule = Cat("its priority is higher (", w.workload->priority, " over ", head.workload->priority,
                 "), and Kueue processes higher priorities first");
    } else if (w.queue_time < head.queue_time) {
      rule = "it was queued earlier (same priority: first in, first out)";
    } else {
      rule = "the same borrowing, priority and queue time: the queues' order decided";
    }
    return Cat("`", w.workload->name, "` of `", cluster_queue(w.cluster_queue).name, "` went first and took it: ",
               rule);
  }
  return "";
}

std::string Cycle::NoFitMessage(const Entry& e) const {
  if (!e.assignment.reason.empty()) return e.assignment.reason;
  return Cat("`", cluster_queue(snapshot_.pending()[e.pending].cluster_queue).name, "` cannot fit it");
}

std::string Cycle::AdmitMessage(const Entry& e) const {
  // Called after the entry's usage was added.
  const int queue = snapshot_.pending()[e.pending].cluster_queue;
  const int node = snapshot_.node(queue);
  std::string text = Cat("admitted to `", cluster_queue(queue).name, "`");
  std::string borrowed;
  for (const FlavorResourceAmount& u : e.assignment.usage) {
    const int64_t nominal = tree_.nominal(node, u.fr);
    const int64_t after = tree_.usage(node, u.fr);
    const int64_t before = SatSub(after, u.v);
    const int64_t extra =
        SatSub(std::max<int64_t>(0, SatSub(after, nominal)), std::max<int64_t>(0, SatSub(before, nominal)));
    CatAppend(&text, "; ", Quantity(u.fr, u.v), " ", FlavorResourceText(u.fr), " (used ", Quantity(u.fr, after),
              " of nominal ", Quantity(u.fr, nominal), ")");
    if (extra > 0)
      CatAppend(&borrowed, borrowed.empty() ? "" : ", ", Quantity(u.fr, extra), " ", FlavorResourceText(u.fr));
  }
  if (!borrowed.empty() && tree_.parent(node) >= 0) {
    CatAppend(&text, "; borrowing ", borrowed, " from cohort `", state_.cohorts[tree_.parent(node)].name, "`");
  }
  return text;
}

std::string Cycle::PreemptMessage(const WorkloadInfo& preemptor, const PreemptionTarget& target) const {
  const WorkloadInfo& victim = snapshot_.admitted()[target.admitted];
  std::string why;
  switch (target.reason) {
    case PreemptionReason::kInClusterQueue:
      why = Cat("prioritization in cluster queue `", cluster_queue(victim.cluster_queue).name, "` (priority ",
                preemptor.workload->priority, " over ", victim.workload->priority, ")");
      break;
    case PreemptionReason::kInCohortReclamation:
      why = Cat("reclamation within the cohort: `", cluster_queue(preemptor.cluster_queue).name,
                "` takes back quota that `", cluster_queue(victim.cluster_queue).name, "` borrows");
      break;
    case PreemptionReason::kInCohortReclaimWhileBorrowing:
      why = Cat("reclamation within the cohort while borrowing: `", cluster_queue(victim.cluster_queue).name,
                "` borrows and its workload has a lower priority (", victim.workload->priority, " under ",
                preemptor.workload->priority, ")");
      break;
    case PreemptionReason::kInCohortFairSharing:
      why = target.why.empty() ? Cat("fair sharing within the cohort: `", cluster_queue(victim.cluster_queue).name,
                                     "` has the larger share")
                               : Cat("fair sharing within the cohort: ", target.why);
      break;
  }
  std::string out = Cat("preempted by `", preemptor.workload->name, "` of `",
                        cluster_queue(preemptor.cluster_queue).name, "` due to ", why);
  if (!target.why.empty() && target.reason != PreemptionReason::kInCohortFairSharing) {
    CatAppend(&out, " (", target.why, ")");
  }
  return out;
}

CycleResult Cycle::Run() {
  CycleResult out;
  const std::vector<WorkloadInfo>& pending = snapshot_.pending();
  victim_.assign(snapshot_.admitted().size(), 0);
  // Heads: per queue, the first active workload in queue order.
  std::vector<std::vector<int>> queues(state_.cluster_queues.size());
  position_.assign(pending.size(), 0);
  queue_length_.assign(state_.cluster_queues.size(), 0);
  for (size_t i = 0; i < pending.size(); ++i) queues[pending[i].cluster_queue].push_back(static_cast<int>(i));
  std::vector<Entry> entries;
  for (size_t q = 0; q < queues.size(); ++q) {
    const bool best_effort = cluster_queue(static_cast<int>(q)).queueing_strategy == QueueingStrategy::kBestEffortFIFO;
    std::vector<int>& list = queues[q];
    std::sort(list.begin(), list.end(), [&](int a, int b) {
      const WorkloadInfo& x = pending[a];
      const WorkloadInfo& y = pending[b];
      if (best_effort && x.workload->preempting != y.workload->preempting) return x.workload->preempting;
      if (x.workload->priority != y.workload->priority) return x.workload->priority > y.workload->priority;
      if (x.queue_time != y.queue_time) return x.queue_time < y.queue_time;
      return x.workload->uid < y.workload->uid;
    });
    queue_length_[q] = static_cast<int>(list.size());
    for (size_t k = 0; k < list.size(); ++k) position_[list[k]] = static_cast<int>(k) + 1;
    int head = -1;
    for (int i : list) {
      if (head < 0 && !pending[i].workload->inadmissible) {
        head = i;
        Entry e;
        e.pending = i;
        entries.push_back(std::move(e));
        continue;
      }
      ++out.queued_count;
      if (!options_.list_queued) continue;
      Queued w;
      w.name = pending[i].workload->name;
      w.cluster_queue = cluster_queue(static_cast<int>(q)).name;
      w.inadmissible = pending[i].workload->inadmissible;
      w.position = position_[i];
      w.queue_length = queue_length_[q];
      if (pending[i].workload->inadmissible) {
        w.message = "parked as inadmissible until capacity is freed in its cohort";
      } else {
        w.message = Cat("waits behind the head of `", w.cluster_queue, "`, `", pending[head].workload->name, "`");
      }
      out.queued.push_back(std::move(w));
    }
  }
  for (Entry& e : entries) Nominate(&e);
  if (state_.engine.fair_sharing) {
    std::vector<bool> done(entries.size(), false);
    for (int i = NextByFairSharing(snapshot_, entries, &done); i >= 0; i = NextByFairSharing(snapshot_, entries, &done))
      Process(&entries[i], &out);
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
      return absl::InvalidArgumentError(
          Cat("cohort `", cohort.name, "` refers to an unknown cohort, flavor or resource"));
    }
  }
  if (int c = internal::schedule::CohortInCycle(s.cohorts); c >= 0) {
    return absl::InvalidArgumentError(Cat("cohort `", s.cohorts[c].name, "` is in a cycle of parents"));
  }
  if (std::string error = internal::schedule::QuotaCellsError(s, options.max_quota_cells); !error.empty()) {
    return absl::InvalidArgumentError(error);
  }
  for (const ClusterQueue& queue : s.cluster_queues) {
    if (queue.cohort < -1 || queue.cohort >= cohorts || !groups_ok(queue.resource_groups)) {
      return absl::InvalidArgumentError(
          Cat("cluster queue `", queue.name, "` refers to an unknown cohort, flavor or resource, or has a bad quota"));
    }
  }
  for (const auto* list : {&s.admitted, &s.pending}) {
    for (const Workload& w : *list) {
      bool ok = w.cluster_queue >= 0 && w.cluster_queue < queues;
      for (const PodSet& ps : w.pod_sets) {
        ok = ok && ps.count >= 0;
        for (const Request& r : ps.requests) {
          ok =
              ok && r.resource >= 0 && r.resource < resources && r.per_pod >= 0 && r.flavor >= -1 && r.flavor < flavors;
        }
      }
      if (!ok)
        return absl::InvalidArgumentError(
            Cat("workload `", w.name, "` refers to an unknown queue, flavor or resource, or has a negative quantity"));
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
    case PendingState::kDeniedByRule: return "denied_by_rule";
  }
  return "unknown";
}

std::string_view KueueReason(PendingState state) {
  switch (state) {
    case PendingState::kNoFitExceedsMaxQuota: return "ExceedsMaxQuota";
    case PendingState::kNoFit:
    case PendingState::kNoFitNoCandidates:
    case PendingState::kSkippedNoLongerFits: return "WaitingForQuota";
    case PendingState::kWaitingForPreemption:
    case PendingState::kDeferredFit: return "WaitingForPreemptedWorkloads";
    case PendingState::kDeniedByRule: return "AdmissionGated";
  }
  return "";
}

std::string_view KueueReason(const Queued& queued) { return queued.inadmissible ? "" : "PendingEvaluation"; }

absl::StatusOr<CycleResult> RunCycle(const State& state, const CycleOptions& options) {
  absl::Status valid = Validate(state, options);
  if (!valid.ok()) return valid;
  Cycle cycle(state, options);
  return cycle.Run();
}

}  // namespace charter::schedule
