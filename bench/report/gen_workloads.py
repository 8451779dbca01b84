#!/usr/bin/env python3
"""The world of `make bench-report` (issue 37's targets): 100 cluster queues
in 10 cohorts (16 GPUs each, borrowing 16), and 10,000 Kueue Workloads
created over 30 days from 2026-01-01, 90% admitted within two hours and
most of those finished one to ten hours later; and a decision log of
100,000 lines over the same 30 days (50 policies; 70% allowed). Deterministic
(seed 7).

    python3 gen_workloads.py OUT_DIR   # OUT_DIR/cluster.charter, workloads.json, decisions.jsonl
"""
import datetime
import json
import os
import random
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
random.seed(7)
Q = 100; N = 10000; DAYS = 30
start = 1767225600  # 2026-01-01
def t(s):
    return datetime.datetime.fromtimestamp(s, datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')
with open(os.path.join(out, 'cluster.charter'), 'w') as f:
    f.write('flavor "a100";\n')
    for c in range(10): f.write(f'cohort "c{c}";\n')
    for q in range(Q):
        f.write(f'queue "q{q}" {{\n  cohort: "c{q%10}";\n  resources "nvidia.com/gpu" {{ flavor "a100" {{ "nvidia.com/gpu": 16 borrow 16; }} }}\n  local_queue "ns{q}/main";\n}}\n')
items = []
for i in range(N):
    q = random.randrange(Q)
    created = start + random.randrange(DAYS*86400)
    g = random.choice([1,2,4,8])
    w = {"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload",
         "metadata":{"name":f"w{i}","namespace":f"ns{q}","creationTimestamp":t(created)},
         "spec":{"queueName":"main","podSets":[{"name":"main","count":1,"template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"nvidia.com/gpu":g}}}]}}}]}}
    r = random.random()
    if r < 0.9:
        adm = created + random.randrange(7200)
        conds = [{"type":"QuotaReserved","status":"True","reason":"QuotaReserved","lastTransitionTime":t(adm)},
                 {"type":"Admitted","status":"True","reason":"Admitted","lastTransitionTime":t(adm)}]
        fin = adm + random.randrange(3600, 36000)
        if fin < start + DAYS*86400 - 3600:
            conds.append({"type":"Finished","status":"True","reason":"Succeeded","lastTransitionTime":t(fin)})
        w["status"] = {"admission":{"clusterQueue":f"q{q}","podSetAssignments":[{"name":"main","count":1,"flavors":{"nvidia.com/gpu":"a100"}}]},"conditions":conds}
    items.append(w)
json.dump({"apiVersion":"v1","kind":"List","items":items}, open(os.path.join(out, 'workloads.json'), 'w'))

with open(os.path.join(out, 'decisions.jsonl'), 'w') as f:
    for i in range(100000):
        when = start + random.randrange(DAYS * 86400)
        if random.random() < 0.7:
            line = {"time": t(when), "endpoint": "admission", "decision": "allow",
                    "reasons": [f"permit-{random.randrange(40)}"], "errors": []}
        else:
            reasons = [f"forbid-{random.randrange(10)}"] if random.random() < 0.8 else []
            line = {"time": t(when), "endpoint": "admission", "decision": "deny", "reasons": reasons, "errors": []}
        f.write(json.dumps(line) + "\n")
