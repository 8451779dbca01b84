#!/usr/bin/env python3
"""`charter report` over the fixture of this directory (cluster.charter,
workloads.yaml, decisions.jsonl): every figure of usage.csv and usage.json
against hours computed by hand from the fixture's times, the SVG files
well-formed (XML) with the expected figures, index.html self-contained, the
decision log's counts per policy and period, --from/--to, the faults
(file:line:col, an input as -o), and `charter schedule --format table`.

    python3 report_test.py CHARTER OUT_DIR
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
CHARTER = os.path.abspath(sys.argv[1])
OUT = os.path.abspath(sys.argv[2])
CLUSTER = os.path.join(HERE, "cluster.charter")
WORKLOADS = os.path.join(HERE, "workloads.yaml")
DECISIONS = os.path.join(HERE, "decisions.jsonl")
SVG = "{http://www.w3.org/2000/svg}"


def run(*args, ok=True):
    p = subprocess.run([CHARTER, *args], capture_output=True, text=True, timeout=60)
    if ok and p.returncode != 0:
        sys.exit(f"charter {' '.join(args)} exited {p.returncode}: {p.stderr}")
    return p


def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)


shutil.rmtree(OUT, ignore_errors=True)
run("report", "--policies", CLUSTER, "--workloads", WORKLOADS, "--now", "2026-03-02T12:00:00Z", "-o", OUT)
check(sorted(os.listdir(OUT)) == ["index.html", "quota-tree.svg", "usage.csv", "usage.json", "waiting.svg"],
      f"the files written: {sorted(os.listdir(OUT))}")

# --- usage.csv: GPU-hours by hand, from workloads.yaml's times ---------------
# team-a (nominal 4): a1 holds 4 GPUs from 03-01 09:00 to 15:00; a2 holds 4
# from 03-01 12:00 and still runs at --now (03-02 12:00).
#   03-01 09-12: 4 used          -> own 4x3 = 12
#   03-01 12-15: 8 used, 4 above -> own 4x3 = 12, borrowed 4x3 = 12
#   03-01 15-24: 4 used          -> own 4x9 = 36
#   so 03-01: own 60, borrowed 12; 03-02 00-12: 4 used -> own 48.
# team-b (nominal 4): b1 holds 2 GPUs on 03-02 from 06:00 to 08:00 -> own 4;
# nothing on 03-01, which is a row too (every day from the first admission).
expected = [
    ["team-a", "research", "nvidia.com/gpu", "2026-03-01", "60", "12", "72"],
    ["team-a", "research", "nvidia.com/gpu", "2026-03-02", "48", "0", "48"],
    ["team-b", "research", "nvidia.com/gpu", "2026-03-01", "0", "0", "0"],
    ["team-b", "research", "nvidia.com/gpu", "2026-03-02", "4", "0", "4"],
]
with open(os.path.join(OUT, "usage.csv"), newline="") as f:
    rows = list(csv.reader(f))
check(rows[0] == ["cluster_queue", "cohort", "resource", "day", "own_hours", "borrowed_hours", "total_hours"],
      f"usage.csv header: {rows[0]}")
check(rows[1:] == expected, f"usage.csv rows: {rows[1:]}")

with open(os.path.join(OUT, "usage.json")) as f:
    usage = json.load(f)
check(usage["now"] == "2026-03-02T12:00:00Z", f"usage.json now: {usage['now']}")
check([[r["cluster_queue"], r["cohort"], r["resource"], r["day"], str(r["own"]), str(r["borrowed"])]
       for r in usage["rows"]] == [e[:6] for e in expected], f"usage.json rows: {usage['rows']}")

# --- quota-tree.svg ------------------------------------------------------------
tree = ET.parse(os.path.join(OUT, "quota-tree.svg")).getroot()
check(tree.tag == SVG + "svg", "quota-tree.svg is an svg element")
bars = {g.get("data-queue"): g for g in tree.iter(SVG + "g") if g.get("class") == "bar"}
check(sorted(bars) == ["team-a", "team-b"], f"a bar per queue: {sorted(bars)}")
# Now (--now): a2 holds 4 of team-a's 4; b1 has finished, team-b holds none.
check(bars["team-a"].get("data-used") == "4" and bars["team-a"].get("data-nominal") == "4", "team-a's bar figures")
text_a = "".join(t.text or "" for t in bars["team-a"].iter(SVG + "text"))
check("used 4 of nominal 4: 4 own; borrow limit 4; lend limit 2" in text_a, f"team-a's label: {text_a}")
text_b = "".join(t.text or "" for t in bars["team-b"].iter(SVG + "text"))
check("used 0 of nominal 4: 0 own; borrow no limit; lend no limit; 4 idle to lend" in text_b, f"team-b's label: {text_b}")
check(all(r.find(SVG + "title") is not None for r in bars["team-a"].iter(SVG + "rect")), "every bar segment has a tooltip")
legend = " ".join(t.text or "" for g in tree.iter(SVG + "g") if g.get("class") == "legend" for t in g.iter(SVG + "text"))
for word in ["own quota in use", "borrowed from the cohort", "lent to the cohort's borrowers", "nominal quota",
             "nominal + borrowing limit"]:
    check(word in legend, f"legend has `{word}`: {legend}")

# --- who lends what (lending.charter, lending.json) ---------------------------------
# Kueue pools a cohort's idle quota; the report attributes what is borrowed to
# the lenders, nearest cohort first, in proportion to what each offers (the
# fixture's comment works the figures out).
LEND_OUT = OUT + "-lending"
shutil.rmtree(LEND_OUT, ignore_errors=True)
run("report", "--policies", os.path.join(HERE, "lending.charter"), "--workloads", os.path.join(HERE, "lending.json"),
    "--now", "2026-03-01T12:00:00Z", "-o", LEND_OUT)
lend_tree = ET.parse(os.path.join(LEND_OUT, "quota-tree.svg")).getroot()
cells = {(g.get("data-queue"), g.get("data-flavor")): g for g in lend_tree.iter(SVG + "g") if g.get("class") == "bar"}
lent = {k: (int(g.get("data-used")), int(g.get("data-borrowed")), int(g.get("data-lent"))) for k, g in cells.items()}
check(lent == {("q1", "a100"): (8, 4, 0), ("q2", "a100"): (0, 0, 1), ("q3", "a100"): (0, 0, 2), ("q4", "a100"): (3, 0, 1),
               ("q1", "h100"): (2, 2, 0), ("q2", "h100"): (0, 0, 1), ("q3", "h100"): (0, 0, 1)},
      f"used, borrowed and lent per queue and flavor: {lent}")
for flavor in ["a100", "h100"]:
    check(sum(v[1] for k, v in lent.items() if k[1] == flavor) == sum(v[2] for k, v in lent.items() if k[1] == flavor),
          f"in {flavor}, what is lent is what is borrowed")
figures = {k: "".join(t.text or "" for t in g.iter(SVG + "text") if t.get("class") == "figures") for k, g in cells.items()}
check(figures[("q4", "a100")] == "used 3 of nominal 6: 3 own; borrow no limit; lend no limit; 1 lent; 2 idle to lend",
      f"q4's figures: {figures[('q4', 'a100')]}")
check(figures[("q2", "a100")] == "used 0 of nominal 4: 0 own; borrow no limit; lend limit 1; 1 lent",
      f"q2's figures (its lending limit is lent): {figures[('q2', 'a100')]}")
lent_rects = [r for r in cells[("q4", "a100")].iter(SVG + "rect") if r.get("class") == "lent"]
check(len(lent_rects) == 1 and lent_rects[0].find(SVG + "title").text.endswith("1 of the nominal quota lent to the cohort's borrowers"),
      "q4's lent segment with its tooltip")

# --- waiting.svg: wait to admission, evictions, pending ---------------------------
waiting = ET.parse(os.path.join(OUT, "waiting.svg")).getroot()
waits = {g.get("data-queue"): g for g in waiting.iter(SVG + "g") if g.get("class") == "wait"}
# team-a waited 1h (a1) and 2h (a2): p50 1h, p90 and max 2h (nearest rank);
# team-b 6h (b1), evicted once by preemption.
check((waits["team-a"].get("data-p50"), waits["team-a"].get("data-p90"), waits["team-a"].get("data-max")) ==
      ("3600", "7200", "7200"), "team-a's wait percentiles")
check((waits["team-b"].get("data-p50"), waits["team-b"].get("data-evictions"), waits["team-b"].get("data-preemptions")) ==
      ("21600", "1", "1"), "team-b's wait and evictions")
wait_text = "".join(t.text or "" for t in waits["team-a"].iter(SVG + "text"))
check("p50 1h, p90 2h, max 2h (2 admitted); 0 evictions, 0 preempted" in wait_text, f"team-a's wait label: {wait_text}")
pending = {g.get("data-workload"): g.get("data-reason") for g in waiting.iter(SVG + "g") if g.get("class") == "pending"}
# The reasons `charter schedule` gives (checked against it below).
check(pending == {"p1": "Admitted", "p2": "WaitingForQuota", "p3": "PendingEvaluation"}, f"pending: {pending}")
sched = run("schedule", "--policies", CLUSTER, "--workloads", WORKLOADS, "--now", "2026-03-02T12:00:00Z").stdout
check("ADMIT    p1 (team-b)" in sched and "PENDING  p2 (team-a) no_fit, inadmissible; WaitingForQuota" in sched and
      "QUEUED   p3 (team-a)" in sched and "PendingEvaluation" in sched, f"charter schedule says: {sched}")
p2_message = sched.split("PENDING  p2")[1].split("\n")[1].strip()
with open(os.path.join(OUT, "index.html")) as f:
    html = f.read()
check(p2_message in html.replace("&#39;", "'").replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
      .replace("&amp;", "&"), f"index.html has p2's message as charter schedule gives it: {p2_message}")

# --- index.html: self-contained ---------------------------------------------------
for needle in ["<script", "http://", "https://", "src=", "<link", "@import", "url("]:
    if needle == "http://":
        # The one namespace URI of the inlined SVG is a name, not a request.
        check(html.count("http://") == html.count("http://www.w3.org/2000/svg"), "no http:// reference")
        continue
    check(needle not in html, f"index.html has no `{needle}`")
check(html.count("<svg") == 2, "both charts inlined")

# --- the default time: the latest in the workloads (p3's creation, 11:30) ---------
out2 = OUT + "-default-now"
shutil.rmtree(out2, ignore_errors=True)
run("report", "--policies", CLUSTER, "--workloads", WORKLOADS, "-o", out2)
with open(os.path.join(out2, "usage.csv"), newline="") as f:
    rows2 = list(csv.reader(f))
check(rows2[2] == ["team-a", "research", "nvidia.com/gpu", "2026-03-02", "46", "0", "46"], f"default now: {rows2[2]}")

# --- faults ----------------------------------------------------------------------
p = run("report", "--policies", CLUSTER, "--workloads", WORKLOADS, "-o", WORKLOADS, ok=False)
check(p.returncode == 1 and "is an input of this command" in p.stderr, f"-o an input: {p.stderr}")
bad = os.path.join(OUT + "-bad.yaml")
with open(bad, "w") as f:
    f.write("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: team-a}\n"
            "spec:\n  queueName: main\n  podSets:\n  - name: main\n    count: -1\n")
out3 = OUT + "-not-written"
shutil.rmtree(out3, ignore_errors=True)
p = run("report", "--policies", CLUSTER, "--workloads", bad, "-o", out3, ok=False)
check(p.returncode == 1 and f"{bad}:8:12:" in p.stderr, f"a fault names file:line:col: {p.stderr}")
check(not os.path.exists(out3), "nothing written on a fault")

# --- decisions (--decision-log): counts per policy and hour, by hand -----------
# decisions.jsonl spans 03-01 09:10 to 03-02 12:00 (under two days: a bar an
# hour). u2 has two determining policies and counts in both rows; u4 denies
# with no policy permitting (quota-check erred); u5 was not decided (an error
# of `(mapping)`); u6 is 10:30Z (+01:00).
out4 = OUT + "-decisions"
shutil.rmtree(out4, ignore_errors=True)
run("report", "--policies", CLUSTER, "--workloads", WORKLOADS, "--decision-log", DECISIONS, "-o", out4)
check(sorted(os.listdir(out4)) == ["decisions.csv", "decisions.svg", "index.html", "quota-tree.svg", "usage.csv",
                                   "usage.json", "waiting.svg"], f"the files written: {sorted(os.listdir(out4))}")
with open(os.path.join(out4, "decisions.csv"), newline="") as f:
    drows = list(csv.reader(f))
check(drows == [
    ["period_start", "policy", "decision", "count"],
    ["2026-03-01T09:00:00Z", "admins", "allow", "1"],
    ["2026-03-01T09:00:00Z", "team-a-submits", "allow", "2"],
    ["2026-03-01T10:00:00Z", "(no policy permits)", "deny", "1"],
    ["2026-03-01T10:00:00Z", "gpu-work-goes-through-kueue", "deny", "1"],
    ["2026-03-02T10:00:00Z", "(no opinion)", "no opinion", "1"],
    ["2026-03-02T11:00:00Z", "(review not decided)", "deny", "1"],
    ["2026-03-02T12:00:00Z", "gpu-work-goes-through-kueue", "deny", "1"],
], f"decisions.csv: {drows}")
dsvg = ET.parse(os.path.join(out4, "decisions.svg")).getroot()
policy_rows = [(g.get("data-policy"), g.get("data-allow"), g.get("data-deny"), g.get("data-no-opinion"))
               for g in dsvg.iter(SVG + "g") if g.get("class") == "policy-row"]
# Most decisions first, then by name.
check(policy_rows == [("gpu-work-goes-through-kueue", "0", "2", "0"), ("team-a-submits", "2", "0", "0"),
                      ("(no opinion)", "0", "0", "1"), ("(no policy permits)", "0", "1", "0"),
                      ("(review not decided)", "0", "1", "0"), ("admins", "1", "0", "0")],
      f"decisions.svg rows: {policy_rows}")
bars = [r for g in dsvg.iter(SVG + "g") if g.get("data-policy") == "gpu-work-goes-through-kueue"
        for r in g.iter(SVG + "rect") if r.get("class") == "deny"]
check([b.find(SVG + "title").text for b in bars] ==
      ["gpu-work-goes-through-kueue, 2026-03-01T10:00Z: 1 decision deny",
       "gpu-work-goes-through-kueue, 2026-03-02T12:00Z: 1 decision deny"], "a deny bar a period, with its tooltip")
# 28 hourly periods (03-01 09:00 to 03-02 12:00): its bars at 10:00 and, 26 periods on, 12:00.
xs = [float(b.get("x")) for b in bars]
width = float(bars[0].get("width")) + 1
check(abs((xs[1] - xs[0]) / width - 26) < 1e-6, f"the bars' periods: {xs}, {width}")
dlegend = " ".join(t.text or "" for g in dsvg.iter(SVG + "g") if g.get("class") == "legend" for t in g.iter(SVG + "text"))
for word in ["a bar an hour (7 decisions)", "allow", "deny", "no opinion"]:
    check(word in dlegend, f"decisions legend has `{word}`: {dlegend}")
with open(os.path.join(out4, "index.html")) as f:
    dhtml = f.read()
check("7 decisions from 2026-03-01T09:00:00Z to 2026-03-02T13:00:00Z: 2 allowed, 4 denied, 1 no opinion (1 not "
      "decided: the review did not map to a request)." in dhtml, "the decision summary")
denial_table = dhtml.split('<table id="denials">')[1].split("</table>")[0]
check([r.split('"')[1] for r in denial_table.split("<tr data-reason=")[1:]] ==
      ["gpu-work-goes-through-kueue", "(no policy permits)", "(review not decided)"], f"top denials: {denial_table}")
check("<td class=\"n\">2</td><td class=\"n\">50%</td>" in denial_table, "2 of the 4 denials: 50%")
check('<tr data-policy="quota-check"><td>quota-check</td><td class="n">1</td></tr>' in dhtml, "the policy that erred")
check(dhtml.count("<svg") == 3 and "<script" not in dhtml, "three charts inlined, no script")

# --- --from / --to: usage clipped, waits and decisions within ------------------------
# From 03-01 12:00 to the end of 03-01: team-a 12-15 8 used (own 12, borrowed
# 12), 15-24 4 used (own 36); team-b nothing. Waits: only a2 was admitted in
# the period (2h); b1 (admitted 03-02) leaves team-b with none.
out5 = OUT + "-period"
shutil.rmtree(out5, ignore_errors=True)
run("report", "--policies", CLUSTER, "--workloads", WORKLOADS, "--now", "2026-03-02T12:00:00Z", "--decision-log",
    DECISIONS, "--from", "2026-03-01T12:00:00Z", "--to", "2026-03-01", "-o", out5)
with open(os.path.join(out5, "usage.csv"), newline="") as f:
    prows = list(csv.reader(f))[1:]
# (A row a queue and resource used in the period: team-b used nothing in it.)
check(prows == [["team-a", "research", "nvidia.com/gpu", "2026-03-01", "48", "12", "60"]], f"usage in the period: {prows}")
pwait = {g.get("data-queue"): g for g in ET.parse(os.path.join(out5, "waiting.svg")).getroot().iter(SVG + "g")
         if g.get("class") == "wait"}
check((pwait["team-a"].get("data-p50"), pwait["team-a"].get("data-max"), pwait["team-b"].get("data-max"),
       pwait["team-b"].get("data-evictions")) == ("7200", "7200", "0", "0"), "waits in the period")
with open(os.path.join(out5, "decisions.csv"), newline="") as f:
    check(list(csv.reader(f))[1:] == [], "no decision between 03-01 12:00 and 03-02")
with open(os.path.join(out5, "index.html")) as f:
    phtml = f.read()
check("0 decisions: 0 allowed, 0 denied, 0 no opinion; 7 lines outside the period left out." in phtml,
      "the summary counts what the period left out")
check("The period: 2026-03-01T12:00:00Z to 2026-03-02T00:00:00Z" in phtml, "the period is stated")

# Decisions alone, over policies that declare no scheduling.
out6 = OUT + "-authorization"
shutil.rmtree(out6, ignore_errors=True)
cedar = os.path.join(OUT + "-plain.cedar")
with open(cedar, "w") as f:
    f.write("permit (principal, action, resource);\n")
run("report", "--policies", cedar, "--decision-log", DECISIONS, "--from", "2026-03-02", "-o", out6)
check(sorted(os.listdir(out6)) == ["decisions.csv", "decisions.svg", "index.html"], f"decisions only: {os.listdir(out6)}")
p = run("report", "--policies", cedar, "--decision-log", DECISIONS, "--workloads", WORKLOADS, "-o", out6, ok=False)
check(p.returncode == 1 and "declare no scheduling configuration" in p.stderr, f"--workloads needs scheduling: {p.stderr}")

# Faults in a decision log name file:line:col; nothing is written.
badlog = OUT + "-bad.jsonl"
with open(badlog, "w") as f:
    f.write('{"time":"2026-03-01T00:00:00Z","decision":"allow","reasons":["a"]}\n'
            '{"time": "noon", "decision":"allow"}\n'
            '{"decision":"deny"}\n'
            '{"time":"2026-03-01T00:00:00Z","decision":"perhaps"}\n'
            '{"time":"2026-03-01T00:00:00Z","decision":"deny","reasons":"a"}\n')
out7 = OUT + "-bad-log"
shutil.rmtree(out7, ignore_errors=True)
p = run("report", "--policies", CLUSTER, "--decision-log", badlog, "-o", out7, ok=False)
for needle in [f"{badlog}:2:10: `time` is `noon`, not an RFC 3339 time",
               f"{badlog}:3:1: the line has no `time`",
               f"{badlog}:4:1: the line's `decision` is `perhaps`, not allow, deny or no opinion",
               f"{badlog}:5:60: `reasons` must be an array of strings"]:
    check(needle in p.stderr, f"a decision-log fault: `{needle}` in {p.stderr}")
check(p.returncode == 1 and not os.path.exists(out7), "nothing written on a fault")
for args, needle in [(["--from", "2026-03-02", "--to", "2026-03-01"], "--from 2026-03-02 is not before --to 2026-03-01"),
                     (["--to", "soon"], "--to: `soon` is neither a date (YYYY-MM-DD) nor an RFC 3339 time")]:
    p = run("report", "--policies", CLUSTER, "--decision-log", DECISIONS, *args, "-o", out7, ok=False)
    check(p.returncode == 1 and needle in p.stderr, f"{args}: {p.stderr}")

# --- --simulate: predicted admission, worked out by hand -------------------------------
# Run times learned from the finished: team-a's a1 ran 6h, team-b's b1 2h.
# At now (03-02 12:00) a2 has run 24h, past team-a's 6h: it finishes a second
# from now. p1 (team-b) is admitted by the first cycle (run time 2h: until
# 14:00). After a2 leaves (+1s), p3 (1 GPU) is admitted in the next cycles
# (+4s: each simulated cycle is a second) and holds 1 until 18:00:04; p2 needs
# 8 = team-a's 4 + 4 borrowed, which p3's 1 GPU prevents until it finishes:
# p2 at 18:00:04.
out8 = OUT + "-simulate"
shutil.rmtree(out8, ignore_errors=True)
run("report", "--policies", CLUSTER, "--workloads", WORKLOADS, "--now", "2026-03-02T12:00:00Z", "--simulate", "100",
    "-o", out8)
swait = ET.parse(os.path.join(out8, "waiting.svg")).getroot()
predicted = {g.get("data-workload"): g.get("data-predicted") for g in swait.iter(SVG + "g") if g.get("class") == "pending"}
check(predicted == {"p1": "2026-03-02T12:00:00Z", "p2": "2026-03-02T18:00:04Z", "p3": "2026-03-02T12:00:04Z"},
      f"predicted admissions: {predicted}")
ptext = [t.text for t in swait.iter(SVG + "text") if t.get("class") == "prediction"]
check(any(t.startswith("predicted admission: 2026-03-02T18:00:04Z (in 6h, by ") and
          t.endswith("with run times learned from 2 finished workloads)") for t in ptext), f"p2's line: {ptext}")
with open(os.path.join(out8, "index.html")) as f:
    shtml = f.read()
check("<th>predicted admission</th>" in shtml and '<td class="prediction">2026-03-02T18:00:04Z (in 6h' in shtml,
      "the pending table's predicted admission")
# Too few cycles: none, and why.
run("report", "--policies", CLUSTER, "--workloads", WORKLOADS, "--now", "2026-03-02T12:00:00Z", "--simulate", "1",
    "-o", out8)
swait = ET.parse(os.path.join(out8, "waiting.svg")).getroot()
ptext = {g.get("data-workload"): "".join(t.text for t in g.iter(SVG + "text") if t.get("class") == "prediction")
         for g in swait.iter(SVG + "g") if g.get("class") == "pending"}
check(ptext["p2"] == "predicted admission: none: not admitted within the 1 cycles simulated (--simulate)",
      f"--simulate 1: {ptext}")
# Workloads without a history (the state format): nothing to learn run times from.
state = OUT + "-state.json"
with open(state, "w") as f:
    json.dump({"admitted": [], "pending": [{"name": "s1", "cluster_queue": "team-a",
                                            "pod_sets": [{"name": "main", "count": 1, "requests": {"nvidia.com/gpu": 1}}]}]}, f)
run("report", "--policies", CLUSTER, "--workloads", state, "--simulate", "10", "-o", out8)
with open(os.path.join(out8, "index.html")) as f:
    check("none: no finished workload in the history to learn run times from" in f.read(), "no history, no prediction")
p = run("report", "--policies", CLUSTER, "--decision-log", DECISIONS, "--simulate", "10", "-o", out8, ok=False)
check(p.returncode == 1 and "--workloads (for --simulate) is required" in p.stderr, f"--simulate alone: {p.stderr}")

# --- a `charter simulate` run as the workloads source ---------------------------------
# simulate -o writes the state after its cycles; the report draws it: p1
# admitted by then (team-b holds 4, where the state of now holds none); p2
# and p3 still wait in team-a behind a2's 4.
after = OUT + "-after.json"
run("simulate", "--policies", CLUSTER, "--workloads", WORKLOADS, "--now", "2026-03-02T12:00:00Z", "-o", after)
out9 = OUT + "-from-simulate"
shutil.rmtree(out9, ignore_errors=True)
run("report", "--policies", CLUSTER, "--workloads", after, "-o", out9)
stree = ET.parse(os.path.join(out9, "quota-tree.svg")).getroot()
sused = {g.get("data-queue"): g.get("data-used") for g in stree.iter(SVG + "g") if g.get("class") == "bar"}
check(sused == {"team-a": "4", "team-b": "4"}, f"the report of a simulate run: {sused}")
p = run("report", "--policies", os.path.join(OUT + "-plain.cedar"), "--workloads", after, "-o", out9, ok=False)
check(p.returncode == 1, f"a state over other queues is refused: {p.stderr}")

# --- charter schedule --format table --------------------------------------------------
table = run("schedule", "--policies", CLUSTER, "--workloads", WORKLOADS, "--format", "table").stdout
# After the cycle: p1 admitted in team-b (4 of 4); p2 and p3 wait in team-a,
# where a2 holds 4 of 4.
check(table.splitlines() == [
    "NAME     COHORT     PENDING WORKLOADS   ADMITTED WORKLOADS   nvidia.com/gpu (USED/NOMINAL)",
    "team-a   research   2                   1                    4/4",
    "team-b   research   0                   1                    4/4",
], f"schedule --format table:\n{table}")
print("report_test: ok")
