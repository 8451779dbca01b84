#!/bin/bash
# `charter test`'s invariants (issue 36, point 3; docs/testing.md,
# "Invariants"): the governance example's invariants hold; with a forbid
# taken out of its policies, the invariant it upholds does not, and the run
# fails with a counterexample that `charter authorize` (the real CLI, with the
# schema) decides as the counterexample claims; an invariant the prover
# cannot decide (unknown) fails too, never passes; a malformed invariant is a
# fault at its place in the file.
#   invariants_test.sh CHARTER   (from the source tree's top)
set -euo pipefail
charter=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
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
python3 - examples/governance/policies.cedar "$work/weak.cedar" <<'PY'
import sys
s = open(sys.argv[1]).read()
i = s.index('@id("workload-identities-never-run-lifecycle")')
j = s.index(";", i)
open(sys.argv[2], "w").write(s[:i] + s[j + 1:])
PY
schema=$(pwd)/stdlib/governance.cedarschema
cat >"$work/weak.test.json" <<JSON
{"policies": "weak.cedar", "schemas": "$schema",
 "invariants": [
  {"name": "no workload identity performs a cluster-lifecycle action", "property": "always-denies",
   "principal": "Governance::Identity", "action": "Governance::Action::\"clusterLifecycle\"",
   "resource": "Governance::Cluster", "where": "principal.kind == Governance::IdentityKind::\"workload\""}]}
JSON
status=0
"$charter" test "$work/weak.test.json" >"$work/out" 2>"$work/err" || status=$?
[ "$status" -eq 1 ] || fail "a broken invariant: exit $status, not 1: $(cat "$work/out" "$work/err")"
grep -q '^FAIL invariant no workload identity performs a cluster-lifecycle action: does-not-hold$' "$work/out" ||
  fail "no FAIL line: $(cat "$work/out")"
grep -q '^ *counterexample:$' "$work/out" || fail "no counterexample printed: $(cat "$work/out")"
# Each counterexample (JSON output), decided by `charter authorize`.
"$charter" test "$work/weak.test.json" --format json >"$work/out.json" || true
python3 - "$work" <<'PY' >"$work/claims.txt"
import json, sys
work = sys.argv[1]
run = json.load(open(f"{work}/out.json"))
n = 0
for case in run["files"][0]["cases"]:
    assert case["passed"] is False and case["invariant"]["result"] == "does-not-hold", case
    for a in case["invariant"]["answers"]:
        if a["result"] != "does-not-hold":
            continue
        c = a["counterexample"]
        n += 1
        json.dump(c["entities"], open(f"{work}/entities_{n}.json", "w"))
        json.dump(c["request"], open(f"{work}/request_{n}.json", "w"))
        kind = [e for e in c["entities"] if e["uid"] == {"type": "Governance::Identity", "id": c["request"]["principal"].split('"')[1]}]
        assert kind and kind[0]["attrs"]["kind"]["__entity"]["id"] == "workload", kind
        print(n, c["decision"]["decision"])
PY
checked=0
while read -r k want; do
  [ "$want" = allow ] || fail "counterexample $k claims $want, not allow"
  got=$({ "$charter" authorize --policies "$work/weak.cedar" --schema "$schema" --entities "$work/entities_$k.json" \
        --request-json "$work/request_$k.json" --format json || true; } | sed -n 's/^{"decision":"\([a-z]*\)".*/\1/p')
  [ "$want" = "$got" ] || fail "counterexample $k: claimed $want, authorize says $got"
  checked=$((checked + 1))
done <"$work/claims.txt"
[ "$checked" -eq 4 ] || fail "$checked counterexamples checked, not 4 (one a lifecycle action)"
echo "ok: without the forbid, the invariant fails with $checked counterexamples, each allowed by charter authorize"

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
