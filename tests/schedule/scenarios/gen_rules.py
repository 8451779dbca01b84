# Writes scenarios/rules.json (run from tests/schedule). Each scenario: one rule of docs/scheduling.md,
# its state, the expected outcome and the arithmetic that gives it.
import json
def q(n, b=None, l=None):
    return {"nominal": n, "borrowing_limit": b, "lending_limit": l}
def rg(flavors, res=("cpu",)):
    return [{"covered_resources": list(res), "flavors": [{"name": f, "quotas": qs} for f, qs in flavors]}]
def cq(name, cohort, groups, within="Never", reclaim="Never", borrow="Never", thr=None, strategy="BestEffortFIFO", fung=None, weight=1):
    return {"name": name, "cohort": cohort, "queueing_strategy": strategy, "resource_groups": groups,
            "preemption": {"within_cluster_queue": within, "reclaim_within_cohort": reclaim,
                           "borrow_within_cohort": {"policy": borrow, "max_priority_threshold": thr}},
            "flavor_fungibility": fung or {"when_can_borrow": "MayStopSearch", "when_can_preempt": "TryNextFlavor", "preference": None},
            "fair_weight": weight}
def adm(name, queue, cpu, prio=0, reserved=-60, flavor="default", created=-100):
    return {"name": name, "uid": name, "cluster_queue": queue, "priority": prio, "created_at": created,
            "quota_reserved_at": reserved, "pod_sets": [{"name": "main", "count": 1, "requests": {"cpu": cpu}}],
            "flavors": {"main": {"cpu": flavor}}}
def pend(name, queue, cpu, prio=0, created=-10, count=1):
    return {"name": name, "uid": name, "cluster_queue": queue, "priority": prio, "created_at": created,
            "pod_sets": [{"name": "main", "count": count, "requests": {"cpu": cpu}}]}
def A(name, flavor="default", borrowing=False):
    return {"name": name, "flavors": {"main": {"cpu": flavor}}, "borrowing": borrowing}
def P(name, reason): return {"name": name, "reason": reason}
def N(name, state, qs=None): return {"name": name, "state": state, "queue_state": qs}
def sc(id, title, explanation, cqs, admitted=(), pending=(), expected=None, cohorts=(), flavors=("default",), fair=False, kind=None):
    return {"id": id, "title": title, "kind": kind or ("fair_sharing" if fair else "classical"),
            "engine": {"fair_sharing": fair, "fair_sharing_preemption_strategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"] if fair else []},
            "resource_flavors": list(flavors), "cohorts": list(cohorts), "cluster_queues": cqs,
            "admitted": list(admitted), "pending": list(pending), "explanation": explanation, "expected": expected}
def E(admitted=(), preempted=(), not_admitted=()):
    return {"admitted": list(admitted), "preempted": list(preempted), "not_admitted": list(not_admitted)}
D = lambda n, b=None, l=None: [("default", {"cpu": q(n, b, l)})]

S = []
S.append(sc("fit-within-nominal", "A workload within its queue's nominal quota is admitted",
  "team-a: nominal 10, used 4; w needs 4 <= 10-4 = 6 available, usage 8 <= nominal so no borrowing.",
  [cq("team-a", None, rg(D(10)))], [adm("a0", "team-a", 4)], [pend("w", "team-a", 4)],
  E([A("w")])))
S.append(sc("borrow-idle-cohort-quota", "A queue borrows what the rest of its cohort does not use",
  "cohort ml holds 9 + 12 = 21; team-b is idle, so team-a's available is 21 and w (15) fits, borrowing 15 - 9 = 6 (cluster_queue.md example).",
  [cq("team-a", "ml", rg(D(9))), cq("team-b", "ml", rg(D(12)))], [], [pend("w", "team-a", 15)],
  E([A("w", borrowing=True)])))
S.append(sc("borrowing-limit-caps-potential", "A borrowing limit caps the largest admissible workload",
  "team-a borrowing_limit 1: potential = min(0 + 21, 9 + 1) = 10 < 11, so w can never fit: no_fit_exceeds_max_quota.",
  [cq("team-a", "ml", rg(D(9, b=1))), cq("team-b", "ml", rg(D(12)))], [], [pend("w", "team-a", 11)],
  E([], [], [N("w", "no_fit_exceeds_max_quota", "inadmissible")])))
S.append(sc("borrowing-limit-fits", "Borrowing up to the limit is allowed",
  "team-a borrowing_limit 1: available = min(21, 9 - 0 + 1) = 10 >= 10, so w (10) fits while borrowing 1.",
  [cq("team-a", "ml", rg(D(9, b=1))), cq("team-b", "ml", rg(D(12)))], [], [pend("w", "team-a", 10)],
  E([A("w", borrowing=True)])))
S.append(sc("lending-limit-hides-quota", "A lending limit keeps part of a queue's quota out of the cohort",
  "team-b nominal 12, lending_limit 1: it hides 12 - 1 = 11, the cohort holds 9 + 1 = 10, so team-a's w (11) exceeds its potential 0 + 10.",
  [cq("team-a", "ml", rg(D(9))), cq("team-b", "ml", rg(D(12, l=1)))], [], [pend("w", "team-a", 11)],
  E([], [], [N("w", "no_fit_exceeds_max_quota", "inadmissible")])))
S.append(sc("lending-limit-lent-part", "What is under the lending limit can still be borrowed",
  "cohort holds 9 + 1 = 10 (team-b lends 1 of 12); team-a's w (10) fits, borrowing 1.",
  [cq("team-a", "ml", rg(D(9))), cq("team-b", "ml", rg(D(12, l=1)))], [], [pend("w", "team-a", 10)],
  E([A("w", borrowing=True)])))
S.append(sc("cohort-own-quota", "A cohort's own quota is extra capacity for its queues",
  "cohort ml has 5 of its own: subtree = 5 + 4 = 9; team-a (nominal 4) admits w (9), borrowing 5.",
  [cq("team-a", "ml", rg(D(4)))], [], [pend("w", "team-a", 9)],
  E([A("w", borrowing=True)]), cohorts=[{"name": "ml", "parent": None, "resource_groups": rg(D(5)), "fair_weight": 1}]))
S.append(sc("preempt-in-cluster-queue", "A higher-priority workload preempts a lower one in its queue, and is not admitted in the same cycle",
  "team-a nominal 10, used 8 by low (priority 0); high (priority 10) needs 6 > 2 available but <= nominal, withinClusterQueue LowerPriority: removing low leaves 10 >= 6, so low is preempted (InClusterQueue) and high waits for it.",
  [cq("team-a", None, rg(D(10)), within="LowerPriority")], [adm("low", "team-a", 8)], [pend("high", "team-a", 6, prio=10)],
  E([], [P("low", "InClusterQueue")], [N("high", "waiting_for_preemption", "active")])))
S.append(sc("no-preemption-same-priority", "LowerPriority never preempts an equal priority",
  "same numbers with equal priorities: no candidate, so high is no_fit_no_candidates and (BestEffortFIFO) parked as inadmissible.",
  [cq("team-a", None, rg(D(10)), within="LowerPriority")], [adm("low", "team-a", 8)], [pend("high", "team-a", 6)],
  E([], [], [N("high", "no_fit_no_candidates", "inadmissible")])))
S.append(sc("reclaim-minimal-victim", "Reclaiming lent quota takes the fewest, most recently admitted workloads",
  "team-b (nominal 10) uses 8 + 7 = 15, borrowing 5; team-a (nominal 10, reclaim Any) needs 6 > 20 - 15 = 5. Candidates newest first: b2 (7): 20 - 8 = 12 >= 6 fits; b2 is InCohortReclamation.",
  [cq("team-a", "ml", rg(D(10)), reclaim="Any"), cq("team-b", "ml", rg(D(10)), reclaim="Any")],
  [adm("b1", "team-b", 8, reserved=-30), adm("b2", "team-b", 7, reserved=-20)], [pend("a1", "team-a", 6)],
  E([], [P("b2", "InCohortReclamation")], [N("a1", "waiting_for_preemption", "active")])))
S.append(sc("reclaim-fill-back", "Fill-back keeps a victim whose removal turned out unnecessary",
  "team-b uses 2 + 4 + 4 = 10 of nominal 6 (borrows 4); team-a needs 6 > 12 - 10 = 2. Removing b3 (2, newest) gives 4, then b2 (4) gives 8 >= 6; adding b3 back leaves 6 >= 6, so only b2 is preempted.",
  [cq("team-a", "ml", rg(D(6)), reclaim="Any"), cq("team-b", "ml", rg(D(6)), reclaim="Any")],
  [adm("b1", "team-b", 4, reserved=-30), adm("b2", "team-b", 4, reserved=-20), adm("b3", "team-b", 2, reserved=-10)],
  [pend("a1", "team-a", 6)],
  E([], [P("b2", "InCohortReclamation")], [N("a1", "waiting_for_preemption", "active")])))
S.append(sc("reclaim-while-borrowing", "borrowWithinCohort lets a borrowing preemptor evict lower-priority borrowers",
  "team-a nominal 4 needs 8 (it will borrow 4); team-b (nominal 10) uses 12. borrowWithinCohort LowerPriority and b1's priority 0 < 10: removing b1 leaves 14 >= 8, reason InCohortReclaimWhileBorrowing.",
  [cq("team-a", "ml", rg(D(4)), reclaim="LowerPriority", borrow="LowerPriority"), cq("team-b", "ml", rg(D(10)))],
  [adm("b1", "team-b", 12)], [pend("a1", "team-a", 8, prio=10)],
  E([], [P("b1", "InCohortReclaimWhileBorrowing")], [N("a1", "waiting_for_preemption", "active")])))
S.append(sc("borrow-within-cohort-threshold", "Above maxPriorityThreshold a borrower's workload cannot be taken while borrowing",
  "as before, but max_priority_threshold -1 and b1 has priority 0 > -1: only reclaim without borrowing is allowed, and team-a cannot fit 8 within its nominal 4, so no candidates.",
  [cq("team-a", "ml", rg(D(4)), reclaim="LowerPriority", borrow="LowerPriority", thr=-1), cq("team-b", "ml", rg(D(10)))],
  [adm("b1", "team-b", 12)], [pend("a1", "team-a", 8, prio=10)],
  E([], [], [N("a1", "no_fit_no_candidates", "inadmissible")])))
S.append(sc("over-nominal-needs-borrow-within-cohort", "Without borrowWithinCohort, a request above nominal cannot preempt in a flat cohort",
  "team-a nominal 4 needs 8 > 14 - 12 = 2 available; 8 > nominal and the cohort has no room, so the assigner returns NoFit without simulating preemption.",
  [cq("team-a", "ml", rg(D(4)), reclaim="Any"), cq("team-b", "ml", rg(D(10)))],
  [adm("b1", "team-b", 12)], [pend("a1", "team-a", 8, prio=10)],
  E([], [], [N("a1", "no_fit", "inadmissible")])))
S.append(sc("strict-fifo-holds-back-quota", "A blocked StrictFIFO head holds back its quota so that others cannot borrow it",
  "team-a (StrictFIFO, nominal 10, used 6) head big needs 8 <= nominal but only 4 is free and nothing may be preempted: it reserves min(8, 10 - 6) = 4. team-b's w (4, nominal 0) would borrow those 4 but no longer fits.",
  [cq("team-a", "ml", rg(D(10)), strategy="StrictFIFO"), cq("team-b", "ml", rg(D(0)))],
  [adm("a0", "team-a", 6)], [pend("big", "team-a", 8, prio=10), pend("small", "team-a", 2), pend("w", "team-b", 4)],
  E([], [], [N("big", "no_fit_no_candidates", "active"), N("w", "skipped_no_longer_fits", "active")])))
S.append(sc("reclaim-any-does-not-hold-back", "A queue that can always reclaim does not hold back quota",
  "as before with reclaimWithinCohort Any on team-a: big finds no candidates but reserves nothing, so team-b's w borrows the 4 idle units.",
  [cq("team-a", "ml", rg(D(10)), reclaim="Any", strategy="StrictFIFO"), cq("team-b", "ml", rg(D(0)))],
  [adm("a0", "team-a", 6)], [pend("big", "team-a", 8, prio=10), pend("w", "team-b", 4)],
  E([A("w", borrowing=True)], [], [N("big", "no_fit_no_candidates", "active")])))
S.append(sc("non-borrowing-first", "Entries that do not borrow are processed before borrowing ones, whatever their priority",
  "cohort holds 5 + 5; a1 (priority 100) needs 6 and would borrow 1; b1 (priority 0) needs 5 within nominal. b1 goes first and is admitted; then 10 - 5 = 5 < 6, so a1 is skipped.",
  [cq("team-a", "ml", rg(D(5))), cq("team-b", "ml", rg(D(5)))], [], [pend("a1", "team-a", 6, prio=100), pend("b1", "team-b", 5)],
  E([A("b1")], [], [N("a1", "skipped_no_longer_fits", "active")])))
S.append(sc("one-head-per-queue", "Only the head of each queue is considered in a cycle",
  "team-a has room for both w1 (3) and w2 (3) but admits one workload per cycle: w1, the higher priority; w2 waits.",
  [cq("team-a", None, rg(D(10)))], [], [pend("w2", "team-a", 3), pend("w1", "team-a", 3, prio=5)],
  E([A("w1")])))
S.append(sc("priority-then-fifo-heads", "Equal priority heads are taken in creation order",
  "w-old (created -20) heads the queue before w-new (created -5); unset created_at would sort first of all.",
  [cq("team-a", None, rg(D(10)))], [], [pend("w-new", "team-a", 3, created=-5), pend("w-old", "team-a", 3, created=-20)],
  E([A("w-old")])))
S.append(sc("flavor-next-when-no-candidates", "Flavors are tried in order; one that would need impossible preemption is skipped",
  "spot: nominal 4, used 4, w (4) would have to preempt but nothing may be preempted (NoCandidates), so the assigner tries on-demand: 8 free, fits.",
  [cq("team-a", None, rg([("spot", {"cpu": q(4)}), ("on-demand", {"cpu": q(8)})]))],
  [adm("s0", "team-a", 4, flavor="spot")], [pend("w", "team-a", 4)],
  E([A("w", flavor="on-demand")]), flavors=("spot", "on-demand")))
S.append(sc("fungibility-stop-at-borrowing", "whenCanBorrow MayStopSearch takes the first flavor that fits, even borrowing",
  "team-a: f1 nominal 2, f2 nominal 8; team-b lends 10 of f1. w (4) fits f1 by borrowing 2 (level 1) and the search stops there.",
  [cq("team-a", "ml", rg([("f1", {"cpu": q(2)}), ("f2", {"cpu": q(8)})])), cq("team-b", "ml", rg([("f1", {"cpu": q(10)})]))],
  [], [pend("w", "team-a", 4)], E([A("w", flavor="f1", borrowing=True)]), flavors=("f1", "f2")))
S.append(sc("fungibility-try-next-on-borrow", "whenCanBorrow TryNextFlavor prefers a later flavor that fits without borrowing",
  "same queues, team-a with whenCanBorrow TryNextFlavor: f1 fits only by borrowing, f2 fits within nominal (8), so f2 wins.",
  [cq("team-a", "ml", rg([("f1", {"cpu": q(2)}), ("f2", {"cpu": q(8)})]), fung={"when_can_borrow": "TryNextFlavor", "when_can_preempt": "TryNextFlavor", "preference": None}),
   cq("team-b", "ml", rg([("f1", {"cpu": q(10)})]))],
  [], [pend("w", "team-a", 4)], E([A("w", flavor="f2")]), flavors=("f1", "f2")))
S.append(sc("classical-fifo-across-queues", "Without fair sharing, equally borrowing entries go in FIFO order",
  "cohort 4 + 4 + 8 = 16, used 8 (team-a) + 4 (team-b) = 12, 4 free; a1 (created -20) and b1 (created -10) each need 3 and borrow (level 1). a1 is older: admitted; b1 then finds 1 < 3.",
  [cq("team-a", "ml", rg(D(4))), cq("team-b", "ml", rg(D(4))), cq("team-c", "ml", rg(D(8)))],
  [adm("a0", "team-a", 8), adm("b0", "team-b", 4)], [pend("a1", "team-a", 3, created=-20), pend("b1", "team-b", 3, created=-10)],
  E([A("a1", borrowing=True)], [], [N("b1", "skipped_no_longer_fits", "active")])))
S.append(sc("fair-sharing-tournament", "With fair sharing the queue with the lower dominant resource share goes first",
  "same state with fair sharing: with its entry, team-a would borrow 11 - 4 = 7 of 16 (share 437.5), team-b 7 - 4 = 3 (187.5). b1 wins the tournament and is admitted; a1 then finds 1 < 3.",
  [cq("team-a", "ml", rg(D(4))), cq("team-b", "ml", rg(D(4))), cq("team-c", "ml", rg(D(8)))],
  [adm("a0", "team-a", 8), adm("b0", "team-b", 4)], [pend("a1", "team-a", 3, created=-20), pend("b1", "team-b", 3, created=-10)],
  E([A("b1", borrowing=True)], [], [N("a1", "skipped_no_longer_fits", "active")]), fair=True))
S.append(sc("fair-sharing-weight", "A larger fair-sharing weight lowers a queue's share",
  "as before, team-a with weight 4: its share is 437.5 / 4 = 109.4 < 187.5, so a1 goes first.",
  [cq("team-a", "ml", rg(D(4)), weight=4), cq("team-b", "ml", rg(D(4))), cq("team-c", "ml", rg(D(8)))],
  [adm("a0", "team-a", 8), adm("b0", "team-b", 4)], [pend("a1", "team-a", 3, created=-20), pend("b1", "team-b", 3, created=-10)],
  E([A("a1", borrowing=True)], [], [N("b1", "skipped_no_longer_fits", "active")]), fair=True))
S.append(sc("fair-sharing-reclaim-within-nominal", "Fair sharing: a preemptor within its nominal quota reclaims unconditionally",
  "team-a uses 4 + 4 + 2 = 10 of nominal 6; team-b's b1 needs 6 = its nominal, so after adding it team-b does not borrow: candidates are taken newest first (a3 2, a2 4 gives 8 >= 6), fill-back keeps a3; a2 is InCohortReclamation.",
  [cq("team-a", "ml", rg(D(6)), reclaim="Any"), cq("team-b", "ml", rg(D(6)), reclaim="Any")],
  [adm("a1", "team-a", 4, reserved=-30), adm("a2", "team-a", 4, reserved=-20), adm("a3", "team-a", 2, reserved=-10)],
  [pend("b1", "team-b", 6)],
  E([], [P("a2", "InCohortReclamation")], [N("b1", "waiting_for_preemption", "active")]), fair=True))
S.append(sc("fair-sharing-equal-shares-no-preemption", "Fair sharing: a borrowing preemptor does not evict from a queue whose share it would reach",
  "cohort 4 + 4 + 4 = 12, all used: team-a 8 (borrows 4), team-b 4, team-c idle. b1 (4) would make team-b borrow 4: share 4*1000/12 = 333.3, team-a's is 333.3 too; removing a2 drops it to 0, so S2-a (333.3 <= 0) and S2-b (333.3 < 333.3) fail: no candidates.",
  [cq("team-a", "ml", rg(D(4)), reclaim="Any"), cq("team-b", "ml", rg(D(4)), reclaim="Any"), cq("team-c", "ml", rg(D(4)))],
  [adm("a1", "team-a", 4, reserved=-30), adm("a2", "team-a", 4, reserved=-20), adm("b0", "team-b", 4, reserved=-40)],
  [pend("b1", "team-b", 4)],
  E([], [], [N("b1", "no_fit_no_candidates", "inadmissible")]), fair=True))
S.append(sc("fair-sharing-preempt-larger-share", "Fair sharing: a borrowing preemptor evicts from the queue with the largest share",
  "team-a uses 4 + 4 + 2 = 10 (borrows 6, share 500), team-b 2, team-c 0 of 4 each. b1 (4) gives team-b share 2*1000/12 = 166.7. a3 passes S2-a (166.7 <= 333.3) but 2 free < 4; a2 and a1 fail S2-a (share 0 after); S2-b takes a2 (166.7 < 333.3); fill-back returns a3 (12 - 8 = 4 >= 4). a2 is InCohortFairSharing.",
  [cq("team-a", "ml", rg(D(4)), reclaim="Any"), cq("team-b", "ml", rg(D(4)), reclaim="Any"), cq("team-c", "ml", rg(D(4)))],
  [adm("a1", "team-a", 4, reserved=-30), adm("a2", "team-a", 4, reserved=-20), adm("a3", "team-a", 2, reserved=-10), adm("b0", "team-b", 2, reserved=-40)],
  [pend("b1", "team-b", 4)],
  E([], [P("a2", "InCohortFairSharing")], [N("b1", "waiting_for_preemption", "active")]), fair=True))
S.append(sc("lower-or-newer-equal-priority", "LowerOrNewerEqualPriority preempts an equal-priority workload created later",
  "team-a nominal 10, used 8 by w-new (created -5); w-old (created -50, same priority) needs 6 > 2: the policy allows equal priority when the victim is newer, so w-new is preempted InClusterQueue.",
  [cq("team-a", None, rg(D(10)), within="LowerOrNewerEqualPriority")], [adm("w-new", "team-a", 8, created=-5)], [pend("w-old", "team-a", 6, created=-50)],
  E([], [P("w-new", "InClusterQueue")], [N("w-old", "waiting_for_preemption", "active")])))
HIER = [{"name": "root", "parent": None, "resource_groups": [], "fair_weight": 1},
        {"name": "left", "parent": "root", "resource_groups": [], "fair_weight": 1},
        {"name": "right", "parent": "root", "resource_groups": [], "fair_weight": 1}]
S.append(sc("hierarchical-reclaim", "In a cohort tree, quota lent across subtrees is reclaimed from the borrowing subtree",
  "root > left (team-a 4, team-b 4), right (team-c 4): team-c uses 6 + 4 = 10 of the tree's 12. team-a needs 4 <= nominal, only 2 free; team-a's request fits its own quota (hierarchical advantage), so team-c's newest workload c2 (4) is taken: 12 - 6 = 6 >= 4.",
  [cq("team-a", "left", rg(D(4)), reclaim="Any"), cq("team-b", "left", rg(D(4))), cq("team-c", "right", rg(D(4)))],
  [adm("c1", "team-c", 6, reserved=-30), adm("c2", "team-c", 4, reserved=-20)], [pend("a1", "team-a", 4)],
  E([], [P("c2", "InCohortReclamation")], [N("a1", "waiting_for_preemption", "active")]), cohorts=HIER))
S.append(sc("hierarchical-borrowing-level", "The nearer the quota, the earlier the entry: borrowing levels are subtree heights",
  "same tree, nothing admitted: a1 (priority 9) needs 10, more than subtree left holds (8), so it borrows from root (level 2); b1 (priority 0) needs 6, which left can give (level 1). b1 goes first and is admitted; then 12 - 6 = 6 < 10 and a1 is skipped.",
  [cq("team-a", "left", rg(D(4))), cq("team-b", "left", rg(D(4))), cq("team-c", "right", rg(D(4)))],
  [], [pend("a1", "team-a", 10, prio=9), pend("b1", "team-b", 6)],
  E([A("b1", borrowing=True)], [], [N("a1", "skipped_no_longer_fits", "active")]), cohorts=HIER))
json.dump({"format": "policy-engine-scheduling-scenarios/v1", "units": "cpu in cores; times in seconds relative to the cycle", "scenarios": S},
          open("scenarios/rules.json", "w"), indent=1)
print(len(S))
