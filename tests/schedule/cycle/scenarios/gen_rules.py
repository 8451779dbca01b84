# Writes scenarios/rules.json (run from tests/schedule/cycle). Each scenario: one rule of docs/scheduling.md,
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

# --- helpers for several resources, flavors and pod sets ----------------------
KUEUE = {"repo": "kubernetes-sigs/kueue", "commit": "ff69552e79ad21652c36caa97038382e55625cf7"}
def src(path, case):
    return dict(KUEUE, path=path, case=case)
SCHED, PREEMPT, FAIR, FSCHED, RECOMP = ("pkg/scheduler/scheduler_test.go", "pkg/scheduler/preemption/preemption_test.go",
    "pkg/scheduler/preemption/preemption_fair_test.go", "pkg/scheduler/scheduler_fs_test.go",
    "pkg/scheduler/scheduler_recompute_preemption_test.go")
def ps(name="main", count=1, req=None):
    return {"name": name, "count": count, "requests": req or {}}
def PW(name, queue, sets, prio=0, created=-10):
    return {"name": name, "uid": name, "cluster_queue": queue, "priority": prio, "created_at": created, "pod_sets": sets}
def AW(name, queue, sets, flavors, prio=0, reserved=-60, created=-100):
    return {"name": name, "uid": name, "cluster_queue": queue, "priority": prio, "created_at": created,
            "quota_reserved_at": reserved, "pod_sets": sets, "flavors": flavors}
def AC(name, queue, cpu, flavor="default", prio=0, reserved=-60, res="cpu"):
    """An admitted single-pod workload of `cpu` units of `res` in `flavor`."""
    return AW(name, queue, [ps(req={res: cpu})], {"main": {res: flavor}}, prio, reserved)
def PC(name, queue, cpu, prio=0, created=-10, res="cpu"):
    return PW(name, queue, [ps(req={res: cpu})], prio, created)
def AF(name, flavors, borrowing=False):
    return {"name": name, "flavors": flavors, "borrowing": borrowing}
def G(flavors, res=("cpu",)):
    """One resource group: flavors = [(name, {resource: quota})]."""
    return {"covered_resources": list(res), "flavors": [{"name": f, "quotas": qs} for f, qs in flavors]}
def add(s, source=None):
    if source: s["source"] = source
    S.append(s)
TRY = {"when_can_borrow": "TryNextFlavor", "when_can_preempt": "TryNextFlavor", "preference": None}
STOP = {"when_can_borrow": "MayStopSearch", "when_can_preempt": "MayStopSearch", "preference": None}

# --- flavor assignment: fungibility and preference ---------------------------
GPU2 = [("a100", {"gpu": q(3)}), ("h100", {"gpu": q(3)})]
add(sc("multi-flavor-preemption", "Each pod set preempts in the flavor it is assigned, and both victims go in one cycle",
  "gpu flavors a100 (3) and h100 (3), each holding one priority-0 workload of 2. train (priority 5): launcher 1x2 gets a100 "
  "by preempting old-a100 (h100 is no better); workers 2x1 cannot also use a100 (2 + 2 > 3), so they get h100 by preempting old-h100. "
  "Both victims are needed: after old-a100 alone h100 has 1 free < 2.",
  [cq("team-a", None, [G(GPU2, ("gpu",))], within="LowerPriority")],
  [AC("old-a100", "team-a", 2, "a100", res="gpu", reserved=-50), AC("old-h100", "team-a", 2, "h100", res="gpu", reserved=-40)],
  [PW("train", "team-a", [ps("launcher", 1, {"gpu": 2}), ps("workers", 2, {"gpu": 1})], prio=5)],
  E([], [P("old-a100", "InClusterQueue"), P("old-h100", "InClusterQueue")], [N("train", "waiting_for_preemption", "active")]),
  flavors=("a100", "h100")), src(PREEMPT, "each podset preempts a different flavor"))
add(sc("preempt-only-in-assigned-flavor", "Only workloads in the flavor that needs preemption are candidates",
  "spot (4) and on-demand (4) each hold a priority-0 workload of 4. hi (priority 5, 4) finds spot full and its candidate s1; "
  "on-demand would need preemption too and is no better, so spot is kept. o1 uses only on-demand and is not a candidate: s1 alone is preempted.",
  [cq("team-a", None, rg([("spot", {"cpu": q(4)}), ("on-demand", {"cpu": q(4)})]), within="LowerPriority")],
  [AC("s1", "team-a", 4, "spot"), AC("o1", "team-a", 4, "on-demand", reserved=-30)], [PC("hi", "team-a", 4, prio=5)],
  E([], [P("s1", "InClusterQueue")], [N("hi", "waiting_for_preemption", "active")]), flavors=("spot", "on-demand")))
add(sc("fungibility-try-next-on-preempt", "whenCanPreempt TryNextFlavor admits in a later flavor instead of preempting",
  "f1 (4) is full with low (priority 0); hi (priority 5, 4) could preempt low in f1, but whenCanPreempt TryNextFlavor tries f2, "
  "which has 4 free: a fit beats a preemption, so hi is admitted to f2 and nothing is preempted.",
  [cq("team-a", None, rg([("f1", {"cpu": q(4)}), ("f2", {"cpu": q(4)})]), within="LowerPriority")],
  [AC("low", "team-a", 4, "f1")], [PC("hi", "team-a", 4, prio=5)],
  E([A("hi", flavor="f2")]), flavors=("f1", "f2")), src(SCHED, "admit to second flavor when first needs preemption; WhenCanPreempt: TryNextFlavor"))
add(sc("fungibility-stop-at-preempt", "whenCanPreempt MayStopSearch preempts in the first flavor where preemption works",
  "same state with whenCanPreempt MayStopSearch: f1 gives preempt mode and the search stops there, so low is preempted "
  "although f2 has room.",
  [cq("team-a", None, rg([("f1", {"cpu": q(4)}), ("f2", {"cpu": q(4)})]), within="LowerPriority",
      fung={"when_can_borrow": "MayStopSearch", "when_can_preempt": "MayStopSearch", "preference": None})],
  [AC("low", "team-a", 4, "f1")], [PC("hi", "team-a", 4, prio=5)],
  E([], [P("low", "InClusterQueue")], [N("hi", "waiting_for_preemption", "active")]), flavors=("f1", "f2")))
PREF_CQS = lambda pref: [
  cq("team-a", "ml", rg([("f1", {"cpu": q(4)}), ("f2", {"cpu": q(0)})]), within="LowerPriority",
     fung={"when_can_borrow": "TryNextFlavor", "when_can_preempt": "TryNextFlavor", "preference": pref}),
  cq("team-b", "ml", rg([("f2", {"cpu": q(8)})]))]
add(sc("preference-borrowing-over-preemption", "preference BorrowingOverPreemption: a borrowing fit beats a preemption",
  "team-a: f1 nominal 4 full with low; f2 nominal 0 but team-b lends 8. hi (priority 5, 4): f1 = preempt low (borrowing level 0), "
  "f2 = fit borrowing 4 (level 1). BorrowingOverPreemption ranks fit above preempt: hi is admitted to f2, borrowing.",
  PREF_CQS("BorrowingOverPreemption"), [AC("low", "team-a", 4, "f1")], [PC("hi", "team-a", 4, prio=5)],
  E([A("hi", flavor="f2", borrowing=True)]), flavors=("f1", "f2")), src(SCHED, "BorrowingOverPreemption preference: borrow in second flavor instead of preempting in first"))
add(sc("preference-preemption-over-borrowing", "preference PreemptionOverBorrowing: staying within nominal beats borrowing",
  "same state with PreemptionOverBorrowing: the lower borrowing level wins first, so f1 (preempt, level 0) beats f2 (fit, level 1): "
  "low is preempted and hi waits for it.",
  PREF_CQS("PreemptionOverBorrowing"), [AC("low", "team-a", 4, "f1")], [PC("hi", "team-a", 4, prio=5)],
  E([], [P("low", "InClusterQueue")], [N("hi", "waiting_for_preemption", "active")]), flavors=("f1", "f2")),
  src(SCHED, "PreemptionOverBorrowing preference: preempt in first flavor instead of borrowing in second"))
add(sc("prefer-reclaim-over-own-preemption", "Between two flavors that both need preemption, reclaiming from a borrower beats preempting in the own queue",
  "team-a: on-demand 10 (a1 uses 5), spot 10 (team-b borrows 5 of it with b1). hi (priority 100, 6): on-demand needs to preempt a1 "
  "in its own queue (mode preempt), spot needs to reclaim b1 from team-b (mode reclaim, ranked higher). whenCanPreempt TryNextFlavor "
  "looks at both and picks spot: b1 is preempted InCohortReclamation.",
  [cq("team-a", "ml", rg([("on-demand", {"gpu": q(10)}), ("spot", {"gpu": q(10)})], ("gpu",)), within="LowerPriority", reclaim="LowerPriority"),
   cq("team-b", "ml", rg([("on-demand", {"gpu": q(0)}), ("spot", {"gpu": q(0)})], ("gpu",)), within="LowerPriority", reclaim="LowerPriority")],
  [AC("a1", "team-a", 5, "on-demand", prio=50, res="gpu"), AC("b1", "team-b", 5, "spot", prio=50, res="gpu")],
  [PC("hi", "team-a", 6, prio=100, res="gpu")],
  E([], [P("b1", "InCohortReclamation")], [N("hi", "waiting_for_preemption", "active")]), flavors=("on-demand", "spot")),
  src(SCHED, "prefer reclamation over cq priority based preemption"))
add(sc("resource-groups-independent", "Resource groups choose their flavors independently; resources of one group share a flavor",
  "group 1 covers cpu and memory with flavors small (cpu 4, memory 8) then big (cpu 16, memory 64); group 2 covers gpu with a100 (2). "
  "w (2 pods of 3 cpu, 4 memory, 1 gpu) needs cpu 6 > 4 in small, so cpu and memory both go to big; gpu 2 fits a100.",
  [cq("team-a", None, [G([("small", {"cpu": q(4), "memory": q(8)}), ("big", {"cpu": q(16), "memory": q(64)})], ("cpu", "memory")),
                       G([("a100", {"gpu": q(2)})], ("gpu",))])],
  [], [PW("w", "team-a", [ps("main", 2, {"cpu": 3, "memory": 4, "gpu": 1})])],
  E([AF("w", {"main": {"cpu": "big", "memory": "big", "gpu": "a100"}})]), flavors=("small", "big", "a100")))
add(sc("uncovered-resource-no-fit", "A resource the queue does not cover cannot be admitted; a zero request for it is ignored",
  "team-a covers cpu only. w1 asks 1 gpu: no resource group covers gpu, so it can never fit (no_fit, inadmissible). "
  "In team-b, w2 asks 0 gpu with its cpu: the zero request is skipped and w2 is admitted.",
  [cq("team-a", None, rg(D(4))), cq("team-b", None, rg(D(4)))], [],
  [PW("w1", "team-a", [ps(req={"cpu": 1, "gpu": 1})]), PW("w2", "team-b", [ps(req={"cpu": 1, "gpu": 0})])],
  E([A("w2")], [], [N("w1", "no_fit", "inadmissible")])),
  src(SCHED, "admit workload with zero-quantity request for resource not in ClusterQueue"))
add(sc("pods-resource-counted", "A queue that covers `pods` counts one per pod",
  "team-a covers cpu (10) and pods (3) in one group, with a0 holding 2 pods. w asks 2 pods of 1 cpu: cpu 2 fits, but pods 2 > 3 - 2 = 1 "
  "and nothing may be preempted, so w does not fit.",
  [cq("team-a", None, [G([("default", {"cpu": q(10), "pods": q(3)})], ("cpu", "pods"))])],
  [AW("a0", "team-a", [ps("main", 2, {"cpu": 1, "pods": 1})], {"main": {"cpu": "default", "pods": "default"}})],
  [PW("w", "team-a", [ps("main", 2, {"cpu": 1})])],
  E([], [], [N("w", "no_fit_no_candidates", "inadmissible")])))

add(sc("pods-not-in-preemption-search", "The `pods` count a queue adds is checked when the entry is processed, but not by the preemption search",
  "team-a covers cpu (10) and pods (3), full with a (8 cpu), b (1) and c (1), one pod each, priority 0. h (priority 5) asks 2 pods "
  "of 0.5 cpu: cpu 1 and pods 2. Kueue gives the preemption search the workload's own requests, without pods: c (newest) frees the "
  "1 cpu and is the whole victim set; processing then checks pods too (1 free < 2), so h is skipped and nothing is preempted. "
  "Kueue does the same every cycle.",
  [cq("team-a", None, [G([("default", {"cpu": q(10), "pods": q(3)})], ("cpu", "pods"))], within="LowerPriority")],
  [AW(n, "team-a", [ps("main", 1, {"cpu": c, "pods": 1})], {"main": {"cpu": "default", "pods": "default"}}, reserved=r)
   for n, c, r in (("a", 8, -30), ("b", 1, -20), ("c", 1, -10))],
  [PW("h", "team-a", [ps("main", 2, {"cpu": "500m"})], prio=5)],
  E([], [], [N("h", "skipped_no_longer_fits", "active")])),
  dict(KUEUE, path="pkg/scheduler/flavorassigner/flavorassigner.go", case="Assignment.TotalRequestsFor (preemption usage) vs Assignment.Usage (fits)"))

# --- classical preemption -------------------------------------------------------
add(sc("preempt-several-lowest-first", "In-queue preemption takes the lowest priorities first, as many as needed",
  "team-a (6) holds low (priority -1, 2), mid (0, 2), top (1, 2). in (priority 1) needs 3: candidates are low then mid "
  "(top has the preemptor's priority); removing low leaves 2 < 3, removing mid too leaves 4: both are preempted.",
  [cq("team-a", None, rg(D(6)), within="LowerPriority")],
  [AC("low", "team-a", 2, prio=-1), AC("mid", "team-a", 2), AC("top", "team-a", 2, prio=1)], [PC("in", "team-a", 3, prio=1)],
  E([], [P("low", "InClusterQueue"), P("mid", "InClusterQueue")], [N("in", "waiting_for_preemption", "active")])),
  src(PREEMPT, "preempt multiple"))
add(sc("minimal-set-skips-low-priority", "The minimal set keeps a low-priority victim whose removal turns out unnecessary",
  "team-a (6) holds low (priority -1, 1), mid (0, 1), top (1, 3): 1 free. in (priority 1) needs 2; candidates are low then "
  "mid (lower priority first). low alone frees 1 more, 2 >= 2, so only low is preempted and mid is never needed.",
  [cq("team-a", None, rg(D(6)), within="LowerPriority")],
  [AC("low", "team-a", 1, prio=-1), AC("mid", "team-a", 1), AC("top", "team-a", 3, prio=1)], [PC("in", "team-a", 2, prio=1)],
  E([], [P("low", "InClusterQueue")], [N("in", "waiting_for_preemption", "active")])))
add(sc("fill-back-keeps-earlier-victim", "Fill-back puts back an earlier victim when a later one alone is enough",
  "team-a (6) is full: low (priority -1, 1), mid (0, 5). in (priority 1) needs 5: removing low frees 1, removing mid too frees 6 "
  "and in fits; putting low back leaves 5 >= 5, so only mid is preempted.",
  [cq("team-a", None, rg(D(6)), within="LowerPriority")],
  [AC("low", "team-a", 1, prio=-1), AC("mid", "team-a", 5)], [PC("in", "team-a", 5, prio=1)],
  E([], [P("mid", "InClusterQueue")], [N("in", "waiting_for_preemption", "active")])),
  src(PREEMPT, "minimal set excludes low priority"))
add(sc("not-enough-low-priority", "When every lower-priority workload together is not enough, nothing is preempted",
  "team-a (6): low (priority -1, 3) and mid (0, 3). in (priority 0) needs 4: only low is a candidate and frees 3 < 4, "
  "so no victim set works (no_fit_no_candidates).",
  [cq("team-a", None, rg(D(6)), within="LowerPriority")],
  [AC("low", "team-a", 3, prio=-1), AC("mid", "team-a", 3)], [PC("in", "team-a", 4)],
  E([], [], [N("in", "no_fit_no_candidates", "inadmissible")])), src(PREEMPT, "not enough low priority workloads"))
add(sc("within-cluster-queue-never", "withinClusterQueue Never protects a queue's own workloads",
  "team-a (4) full with low (priority 0); hi (priority 9, 4) may not preempt in its own queue: no_fit_no_candidates.",
  [cq("team-a", None, rg(D(4)))], [AC("low", "team-a", 4)], [PC("hi", "team-a", 4, prio=9)],
  E([], [], [N("hi", "no_fit_no_candidates", "inadmissible")])),
  src(PREEMPT, "can't preempt workloads in ClusterQueue for withinClusterQueue=Never"))
add(sc("reclaim-lower-priority-only", "reclaimWithinCohort LowerPriority does not reclaim from an equal priority borrower",
  "team-b (nominal 4) borrows 4 with b1 (priority 0); team-a (4) needs its 4 back for a1 (priority 0). LowerPriority allows only "
  "strictly lower priorities, so b1 is not a candidate: no_fit_no_candidates.",
  [cq("team-a", "ml", rg(D(4)), reclaim="LowerPriority"), cq("team-b", "ml", rg(D(4)))],
  [AC("b0", "team-b", 4, reserved=-70), AC("b1", "team-b", 4)], [PC("a1", "team-a", 4)],
  E([], [], [N("a1", "no_fit_no_candidates", "inadmissible")])),
  src(PREEMPT, "do not reclaim borrowed quota from same priority for withinCohort=ReclaimFromLowerPriority"))
add(sc("reclaim-only-from-borrowing-queues", "Reclaim takes only from queues that borrow; one within its nominal is safe",
  "cohort: team-a 4, team-b 4, team-c 4. team-b uses 4 (its nominal), team-c uses 8 (borrows 4) with c1, c2. a1 (4) reclaims: "
  "team-b's b1 is not a candidate; c2 (newest) is taken: InCohortReclamation.",
  [cq("team-a", "ml", rg(D(4)), reclaim="Any"), cq("team-b", "ml", rg(D(4))), cq("team-c", "ml", rg(D(4)))],
  [AC("b1", "team-b", 4, reserved=-10), AC("c1", "team-c", 4, reserved=-50), AC("c2", "team-c", 4, reserved=-40)],
  [PC("a1", "team-a", 4)],
  E([], [P("c2", "InCohortReclamation")], [N("a1", "waiting_for_preemption", "active")])),
  src(PREEMPT, "not enough workloads borrowing"))
add(sc("reclaim-stops-when-borrower-back-in-nominal", "A borrower's workloads stop being candidates once it is back within its nominal quota",
  "team-b (nominal 2) uses 1 + 1 + 1 + 1 = 4 (borrows 2); team-a (nominal 4) needs 4 with 2 free: it takes b4 then b3 "
  "(newest first): 4 free, fits. b2 and b1 are never needed, and team-b, now at 2 = nominal, would not give more.",
  [cq("team-a", "ml", rg(D(4)), reclaim="Any"), cq("team-b", "ml", rg(D(2)))],
  [AC("b1", "team-b", 1, reserved=-40), AC("b2", "team-b", 1, reserved=-30), AC("b3", "team-b", 1, reserved=-20), AC("b4", "team-b", 1, reserved=-10)],
  [PC("a1", "team-a", 4)],
  E([], [P("b3", "InCohortReclamation"), P("b4", "InCohortReclamation")], [N("a1", "waiting_for_preemption", "active")])))
add(sc("reclaim-before-own-queue", "Candidates in other queues come before the preemptor's own queue",
  "team-a (6) runs own (priority 0, 2); team-b (0) borrows 4 with b1 (priority 0). a1 (priority 5, 6) needs 6 with 0 free: "
  "candidates are b1 (other queue first) then own; b1 frees 4 < 6, own frees 2 more: both are preempted, b1 InCohortReclamation, "
  "own InClusterQueue.",
  [cq("team-a", "ml", rg(D(6)), within="LowerPriority", reclaim="Any"), cq("team-b", "ml", rg(D(0)))],
  [AC("own", "team-a", 2, reserved=-10), AC("b1", "team-b", 4, reserved=-50)], [PC("a1", "team-a", 6, prio=5)],
  E([], [P("b1", "InCohortReclamation"), P("own", "InClusterQueue")], [N("a1", "waiting_for_preemption", "active")])),
  src(PREEMPT, "preempt from all ClusterQueues in cohort"))
add(sc("reclaim-from-lender-with-lending-limit", "A lending limit keeps what a queue hides; only what it lends counts in the cohort",
  "team-a (nominal 6, lending limit 4) hides 2, team-b (nominal 6, lending limit 2) hides 4; the cohort holds 4 + 2 = 6. "
  "team-b runs 10: 4 in its hidden part and 6, the whole cohort, borrowed. a1 (4) finds its hidden 2 + 0 = 2 < 4 and is within "
  "nominal: team-b's newest, b2 (6), is reclaimed, leaving 2 + 6 = 8 >= 4.",
  [cq("team-a", "ml", rg(D(6, l=4)), reclaim="LowerPriority"), cq("team-b", "ml", rg(D(6, l=2)))],
  [AC("b1", "team-b", 4, prio=-1, reserved=-50), AC("b2", "team-b", 6, prio=-1, reserved=-40)], [PC("a1", "team-a", 4)],
  E([], [P("b2", "InCohortReclamation")], [N("a1", "waiting_for_preemption", "active")])),
  src(PREEMPT, "reclaim quota from lender"))
add(sc("lending-limit-caps-reclaim", "A request above what the queue can reach with lending limits cannot preempt at all",
  "same queues, nothing admitted in team-a: team-a can reach at most its 2 hidden + the cohort's 6 = 8; a1 asks 9: "
  "no_fit_exceeds_max_quota, without looking for victims.",
  [cq("team-a", "ml", rg(D(6, l=4)), reclaim="LowerPriority"), cq("team-b", "ml", rg(D(6, l=2)))],
  [AC("b1", "team-b", 10, prio=-1)], [PC("a1", "team-a", 9)],
  E([], [], [N("a1", "no_fit_exceeds_max_quota", "inadmissible")])),
  src(PREEMPT, "cannot preempt from other ClusterQueues if exceeds requestable quota including lending limit"))

# --- borrowWithinCohort ------------------------------------------------------------
BWC = lambda n, within="Never": cq(n, "shared", rg(D(1, b=12)), within=within, reclaim="LowerPriority", borrow="LowerPriority", thr=0)
add(sc("borrow-within-cohort-threshold-blocks-while-borrowing", "Above maxPriorityThreshold a victim may only be taken if the preemptor then stops borrowing",
  "cohort: team-x 1, team-y 1, pool 10 = 12, all used by team-y's y-mid (priority 1, borrowing 11). x1 (priority 5) needs 2 > "
  "team-x's nominal 1, so it borrows even after any preemption; y-mid is above the threshold 0 and may only be taken by reclaim "
  "without borrowing, which cannot help: no_fit_no_candidates.",
  [BWC("team-x"), BWC("team-y"), cq("pool", "shared", rg(D(10)))],
  [AC("y-mid", "team-y", 12, prio=1)], [PC("x1", "team-x", 2, prio=5)],
  E([], [], [N("x1", "no_fit_no_candidates", "inadmissible")])),
  src(PREEMPT, "use BorrowWithinCohort; don't allow preempting a lower-priority workload with priority above MaxPriorityThreshold, if borrowing is required even after the preemption"))
add(sc("borrow-within-cohort-threshold-ok-without-borrowing", "Above maxPriorityThreshold a victim may be taken when the preemptor ends within its nominal quota",
  "same cohort, full with y-mid (priority 1 > threshold 0). x1 (priority 5) needs 1 = team-x's nominal: its request fits its own "
  "quota, so it reclaims y-mid without borrowing, which the threshold allows (InCohortReclamation).",
  [BWC("team-x"), BWC("team-y"), cq("pool", "shared", rg(D(10)))],
  [AC("y-mid", "team-y", 12, prio=1)], [PC("x1", "team-x", 1, prio=5)],
  E([], [P("y-mid", "InCohortReclamation")], [N("x1", "waiting_for_preemption", "active")])),
  src(PREEMPT, "use BorrowWithinCohort; allow preempting a lower-priority workload with priority above MaxPriorityThreshold, if borrowing is not required after the preemption"))
add(sc("borrow-within-cohort-not-own-queue", "borrowWithinCohort does not let a borrowing preemptor take from its own queue when withinClusterQueue is Never",
  "team-x (nominal 1) runs x-low (priority -1, 12, the whole cohort); x1 (priority 5, 2) needs to borrow; the only "
  "lower-priority workload is its own queue's, and withinClusterQueue is Never: no_fit_no_candidates.",
  [BWC("team-x"), BWC("team-y"), cq("pool", "shared", rg(D(10)))],
  [AC("x-low", "team-x", 12, prio=-1)], [PC("x1", "team-x", 2, prio=5)],
  E([], [], [N("x1", "no_fit_no_candidates", "inadmissible")])),
  src(PREEMPT, "use BorrowWithinCohort; don't allow for preemption of lower-priority workload from the same ClusterQueue"))

# --- overlapping targets, skips and held-back quota ----------------------------------
add(sc("overlap-deferred-fit", "A head whose victims were already taken this cycle, and that fits once they leave, waits as deferred_fit",
  "team-c (nominal 0) borrows the whole cohort (4 + 4) with c1. a1 and b1 (4 each, within their nominal) both pick c1 as victim. "
  "a1 (older) goes first and preempts it. b1's target overlaps: assigned again with c1 gone it fits (8 - 4 of a1 = 4): "
  "deferred_fit, its quota held, admitted once c1 has left.",
  [cq("team-a", "ml", rg(D(4)), reclaim="Any"), cq("team-b", "ml", rg(D(4)), reclaim="Any"), cq("team-c", "ml", rg(D(0)))],
  [AC("c1", "team-c", 8)], [PC("a1", "team-a", 4, created=-20), PC("b1", "team-b", 4, created=-10)],
  E([], [P("c1", "InCohortReclamation")], [N("a1", "waiting_for_preemption", "active"), N("b1", "deferred_fit", "active")])),
  src(RECOMP, "two workloads reclaim nominal quota; RecomputePreemptionTargetsUponOverlap enabled"))
add(sc("overlap-new-targets", "A head whose victims were already taken this cycle looks for other victims in the same cycle",
  "team-c and team-d (nominal 0) borrow 4 each (c1 newer than d1). a1 and b1 (4 each) both pick c1 (newest). a1 preempts c1; "
  "b1 is assigned again with c1 gone: d1 is the victim now, and both preemptions are issued in this cycle.",
  [cq("team-a", "ml", rg(D(4)), reclaim="Any"), cq("team-b", "ml", rg(D(4)), reclaim="Any"), cq("team-c", "ml", rg(D(0))), cq("team-d", "ml", rg(D(0)))],
  [AC("c1", "team-c", 4, reserved=-20), AC("d1", "team-d", 4, reserved=-30)], [PC("a1", "team-a", 4, created=-20), PC("b1", "team-b", 4, created=-10)],
  E([], [P("c1", "InCohortReclamation"), P("d1", "InCohortReclamation")],
    [N("a1", "waiting_for_preemption", "active"), N("b1", "waiting_for_preemption", "active")])),
  src(RECOMP, "with fair sharing: hierarchical nominal-first prefers non-borrowing leaf CQ"))
FLAV2 = rg([("f1", {"cpu": q(4)}), ("f2", {"cpu": q(4)})])
add(sc("overlap-keeps-nominated-flavor", "Assigned again after an overlap, a head keeps the flavor it was nominated with",
  "fair sharing; team-x and team-y have f1 4 and f2 4 each; team-x fills both flavors (x-f1 8, x-f2 8). x-new (priority 11, 8) "
  "and y-new (priority 10, 8) both nominate f1 with victim x-f1. y-new's share with its request (4 borrowed of 16 = 250) is below "
  "x-new's (16 of 16 = 1000), so it goes first and takes x-f1. x-new is assigned again on f1 only: nothing of team-x is left there, "
  "team-y has no admitted workload, so no candidates; it may not switch to f2 to preempt x-f2.",
  [cq("team-x", "pool", FLAV2, within="LowerPriority", reclaim="Any"), cq("team-y", "pool", FLAV2, within="LowerPriority", reclaim="Any")],
  [AC("x-f1", "team-x", 8, "f1"), AC("x-f2", "team-x", 8, "f2", reserved=-50)],
  [PC("x-new", "team-x", 8, prio=11, created=-20), PC("y-new", "team-y", 8, prio=10, created=-10)],
  E([], [P("x-f1", "InCohortFairSharing")], [N("y-new", "waiting_for_preemption", "active"), N("x-new", "no_fit_no_candidates", "inadmissible")]),
  flavors=("f1", "f2"), fair=True),
  src(RECOMP, "flavor stickiness with RecomputePreemptionTargetsUponOverlap and TAS disabled"))
BW = lambda n, nominal: cq(n, "pool", rg(D(nominal)), within="LowerPriority", reclaim="LowerPriority", borrow="LowerPriority")
add(sc("skip-wasteful-preemption", "A second preemptor that would not fit after the first one's preemptions is skipped, without preempting",
  "cohort: team-a 2, team-b 2, bank 1 = 5; a-low and b-low (2 each) fill team-a and team-b. a-hi (priority 100, 3) and b-hi (99, 3) "
  "each could preempt their queue's low workload and borrow 1. a-hi goes first (priority) and preempts a-low; then b-hi, "
  "with a-low and b-low gone, would find 5 - 3 = 2 < 3: it is skipped and b-low keeps running.",
  [BW("team-a", 2), BW("team-b", 2), cq("bank", "pool", rg(D(1)))],
  [AC("a-low", "team-a", 2), AC("b-low", "team-b", 2)], [PC("a-hi", "team-a", 3, prio=100), PC("b-hi", "team-b", 3, prio=99)],
  E([], [P("a-low", "InClusterQueue")], [N("a-hi", "waiting_for_preemption", "active"), N("b-hi", "skipped_no_longer_fits", "active")])),
  src(SCHED, "multiple preemptions skip preemption when shared limited resource"))
add(sc("hold-back-reclaim-lower-priority", "A head that cannot be sure to reclaim (reclaimWithinCohort LowerPriority) holds back its quota",
  "team-a (gpu 2, reclaim LowerPriority, BestEffortFIFO) runs a1 (1); a2 (2) finds 1 free and no candidates. team-b (0) could "
  "borrow that 1 for b1, but a2 holds back min(2, 2 - 1) = 1: b1 is skipped.",
  [cq("team-a", "ml", rg([("default", {"gpu": q(2)})], ("gpu",)), reclaim="LowerPriority"), cq("team-b", "ml", rg([("default", {"gpu": q(0)})], ("gpu",)))],
  [AC("a1", "team-a", 1, res="gpu")], [PC("a2", "team-a", 2, res="gpu", created=-20), PC("b1", "team-b", 1, res="gpu", created=-10)],
  E([], [], [N("a2", "no_fit_no_candidates", "inadmissible"), N("b1", "skipped_no_longer_fits", "active")])),
  src(SCHED, "capacity blocked when lending clusterqueue not guaranteed to reclaim (ReclaimWithinCohort=LowerPriority)"))
HB = lambda limit: [cq("lender", "pool", rg(D(6))),
  cq("team-x", "pool", rg(D(0, b=limit)), reclaim="LowerPriority", borrow="LowerPriority"),
  cq("team-y", "pool", rg(D(0)), reclaim="LowerPriority", borrow="LowerPriority")]
add(sc("hold-back-capped-by-borrowing-limit", "A borrowing head holds back no more than its borrowing limit leaves",
  "lender (6) lends everything; team-x (nominal 0, borrowing limit 4) runs x0 (3) and its head x1 (4) can reach only 4 - 3 = 1 "
  "more, with no candidates. It holds back min(4, 0 + 4 - 3) = 1, so 6 - 3 - 1 = 2 is left and team-y's y1 (2) is admitted.",
  HB(4), [AC("x0", "team-x", 3)], [PC("x1", "team-x", 4, created=-20), PC("y1", "team-y", 2, created=-10)],
  E([A("y1", borrowing=True)], [], [N("x1", "no_fit_no_candidates", "inadmissible")])),
  src(SCHED, "preemption while borrowing, workload waiting for preemption should not block a borrowing workload in another CQ"))
add(sc("hold-back-whole-request-without-limit", "A borrowing head without a borrowing limit holds back its whole request",
  "same, team-x without a borrowing limit: x1 (4) finds 3 free and no candidates, and holds back all 4; team-y's y1 (2) no longer fits.",
  HB(None), [AC("x0", "team-x", 3)], [PC("x1", "team-x", 4, created=-20), PC("y1", "team-y", 2, created=-10)],
  E([], [], [N("x1", "no_fit_no_candidates", "inadmissible"), N("y1", "skipped_no_longer_fits", "active")])))

# --- hierarchical cohorts ----------------------------------------------------------
add(sc("hierarchy-lending-limit-in-subtree", "In a cohort tree a lending limit hides quota from the whole subtree",
  "root > child > (lender: nominal 10, lending limit 3; borrower: nominal 5, borrowing limit 10). child holds 3 + 5 = 8; the "
  "borrower uses 5 and its w (4) finds 8 - 5 = 3 < 4 and no candidates (no preemption configured): no_fit_no_candidates.",
  [cq("lender", "child", rg(D(10, l=3))), cq("borrower", "child", rg(D(5, b=10)))],
  [AC("existing", "borrower", 5)], [PC("w", "borrower", 4)],
  E([], [], [N("w", "no_fit_no_candidates", "inadmissible")]),
  cohorts=[{"name": "root", "parent": None, "resource_groups": [], "fair_weight": 1},
           {"name": "child", "parent": "root", "resource_groups": [], "fair_weight": 1}]),
  src(SCHED, "hierarchical cohort respects lending limit when borrowing"))
add(sc("hierarchy-cohort-quota-nearer-first", "A head served by its own cohort's quota goes before one that borrows from the root",
  "root > guaranteed (own quota 4) > queue g (0); queue be (0) sits under root. g1 (4) fits in cohort guaranteed (borrowing "
  "level 1); be1 (priority 3, 4) must borrow from root (level 2). g1 goes first despite its lower priority and takes the 4; be1 "
  "is skipped.",
  [cq("g", "guaranteed", rg(D(0))), cq("be", "root", rg(D(0)))], [],
  [PC("g1", "g", 4), PC("be1", "be", 4, prio=3)],
  E([A("g1", borrowing=True)], [], [N("be1", "skipped_no_longer_fits", "active")]),
  cohorts=[{"name": "root", "parent": None, "resource_groups": [], "fair_weight": 1},
           {"name": "guaranteed", "parent": "root", "resource_groups": rg(D(4)), "fair_weight": 1}]),
  src(SCHED, "in a hierarchical cohort, workload borrowing less is scheduled first"))

# --- fair sharing ------------------------------------------------------------------------
def FQ(name, cohort, nominal, weight=1, reclaim="Any", within="LowerPriority", borrow="LowerPriority", thr=-3):
    return cq(name, cohort, rg(D(nominal)), within=within, reclaim=reclaim, borrow=borrow if reclaim != "Never" else "Never",
              thr=thr if reclaim != "Never" else None, weight=weight)
ABC = [FQ("a", "all", 3), FQ("b", "all", 3), FQ("c", "all", 3), cq("preemptible", "all", rg(D(0)))]
U = lambda name, queue, cpu=1, prio=0: AC(name, queue, cpu, prio=prio, reserved=-60)
def units(queue, n, prefix=None):
    return [U(f"{prefix or queue}{i}", queue) for i in range(1, n + 1)]
add(sc("fs-reclaim-from-largest-user", "Fair sharing: a preemptor within its nominal reclaims from the queue with the largest share",
  "a, b, c hold 3 each (9 in all): a uses 3, b 5, c 1. c-in (1) keeps c within nominal (2 <= 3), so it reclaims unconditionally "
  "from the queue with the largest share, b (borrows 2): b1 (first by uid).",
  ABC, units("a", 3) + units("b", 5) + units("c", 1), [PC("c-in", "c", 1)],
  E([], [P("b1", "InCohortReclamation")], [N("c-in", "waiting_for_preemption", "active")]), fair=True),
  src(FAIR, "reclaim nominal from user using the most"))
add(sc("fs-reclaim-two-queues-then-fill-back", "Fair sharing: when the largest user's workload is not enough, the next queue's is taken and fill-back keeps the minimum",
  "a uses 3 + 1 (borrows 1), b 2 + 3 (borrows 2), c 0; c-in needs 3, 0 free. b has the larger share: b1 (2) goes, 2 free; b is back "
  "within nominal, so a is next: a1 (3) goes, 5 free. Fill-back returns b1 (3 free >= 3): only a1 is preempted.",
  ABC, [U("a1", "a", 3), U("a2", "a", 1), U("b1", "b", 2), U("b2", "b", 3)], [PC("c-in", "c", 3)],
  E([], [P("a1", "InCohortReclamation")], [N("c-in", "waiting_for_preemption", "active")]), fair=True),
  src(FAIR, "can reclaim from queue using less, if taking the latest workload from user using the most isn't enough"))
add(sc("fs-borrowing-preemptor-takes-from-largest-share", "Fair sharing: a borrowing preemptor evicts while its share stays at most the target's final share",
  "a uses 3, b 5, c 1; a-in (1) makes a borrow 1 (share 1000 x 1 / 9 = 111); b borrows 2 (222), and without b1 it would borrow "
  "1 (111): 111 <= 111 passes LessThanOrEqualToFinalShare, b1 is preempted InCohortFairSharing.",
  ABC, units("a", 3) + units("b", 5) + units("c", 1), [PC("a-in", "a", 1)],
  E([], [P("b1", "InCohortFairSharing")], [N("a-in", "waiting_for_preemption", "active")]), fair=True),
  src(FAIR, "reclaim borrowable quota from user using the most"))
add(sc("fs-own-queue-and-largest-user", "Fair sharing: victims can come from the largest user and from the preemptor's own queue",
  "a runs a-low (priority -1), a2, a3; b runs six (borrows 3, share 333). a-in (2) makes a borrow 2 (222). b1 passes (b's final "
  "share 222 >= 222) but frees only 1; b2 would leave b at 111 < 222, so b is done; a-low (own queue, lower priority) frees 1 more: "
  "b1 InCohortFairSharing and a-low InClusterQueue.",
  ABC, [U("a-low", "a", prio=-1), U("a2", "a"), U("a3", "a")] + units("b", 6), [PC("a-in", "a", 2)],
  E([], [P("b1", "InCohortFairSharing"), P("a-low", "InClusterQueue")], [N("a-in", "waiting_for_preemption", "active")]), fair=True),
  src(FAIR, "can preempt a combination of same CQ and highest user"))
add(sc("fs-big-incoming-cannot-take-big-victim", "Fair sharing: a preemptor may not end with a larger share than its victim's queue had",
  "a uses 2, b 7 (borrows 4, 444). a-in (5) would make a borrow 4 (444); without b1 b would borrow 0: 444 <= 0 fails, and "
  "444 < 444 fails too: no candidates.",
  ABC, [U("a1", "a", 2), U("b1", "b", 7)], [PC("a-in", "a", 5)],
  E([], [], [N("a-in", "no_fit_no_candidates", "inadmissible")]), fair=True),
  src(FAIR, "can't preempt huge workload if the incoming is also huge"))
add(sc("fs-victim-that-keeps-balance", "Fair sharing: the first strategy skips a victim whose removal would flip the imbalance and takes a smaller one",
  "b runs b1 (2), b2 (1), b3 (2) (borrows 2, 222), c runs 1. a-in (3.5) makes a borrow 0.5 (55.6). Without b1 b would not borrow "
  "(share 0 < 55.6): fails; without b2 b borrows 1 (111 >= 55.6): passes, and 4 free >= 3.5. Only b2 is preempted.",
  ABC, [U("b1", "b", 2), U("b2", "b", 1), U("b3", "b", 2), U("c1", "c", 1)], [PC("a-in", "a", "3.5")],
  E([], [P("b2", "InCohortFairSharing")], [N("a-in", "waiting_for_preemption", "active")]), fair=True),
  src(FAIR, "prefer to preempt workloads that don't make the target CQ have the biggest share"))
add(sc("fs-preempt-from-two-borrowers", "Fair sharing: victims are spread over queues so that no share ends above the preemptor's",
  "b and c each run 2 + 2.5 (borrow 1.5 each, 167). a-in (3.5) makes a borrow 0.5 (55.6). b1 and c1 pass in turn (each queue ends "
  "at 0.5 borrowed, 55.6) and together free 4 >= 3.5.",
  ABC, [U("b1", "b", 2), U("b2", "b", "2.5"), U("c1", "c", 2), U("c2", "c", "2.5")], [PC("a-in", "a", "3.5")],
  E([], [P("b1", "InCohortFairSharing"), P("c1", "InCohortFairSharing")], [N("a-in", "waiting_for_preemption", "active")]), fair=True),
  src(FAIR, "preempt from different cluster queues if the end result has a smaller max share"))
add(sc("fs-no-flapping", "Fair sharing: after the preemptions above, the victim's queue cannot preempt back",
  "a runs 3.5, b 2.5, c 2.5 (a borrows 0.5). b-in (2) would make b borrow 1.5 (167) above a's 55.6 after any eviction, and not "
  "below a's current 55.6: no candidates.",
  ABC, [U("a1", "a", "3.5"), U("b2", "b", "2.5"), U("c2", "c", "2.5")], [PC("b-in", "b", 2)],
  E([], [], [N("b-in", "no_fit_no_candidates", "inadmissible")]), fair=True),
  src(FAIR, "scenario above does not flap"))
FSA = [FQ("a", "all", 3, borrow="Never"), FQ("b", "all", 3, borrow="Never"), FQ("c", "all", 3, borrow="Never")]
add(sc("fs-strategy-less-than-initial-share", "Fair sharing with only LessThanInitialShare: the lowest-priority candidate goes first, even if big",
  "a runs 3; b runs b-low (priority 0, 5) and b-high (priority 1, 1), borrowing 3 (333). a-in (1) makes a borrow 1 (111 < 333): "
  "the first candidate by priority, b-low, passes and is preempted.",
  FSA, [U("a1", "a", 3), U("b-low", "b", 5), U("b-high", "b", 1, prio=1)], [PC("a-in", "a", 1)],
  E([], [P("b-low", "InCohortFairSharing")], [N("a-in", "waiting_for_preemption", "active")]), fair=True),
  src(FAIR, "preempt lower priority first, even if big"))
S[-1]["engine"]["fair_sharing_preemption_strategies"] = ["LessThanInitialShare"]
add(sc("fs-strategy-less-than-or-equal-to-final-share", "Fair sharing with only LessThanOrEqualToFinalShare: a victim that would leave its queue below the preemptor is skipped",
  "same state with only LessThanOrEqualToFinalShare: without b-low b would not borrow (0 < 111): fails; without b-high b borrows 2 "
  "(222 >= 111): b-high is preempted although its priority is higher.",
  FSA, [U("a1", "a", 3), U("b-low", "b", 5), U("b-high", "b", 1, prio=1)], [PC("a-in", "a", 1)],
  E([], [P("b-high", "InCohortFairSharing")], [N("a-in", "waiting_for_preemption", "active")]), fair=True),
  src(FAIR, "preempt workload that doesn't transfer the imbalance, even if high priority"))
S[-1]["engine"]["fair_sharing_preemption_strategies"] = ["LessThanOrEqualToFinalShare"]
add(sc("fs-weight-preempts-more", "Fair sharing: a larger weight lets a queue take more before its share catches up",
  "a (weight 2) runs 3, b runs 6 (borrows 3, 333). a-in (2) makes a borrow 2: 222 / 2 = 111. b1 (b to 222) and b2 (b to 111) pass; "
  "together they free 2. b3 would leave b at 0 < 111.",
  [FQ("a", "all", 3, weight=2, borrow="Never"), FQ("b", "all", 3, borrow="Never"), FQ("c", "all", 3, borrow="Never")],
  units("a", 3) + units("b", 6), [PC("a-in", "a", 2)],
  E([], [P("b1", "InCohortFairSharing"), P("b2", "InCohortFairSharing")], [N("a-in", "waiting_for_preemption", "active")]), fair=True),
  src(FAIR, "CQ with higher weight can preempt more"))
add(sc("fs-zero-weight-borrower-loses-all-it-borrows", "Fair sharing: a queue with weight 0 that borrows has an infinite share and loses everything it borrows",
  "b (weight 0) runs six (borrows 3). a-in (3) makes a borrow 3 (333). b's share stays infinite while it borrows: b1 and b2 pass "
  "LessThanOrEqualToFinalShare; b3 would bring b to 0 and fails it, but passes LessThanInitialShare (333 < infinite) in the second "
  "round: b1, b2, b3 are preempted.",
  [FQ("a", "all", 3, borrow="Never"), FQ("b", "all", 3, weight=0, borrow="Never"), FQ("c", "all", 3, borrow="Never")],
  units("a", 3) + units("b", 6), [PC("a-in", "a", 3)],
  E([], [P("b1", "InCohortFairSharing"), P("b2", "InCohortFairSharing"), P("b3", "InCohortFairSharing")],
    [N("a-in", "waiting_for_preemption", "active")]), fair=True),
  src(FAIR, "can preempt anything borrowing from CQ with 0 weight"))
add(sc("fs-zero-weight-nominal-protected", "Fair sharing: weight 0 does not expose a queue's nominal quota",
  "a and b (weight 0) each run 3 = their nominal. a-in (1) would borrow, and b does not borrow: no candidates.",
  [FQ("a", "all", 3, borrow="Never"), FQ("b", "all", 3, weight=0, borrow="Never")],
  units("a", 3) + units("b", 3), [PC("a-in", "a", 1)],
  E([], [], [N("a-in", "no_fit_no_candidates", "inadmissible")]), fair=True),
  src(FAIR, "can't preempt nominal from CQ with 0 weight"))
add(sc("fs-zero-weight-queue-reclaims-nominal", "Fair sharing: a queue with weight 0 still reclaims its nominal quota",
  "a (weight 0, nominal 1) is idle; b (nominal 0) borrows a's 1 with b1. a1 (1) stays within nominal: b1 is reclaimed "
  "(InCohortReclamation) whatever the weights.",
  [cq("a", "all", rg(D(1)), reclaim="Any", weight=0), cq("b", "all", rg(D(0)))], [U("b1", "b")], [PC("a1", "a", 1)],
  E([], [P("b1", "InCohortReclamation")], [N("a1", "waiting_for_preemption", "active")]), fair=True),
  src(FAIR, "cq with zero weight can reclaim nominal quota"))
add(sc("fs-zero-weight-preemptor-cannot-preempt", "Fair sharing: a borrowing preemptor with weight 0 cannot evict from a queue with a positive weight",
  "a (weight 0, nominal 1) runs a1; b (weight 1, nominal 1) runs b1, b2 (borrows 1). a-in (1) would make a borrow with weight 0: "
  "its share is infinite and above b's whatever is removed: no candidates.",
  [cq("a", "all", rg(D(1)), reclaim="Any", weight=0), cq("b", "all", rg(D(1)))], [U("a1", "a"), U("b1", "b"), U("b2", "b")],
  [PC("a-in", "a", 1)],
  E([], [], [N("a-in", "no_fit_no_candidates", "inadmissible")]), fair=True),
  src(FAIR, "zero weight borrowing preemptor cannot preempt from a borrowing CQ with a non-zero weight"))
add(sc("fs-zero-weights-compare-unweighted", "Fair sharing: between two borrowing queues of weight 0, unweighted shares decide",
  "cohort all has 3 of its own; a (weight 0, nominal 1) is idle, b (weight 0, nominal 0) runs b1..b3. a-in (2) would borrow 1 "
  "(250 of 4); both shares are infinite, so the unweighted ratios compare: 250 <= b's 500 after losing b1: b1 is preempted.",
  [cq("a", "all", rg(D(1)), reclaim="Any", weight=0), cq("b", "all", rg(D(0)), weight=0)], units("b", 3), [PC("a-in", "a", 2)],
  E([], [P("b1", "InCohortFairSharing")], [N("a-in", "waiting_for_preemption", "active")]), fair=True,
  cohorts=[{"name": "all", "parent": None, "resource_groups": rg(D(3)), "fair_weight": 1}]),
  src(FAIR, "zero weight borrowing preemptor can preempt from a borrowing CQ which also has zero weight"))
add(sc("fs-tournament-zero-weights", "Fair sharing tournament: with weight 0 everywhere the entry that borrows less wins, whatever its priority",
  "cohort A holds 8 of its own; b and c (weight 0, nominal 0). b already borrows 4. With their heads, b would borrow 8 (1000) and "
  "c 4 (500): c1 wins although b1 has priority 9001, takes the last 4, and b1 is skipped.",
  [cq("b", "A", rg(D(0)), reclaim="Any", weight=0), cq("c", "A", rg(D(0)), reclaim="Any", weight=0)],
  [AC("b0", "b", 4)], [PC("b1", "b", 4, prio=9001), PC("c1", "c", 4)],
  E([A("c1", borrowing=True)], [], [N("b1", "skipped_no_longer_fits", "active")]), fair=True,
  cohorts=[{"name": "A", "parent": None, "resource_groups": rg(D(8)), "fair_weight": 1}]),
  src(FSCHED, "fair sharing two queues with weight 0 schedules workload which borrows less"))
add(sc("fs-tournament-tie-priority", "Fair sharing tournament: equal shares are broken by priority",
  "cohort A holds 10; b and c (nominal 0) each want all 10: equal shares (1000); c1 has the higher priority (101 > 99) and wins.",
  [cq("b", "A", rg(D(0))), cq("c", "A", rg(D(0)))], [], [PC("b1", "b", 10, prio=99), PC("c1", "c", 10, prio=101)],
  E([A("c1", borrowing=True)], [], [N("b1", "skipped_no_longer_fits", "active")]), fair=True,
  cohorts=[{"name": "A", "parent": None, "resource_groups": rg(D(10)), "fair_weight": 1}]),
  src(FSCHED, "fair sharing schedule highest priority first"))
add(sc("fs-tournament-tie-fifo", "Fair sharing tournament: equal shares and priorities are broken by creation time",
  "same with equal priorities: c1 (created -30) is older than b1 (created -20) and wins.",
  [cq("b", "A", rg(D(0))), cq("c", "A", rg(D(0)))], [], [PC("b1", "b", 10, created=-20), PC("c1", "c", 10, created=-30)],
  E([A("c1", borrowing=True)], [], [N("b1", "skipped_no_longer_fits", "active")]), fair=True,
  cohorts=[{"name": "A", "parent": None, "resource_groups": rg(D(10)), "fair_weight": 1}]),
  src(FSCHED, "fair sharing schedule earliest timestamp first"))
add(sc("fs-tournament-nominal-first", "Fair sharing tournament: an entry within nominal on the flavors it asks for beats a borrowing one with a lower share",
  "team-a: on-demand 6, spot 0; team-b: on-demand 2, spot 10. team-a borrows 8 spot (a-spot), team-b runs b0 (2 on-demand). "
  "a-nom (4 on-demand) keeps team-a within nominal on on-demand although team-a's share is 444 (8 of 18); b-bor (3) would borrow "
  "3 on-demand (167). a-nom goes first and takes on-demand to 6 of 8; b-bor then finds 2 < 3 and is skipped.",
  [cq("team-a", "pool", rg([("on-demand", {"cpu": q(6)}), ("spot", {"cpu": q(0)})])),
   cq("team-b", "pool", rg([("on-demand", {"cpu": q(2)}), ("spot", {"cpu": q(10)})]))],
  [AC("a-spot", "team-a", 8, "spot"), AC("b0", "team-b", 2, "on-demand")],
  [PC("a-nom", "team-a", 4, created=-10), PC("b-bor", "team-b", 3, created=-60)],
  E([A("a-nom", flavor="on-demand")], [], [N("b-bor", "skipped_no_longer_fits", "active")]), fair=True, flavors=("on-demand", "spot")),
  src(FSCHED, "with fair sharing: nominal-first ordering admits workload fitting within nominal despite higher CQ DRS"))
HIER_FS = [{"name": "ROOT", "parent": None, "resource_groups": rg(D(5)), "fair_weight": 1},
           {"name": "LEFT", "parent": "ROOT", "resource_groups": rg(D(5)), "fair_weight": 2},
           {"name": "RIGHT", "parent": "ROOT", "resource_groups": rg(D(5)), "fair_weight": 1}]
add(sc("fs-hierarchical-preemption", "Fair sharing in a cohort tree: shares are compared at the children of the lowest common ancestor",
  "ROOT (5) > LEFT (5, weight 2) > a (weight 2), b; ROOT > c; ROOT > RIGHT (5) > d, e (weight 0.99); every queue has nominal 1 and "
  "the tree's 20 are used by b, c, d, e (five each, priorities 1..5). a-in (5) goes to a: against b the almost-common ancestors are "
  "a and b; against c and e they are LEFT and c, LEFT and RIGHT, where LEFT's weight 2 halves its share. Taking the highest share "
  "each time gives b1, b2, c1, c2, e1.",
  [cq("a", "LEFT", rg(D(1)), reclaim="Any", weight=2), cq("b", "LEFT", rg(D(1))), cq("c", "ROOT", rg(D(1))),
   cq("d", "RIGHT", rg(D(1))), cq("e", "RIGHT", rg(D(1)), weight=0.99)],
  [U(f"{x}{i}", x, prio=i) for x in "bcde" for i in range(1, 6)], [PC("a-in", "a", 5)],
  E([], [P(n, "InCohortFairSharing") for n in ("b1", "b2", "c1", "c2", "e1")], [N("a-in", "waiting_for_preemption", "active")]),
  fair=True, cohorts=HIER_FS), src(FAIR, "hierarchical preemption"))
add(sc("fs-borrowing-queue-in-lending-cohort-protected", "Fair sharing: a queue that borrows inside a cohort that does not borrow is not a target",
  "ROOT > a (nominal 5, weight 10) and ROOT > RIGHT (own 1, weight 0.1) > b (nominal 0, weight 0.1). b borrows RIGHT's 1, but "
  "RIGHT as a whole does not borrow from ROOT. a-in (5) must take a's own lower-priority a1..a3.",
  [cq("a", "ROOT", rg(D(5)), within="LowerPriority", reclaim="Any", weight=10), cq("b", "RIGHT", rg(D(0)), weight=0.1)],
  [U("a1", "a", prio=-1), U("a2", "a", prio=-1), U("a3", "a", prio=-1), U("b1", "b", prio=-1)], [PC("a-in", "a", 5)],
  E([], [P("a1", "InClusterQueue"), P("a2", "InClusterQueue"), P("a3", "InClusterQueue")], [N("a-in", "waiting_for_preemption", "active")]),
  fair=True, cohorts=[{"name": "ROOT", "parent": None, "resource_groups": [], "fair_weight": 1},
                      {"name": "RIGHT", "parent": "ROOT", "resource_groups": rg(D(1)), "fair_weight": 0.1}]),
  src(FAIR, "borrowing cq in non-borrowing cohort is protected"))
add(sc("fs-deep-preemption", "Fair sharing: a preemptor four levels down reclaims from a queue four levels down another branch",
  "ROOT > A (weight 1.01) > AA > AAA > a; ROOT > B (weight 0.99) > BB > BBB > b; ROOT > C > CC > CCC > CCCC (own 1). b1 borrows "
  "CCCC's 1; a-in (1) compares A and B, the children of ROOT: A's share after admission is 1000/1.01, B's before is 1000/0.99; "
  "the first strategy fails (B would drop to 0) and the second passes: b1 is preempted.",
  [cq("a", "AAA", rg(D(0)), reclaim="Any"), cq("b", "BBB", rg(D(0)))], [U("b1", "b")], [PC("a-in", "a", 1)],
  E([], [P("b1", "InCohortFairSharing")], [N("a-in", "waiting_for_preemption", "active")]), fair=True,
  cohorts=[{"name": n, "parent": p, "resource_groups": rg(D(1)) if n == "CCCC" else [], "fair_weight": w} for n, p, w in
           [("ROOT", None, 1), ("A", "ROOT", 1.01), ("AA", "A", 1), ("AAA", "AA", 1), ("B", "ROOT", 0.99), ("BB", "B", 1),
            ("BBB", "BB", 1), ("C", "ROOT", 1), ("CC", "C", 1), ("CCC", "CC", 1), ("CCCC", "CCC", 1)]]),
  src(FAIR, "deep preemption"))

# --- multi-cycle simulation (expected.cycles, then expected.final) ---------------------
def SIM(cycles, admitted, pending, stable=None):
    f = {"admitted": list(admitted), "pending": list(pending)}
    if stable is not None: f["stable"] = stable
    return {"cycles": cycles, "final": f}
QUEUE_STRAT = lambda strategy: [cq("team-a", None, rg(D(4)), strategy=strategy)]
add(sc("simulate-best-effort-moves-on", "simulate, BestEffortFIFO: a head that cannot be admitted is parked and the next workload becomes the head",
  "team-a (4) runs a0 (3). Cycle 1: big (priority 5, 4) needs preemption and has no candidates: parked. Cycle 2: small (1) is the "
  "head and fits in the free 1. Cycle 3 changes nothing.",
  QUEUE_STRAT("BestEffortFIFO"), [AC("a0", "team-a", 3)], [PC("big", "team-a", 4, prio=5), PC("small", "team-a", 1)],
  SIM([E([], [], [N("big", "no_fit_no_candidates", "inadmissible")]), E([A("small")]), E()],
      ["a0", "small"], ["big"], stable=True)))
add(sc("simulate-strict-fifo-blocks", "simulate, StrictFIFO: a head that cannot be admitted keeps the queue blocked",
  "same queue with StrictFIFO: big stays the head every cycle and small never gets its turn; the first cycle is already stable.",
  QUEUE_STRAT("StrictFIFO"), [AC("a0", "team-a", 3)], [PC("big", "team-a", 4, prio=5), PC("small", "team-a", 1)],
  SIM([E([], [], [N("big", "no_fit_no_candidates", "active")]), E([], [], [N("big", "no_fit_no_candidates", "active")])],
      ["a0"], ["big", "small"], stable=True)))
add(sc("simulate-equivalent-workloads-parked-together", "simulate: a parked head takes the waiting workloads of the same shape with it",
  "team-a (4, BestEffortFIFO) runs a0 (3). Cycle 1: big1 (4) is parked, and big2, which has the same priority and pod sets, is "
  "parked with it (Kueue's SchedulingEquivalenceHashing), so cycle 2 admits small (1) instead of trying big2.",
  QUEUE_STRAT("BestEffortFIFO"), [AC("a0", "team-a", 3)],
  [PC("big1", "team-a", 4, created=-30), PC("big2", "team-a", 4, created=-20), PC("small", "team-a", 1, created=-10)],
  SIM([E([], [], [N("big1", "no_fit_no_candidates", "inadmissible")]), E([A("small")]), E()],
      ["a0", "small"], ["big1", "big2"], stable=True)))
add(sc("simulate-deferred-fit-stays-head", "simulate: a head that waits for another head's victims stays first in its queue, before a higher priority",
  "cycle 1 is overlap-deferred-fit (a1 preempts c1, b1 waits as deferred_fit); c1's eviction wakes b-hi (priority 9), parked "
  "earlier. Cycle 2: b1 is still team-b's preemptor and head, ahead of b-hi: a1 and b1 are admitted; c1 (back in its queue, 8) "
  "no longer fits. Cycle 3: b-hi and c1 find no room and no candidates and are parked; cycle 4 changes nothing.",
  [cq("team-a", "ml", rg(D(4)), reclaim="Any"), cq("team-b", "ml", rg(D(4)), reclaim="Any"), cq("team-c", "ml", rg(D(0)))],
  [AC("c1", "team-c", 8)],
  [PC("a1", "team-a", 4, created=-20), PC("b1", "team-b", 4, created=-10), dict(PC("b-hi", "team-b", 4, prio=9, created=-5), inadmissible=True)],
  SIM([E([], [P("c1", "InCohortReclamation")], [N("a1", "waiting_for_preemption", "active"), N("b1", "deferred_fit", "active")]),
       E([A("a1"), A("b1")], [], [N("c1", "skipped_no_longer_fits", "active")]),
       E([], [], [N("b-hi", "no_fit_no_candidates", "inadmissible"), N("c1", "no_fit", "inadmissible")]),
       E()],
      ["a1", "b1"], ["b-hi", "c1"], stable=True)))
add(sc("simulate-reclaim-then-settle", "simulate: a reclaimed workload comes back to its queue and is admitted when capacity allows",
  "team-a (4) and team-b (4), reclaim Any. team-b borrows 4 with b-big (8). Cycle 1: a1 (4) reclaims b-big. Cycle 2: b-big, back "
  "in team-b, is nominated against the 8 now free, but a1 (within nominal) goes first and b-big is skipped. Cycle 3: b-big needs 8 "
  "with 4 free, above team-b's nominal 4 and without borrowWithinCohort: no fit, parked. Cycle 4 changes nothing.",
  [cq("team-a", "ml", rg(D(4)), reclaim="Any"), cq("team-b", "ml", rg(D(4)), reclaim="Any")],
  [AC("b-big", "team-b", 8)], [PC("a1", "team-a", 4)],
  SIM([E([], [P("b-big", "InCohortReclamation")], [N("a1", "waiting_for_preemption", "active")]),
       E([A("a1")], [], [N("b-big", "skipped_no_longer_fits", "active")]),
       E([], [], [N("b-big", "no_fit", "inadmissible")]), E()],
      ["a1"], ["b-big"], stable=True)))
SCAN = lambda strategy, f2: [
  cq("team-a", "ml", rg([("f1", {"cpu": q(10)})]), strategy="StrictFIFO"),
  cq("team-b", "ml", rg([("f1", {"cpu": q(0)}), ("f2", {"cpu": q(f2)})]), strategy=strategy)]
SCAN_W = ([AC("a0", "team-a", 6, "f1")], [PC("big", "team-a", 8, prio=10), PC("w", "team-b", 4)])
add(sc("simulate-flavor-scan-resumes", "simulate: a head skipped after its flavor search stopped early resumes the search at the next flavor",
  "team-a (StrictFIFO, f1 10) runs a0 (6); its head big (8) has no candidates and holds back f1's last 4 every cycle. team-b's w (4) "
  "fits f1 by borrowing at nomination, where the search stops (whenCanBorrow MayStopSearch), and is skipped. Cycle 2: the search "
  "resumes after f1 (Kueue's FlavorFungibilityPreserveScanProgress): f2 fits and w is admitted there. Cycle 3 changes nothing.",
  SCAN("BestEffortFIFO", 4), *SCAN_W,
  SIM([E([], [], [N("big", "no_fit_no_candidates", "active"), N("w", "skipped_no_longer_fits", "active")]),
       E([AF("w", {"main": {"cpu": "f2"}})], [], [N("big", "no_fit_no_candidates", "active")]),
       E([], [], [N("big", "no_fit_no_candidates", "active")])],
      ["a0", "w"], ["big"], stable=True), flavors=("f1", "f2")),
  dict(KUEUE, path="pkg/scheduler/scheduler_preserve_flavor_scan_progress_test.go", case="gate enabled"))
add(sc("simulate-flavor-scan-alternates", "simulate: with nothing after the first flavor, the search alternates between them and never settles",
  "same, team-b StrictFIFO with f2 nominal 0: w is skipped on f1 (cycle 1), finds only f2 when resuming (cycle 2: above anything "
  "it can reach), starts again from f1 (cycle 3: skipped), and so on; Kueue does the same. charter simulate stops when a state "
  "repeats.",
  SCAN("StrictFIFO", 0), *SCAN_W,
  SIM([E([], [], [N("big", "no_fit_no_candidates", "active"), N("w", "skipped_no_longer_fits", "active")]),
       E([], [], [N("big", "no_fit_no_candidates", "active"), N("w", "no_fit_exceeds_max_quota", "active")]),
       E([], [], [N("big", "no_fit_no_candidates", "active"), N("w", "skipped_no_longer_fits", "active")]),
       E([], [], [N("big", "no_fit_no_candidates", "active"), N("w", "no_fit_exceeds_max_quota", "active")])],
      ["a0"], ["big", "w"], stable=False), flavors=("f1", "f2")))
json.dump({"format": "policy-engine-scheduling-scenarios/v1", "units": "cpu in cores; times in seconds relative to the cycle", "scenarios": S},
          open("scenarios/rules.json", "w"), indent=1)
print(len(S))
