#!/bin/bash
# `charter test`'s invariants (issue 36, point 3; docs/testing.md,
# "Invariants"): the governance example's invariants hold; with a forbid
# taken out of its policies, the invariant it upholds does not, and the run
# fails with a counterexample that `charter authorize` (the real CLI, with the
# schema) decides as the counterexample claims; an invariant the prover
# cannot decide (unknown) fails too, never passes; a malformed invariant is a
# fault at its place in the file. With NODE, every counterexample is decided
# by Cedar itself too (tests/oracle/prove_check.js), as claimed.
#   invariants_test.sh CHARTER [NODE]   (from the source tree's top)
set -euo pipefail
charter=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
node=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. The example's invariants hold.
status=0
"$charter" test examples/governance/invariants.test.json >"$work/out" 2>"$work/err" || status=$?
[ "$status" -eq 0 ] || fail "the governance invariants: exit $status: $(cat "$work/out" "$work/err")"
[ "$(grep -c '^PASS invariant .*: holds' "$work/out")" -eq 3 ] || fail "not 3 invariants held: $(cat "$work/out")"
tail -n 1 "$work/out" | grep -qx '3 passed, 0 failed' || fail "summary: $(tail -n 1 "$work/out")"
echo "ok: the governance example's 3 invariants hold"

# 2. Without `workload-identities-never-run-lifecycle`, a workload identity in
# a cluster's admin role runs its lifecycle: the invariant does not hold.
# Without `submit-only-through-owned-connections`, a task is submitted through
# a connection that is not in the store: nor does the third.
python3 - examples/governance/policies.cedar "$work/weak.cedar" <<'PY'
import sys
s = open(sys.argv[1]).read()
for policy in ("workload-identities-never-run-lifecycle", "submit-only-through-owned-connections"):
    i = s.index(f'@id("{policy}")')
    j = s.index(";", i)
    s = s[:i] + s[j + 1:]
open(sys.argv[2], "w").write(s)
PY
schema=$(pwd)/stdlib/governance.cedarschema
bound=$(pwd)/examples/governance/invariants/submit-through-owned-reviewed-connections.cedar
cat >"$work/weak.test.json" <<JSON
{"policies": "weak.cedar", "schemas": "$schema",
 "invariants": [
  {"name": "no workload identity performs a cluster-lifecycle action", "property": "always-denies",
   "principal": "Governance::Identity", "action": "Governance::Action::\"clusterLifecycle\"",
   "resource": "Governance::Cluster", "where": "principal.kind == Governance::IdentityKind::\"workload\""},
  {"name": "only an owned, reviewed connection lets anything be submitted", "property": "implies",
   "within": "$bound", "action": "Governance::Action::\"submitTask\""}]}
JSON
status=0
"$charter" test "$work/weak.test.json" >"$work/out" 2>"$work/err" || status=$?
[ "$status" -eq 1 ] || fail "a broken invariant: exit $status, not 1: $(cat "$work/out" "$work/err")"
grep -q '^FAIL invariant no workload identity performs a cluster-lifecycle action: does-not-hold$' "$work/out" ||
  fail "no FAIL line: $(cat "$work/out")"
grep -q '^FAIL invariant only an owned, reviewed connection lets anything be submitted: does-not-hold$' "$work/out" ||
  fail "no FAIL line: $(cat "$work/out")"
tail -n 1 "$work/out" | grep -qx '0 passed, 2 failed' || fail "summary: $(tail -n 1 "$work/out")"
grep -q '^ *counterexample:$' "$work/out" || fail "no counterexample printed: $(cat "$work/out")"
# Each counterexample (JSON output), decided by `charter authorize`.
"$charter" test "$work/weak.test.json" --format json >"$work/out.json" || true
# Prints "N FILE DECISION" for each counterexample and set (the bound's
# decision too, for `implies`), and writes Cedar's checks.
python3 - "$work" "$bound" <<'PY' >"$work/claims.txt"
import json, sys
work, bound = sys.argv[1], sys.argv[2]
run = json.load(open(f"{work}/out.json"))
n, checks = 0, []
# Cedar, given no schema, takes the action groups from the action entities
# (the example ships them, as a set decided without the schema needs them).
actions = [e for e in json.load(open("examples/governance/entities.json")) if e["uid"]["type"] == "Governance::Action"]
for case in run["files"][0]["cases"]:
    assert case["passed"] is False and case["invariant"]["result"] == "does-not-hold", case
    for a in case["invariant"]["answers"]:
        if a["result"] != "does-not-hold":
            continue
        c = a["counterexample"]
        n += 1
        json.dump(c["entities"], open(f"{work}/entities_{n}.json", "w"))
        json.dump(c["request"], open(f"{work}/request_{n}.json", "w"))
        d = c["decision"]
        if "old" in d:
            sides = [(bound, d["old"], "deny"), (f"{work}/weak.cedar", d["new"], "allow")]
        else:
            principal = c["request"]["principal"].split('"')[1]
            kind = [e for e in c["entities"] if e["uid"] == {"type": "Governance::Identity", "id": principal}]
            assert kind and kind[0]["attrs"]["kind"]["__entity"]["id"] == "workload", kind
            sides = [(f"{work}/weak.cedar", d, "allow")]
        for f, dd, want in sides:
            assert dd["decision"] == want, (f, dd)
            print(n, f, dd["decision"])
            checks.append({"what": f"{case['name']} {json.dumps(a['signature'])} ({f})", "policies": open(f).read(),
                           "entities": c["entities"] + actions, "request": c["request"],
                           "decision": {k: dd[k] for k in ("decision", "reasons", "errors")}})
json.dump(checks, open(f"{work}/checks.json", "w"))
PY
checked=0
while read -r k file want; do
  got=$({ "$charter" authorize --policies "$file" --schema "$schema" --entities "$work/entities_$k.json" \
        --request-json "$work/request_$k.json" --format json || true; } | sed -n 's/^{"decision":"\([a-z]*\)".*/\1/p')
  [ "$want" = "$got" ] || fail "counterexample $k, $file: claimed $want, authorize says $got"
  checked=$((checked + 1))
done <"$work/claims.txt"
# 4 lifecycle actions; submitTask by a member and by an identity, each decided by both sets.
[ "$checked" -eq 8 ] || fail "$checked decisions checked, not 8"
echo "ok: without the forbids, two invariants fail with counterexamples that charter authorize decides as claimed ($checked decisions)"
if [ -n "$node" ]; then
  oracle=$(pwd)/tests/oracle
  [ -d "$oracle/node_modules" ] || fail "$oracle/node_modules is missing: run make deps"
  "$node" "$oracle/prove_check.js" "$work/checks.json"
fi

# 3. Unknown is a failure: a condition outside the encoding (`like`).
cat >"$work/unknown.test.json" <<JSON
{"policies": "$(pwd)/examples/governance/policies.cedar", "schemas": "$schema",
 "invariants": [
  {"name": "nobody with a short e-mail views a task", "property": "always-denies",
   "principal": "Governance::Member", "action": "Governance::Action::\"viewTask\"", "resource": "Governance::Task",
   "where": "principal.email like \"?*\""}]}
JSON
status=0
"$charter" test "$work/unknown.test.json" >"$work/out" 2>"$work/err" || status=$?
[ "$status" -eq 1 ] || fail "an unknown invariant: exit $status, not 1: $(cat "$work/out" "$work/err")"
grep -q '^FAIL invariant nobody with a short e-mail views a task: unknown$' "$work/out" || fail "$(cat "$work/out")"
grep -q 'unknown (`like` in policy `where`' "$work/out" || fail "no reason for unknown: $(cat "$work/out")"
echo "ok: an unknown invariant fails"

# 4. A malformed invariant is a fault at its place.
printf '%s\n' '{"policies": "weak.cedar", "schemas": "'"$schema"'",' \
  ' "invariants": [{"property": "always-denys"}]}' >"$work/bad.test.json"
status=0
"$charter" test "$work/bad.test.json" >"$work/out" 2>"$work/err" || status=$?
[ "$status" -eq 1 ] || fail "a malformed invariant: exit $status"
grep -q 'bad.test.json:2:30: invariant 1: "property" must be one of always-denies' "$work/err" ||
  fail "fault: $(cat "$work/err")"
echo "ok: a malformed invariant is reported at its line and column"
