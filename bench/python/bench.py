"""Nanoseconds per decision through the Python binding, with the entities
loaded once: the governance example's requests (examples/governance),
decided by

  plain     engine.authorize(principal, action, resource, context, entities), each
            request of requests.json in turn; and one request over and over, as
            docs/performance.md measures Go and Lua (alice views
            vision-train-17, no context; alice submits it, a datetime context)
  prepared  engine.authorize_request(request, entities), requests prepared once
  batch     engine.authorize_batch(requests, entities), the requests as the
            dicts of requests.json, and as prepared requests

Run it with the package of a Release build (`make bench-python` does this):

  PYTHONPATH=build-bench/bindings/python /usr/bin/python3 bench/python/bench.py [--seconds S]

--untyped compiles the policies without the schema. Instructions a decision,
whatever the machine's load (DIR: a build's bindings/python):

  for n in 20 120; do PYTHONPATH=DIR valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.$n \
    /usr/bin/python3 bench/python/bench.py --only plain --passes $n; done
  # (Ir of /tmp/cg.120 - Ir of /tmp/cg.20) / (100 passes x 32 requests)
 Not a test: it asserts
nothing. The target (issue 17) is under 2 us a decision.
"""

import argparse
import json
import pathlib
import time

import charter

ROOT = pathlib.Path(__file__).resolve().parents[2]


def measure(seconds, decide_all, decisions_per_call):
    """(wall, cpu): ns per decision, each the best of five runs of about
    `seconds` / 5; cpu counts this thread's CPU time only, which a busy
    machine inflates less than the wall clock."""
    calls = 1
    while True:  # calibrate: how many calls take about a tenth of a run
        start = time.perf_counter_ns()
        for _ in range(calls):
            decide_all()
        elapsed = time.perf_counter_ns() - start
        if elapsed > seconds * 1e9 / 50:
            break
        calls *= 2
    per_run = max(1, int(calls * (seconds * 1e9 / 5) / elapsed))
    wall = cpu = None
    for _ in range(5):
        start, start_cpu = time.perf_counter_ns(), time.thread_time_ns()
        for _ in range(per_run):
            decide_all()
        ns = (time.perf_counter_ns() - start) / (per_run * decisions_per_call)
        cpu_ns = (time.thread_time_ns() - start_cpu) / (per_run * decisions_per_call)
        wall = ns if wall is None else min(wall, ns)
        cpu = cpu_ns if cpu is None else min(cpu, cpu_ns)
    return wall, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per figure (default 2)")
    parser.add_argument("--dir", default=str(ROOT / "examples" / "governance"),
                        help="policies.cedar, entities.json and requests.json (default: the governance example)")
    parser.add_argument("--schema", default=str(ROOT / "stdlib" / "governance.cedarschema"))
    parser.add_argument("--only", choices=["plain", "prepared", "batch-dicts", "batch-prepared", "plain-view",
                                           "plain-datetime"],
                        help="run only this call, --passes times over the requests, untimed: for counting "
                             "instructions with callgrind (run it with two pass counts and subtract)")
    parser.add_argument("--passes", type=int, default=100)
    parser.add_argument("--untyped", action="store_true",
                        help="compile the policies without the schema (requests then read without it too)")
    args = parser.parse_args()

    base = pathlib.Path(args.dir)
    schema = charter.Schema(pathlib.Path(args.schema).read_text())
    policies = (base / "policies.cedar").read_text()
    # Typed, as docs/performance.md measures the governance example: each
    # request is read with the schema.
    engine = charter.compile(policies) if args.untyped else charter.compile(policies, schema)
    entities = charter.Entities.from_json((base / "entities.json").read_text(), schema)
    requests = json.loads((base / "requests.json").read_text())
    calls = [(r["principal"], r["action"], r["resource"], r.get("context")) for r in requests]
    prepared = [engine.prepare(*c) for c in calls]
    n = len(requests)

    authorize = engine.authorize
    authorize_request = engine.authorize_request

    def plain():
        for p, a, r, c in calls:
            authorize(p, a, r, c, entities)

    def prepared_calls():
        for request in prepared:
            authorize_request(request, entities)

    batch_dicts = requests * 32
    batch_prepared = prepared * 32

    # One request over and over, as docs/performance.md measures Go and Lua:
    # alice views vision-train-17 (no context), and submits it (a datetime).
    view = ('Governance::Member::"alice"', 'Governance::Action::"viewTask"', 'Governance::Task::"vision-train-17"')
    submit = ('Governance::Member::"alice"', 'Governance::Action::"submitTask"',
              'Governance::Task::"vision-train-17"')
    now = {"now": {"__extn": {"fn": "datetime", "arg": "2025-11-03T09:00:00Z"}}}

    def one_view():
        for _ in range(n):
            authorize(*view, None, entities)

    def one_submit():
        for _ in range(n):
            authorize(*submit, now, entities)

    if args.only:
        run = {"plain": plain, "prepared": prepared_calls, "plain-view": one_view, "plain-datetime": one_submit,
               "batch-dicts": lambda: engine.authorize_batch(requests, entities),
               "batch-prepared": lambda: engine.authorize_batch(prepared, entities)}[args.only]
        for _ in range(args.passes):
            run()
        return

    figures = [
        ("plain", measure(args.seconds, plain, n)),
        ("plain, alice views", measure(args.seconds, one_view, n)),
        ("plain, a datetime", measure(args.seconds, one_submit, n)),
        ("prepared", measure(args.seconds, prepared_calls, n)),
        ("batch (dicts)", measure(args.seconds, lambda: engine.authorize_batch(batch_dicts, entities),
                                  len(batch_dicts))),
        ("batch (prepared)", measure(args.seconds, lambda: engine.authorize_batch(batch_prepared, entities),
                                     len(batch_prepared))),
    ]
    print(f"charter {charter.version()}, {len(engine)} policies ({'untyped' if args.untyped else 'typed'}), "
          f"{len(entities)} entities, {n} requests ({base})")
    print(f"{'':20} {'wall':>8} {'cpu':>8}  ns/decision")
    for name, (wall, cpu) in figures:
        print(f"{name:20} {wall:8.0f} {cpu:8.0f}")


if __name__ == "__main__":
    main()
