#!/usr/bin/env bash
# The target of issue 31: `charter simulate --summary` of 10,000 pending
# workloads in 100 queues (under 3 cohorts) under 5 s and 100 MB. Generates
# the state (deterministic), then runs the simulation until it settles (at
# most 1000 cycles, or exactly CYCLES) under GNU time, printing the last summary
# line and the time and peak memory.
#
#   bench/schedule/simulate_summary.sh CHARTER [PENDING] [QUEUES] [CYCLES]
#
# `make bench-simulate` runs it with the Release build's charter.
set -euo pipefail
charter="$1" pending="${2:-10000}" queues="${3:-100}" cycles="${4:-}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 - "$pending" "$queues" >"$tmp/state.json" <<'PY'
import json, random, sys
pending, queues = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(31)
cohorts = [{"name": f"cohort-{c}", "parent": None} for c in range(3)]
cqs = []
for q in range(queues):
    cqs.append({"name": f"q{q}", "cohort": f"cohort-{q % 3}",
                "preemption": {"within_cluster_queue": "LowerPriority", "reclaim_within_cohort": "Any"},
                "resource_groups": [{"covered_resources": ["cpu", "nvidia.com/gpu"],
                                     "flavors": [{"name": "on-demand", "quotas": {
                                         "cpu": {"nominal": 64, "borrowing_limit": 32},
                                         "nvidia.com/gpu": {"nominal": 8, "borrowing_limit": 8}}},
                                                 {"name": "spot", "quotas": {
                                         "cpu": {"nominal": 32}, "nvidia.com/gpu": {"nominal": 4}}}]}]})
work = []
for i in range(pending):
    gpus = rng.choice([0, 1, 1, 2, 4, 8])
    work.append({"name": f"w{i}", "cluster_queue": f"q{rng.randrange(queues)}",
                 "priority": rng.choice([0, 10, 50, 100]), "created_at": -rng.randrange(100000),
                 "pod_sets": [{"name": "main", "count": rng.choice([1, 1, 2, 4]),
                               "requests": {"cpu": rng.choice([1, 2, 4]), "nvidia.com/gpu": gpus}}]})
json.dump({"resource_flavors": ["on-demand", "spot"], "cohorts": cohorts, "cluster_queues": cqs,
           "admitted": [], "pending": work}, sys.stdout)
PY
echo "state: $pending pending workloads in $queues queues under 3 cohorts ($(wc -c <"$tmp/state.json") bytes)"
/usr/bin/time -f '%e s wall, %U s user, %M KB peak' -o "$tmp/time" \
  "$charter" simulate --state "$tmp/state.json" --summary ${cycles:+--cycles "$cycles"} -o "$tmp/final.json" >"$tmp/out" || true
head -n 3 "$tmp/out"; echo ...; tail -n 3 "$tmp/out"
echo "cycles: $(wc -l <"$tmp/out") summary lines"
cat "$tmp/time"
