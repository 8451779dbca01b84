#!/bin/bash
# Every counterexample `charter prove` prints is one anyone can run: for each
# property over tests/cli/prove/'s schema and policy sets, each
# counterexample's entities and request are written to files and decided by
# `charter authorize` (the real CLI, with the schema), which must give the
# decision the counterexample claims; the exit statuses are checked too.
# With NODE (and tests/oracle's node_modules), every counterexample is then
# decided by Cedar itself (tests/oracle/prove_check.js) as claimed: the
# set's decision, and for a policy property the policy's own outcome and the
# decision without it.
#   prove_counterexamples_test.sh CHARTER [NODE]
set -euo pipefail
charter=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
node=${2:-}
dir=$(cd "$(dirname "$0")/prove" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
checked=0
# Splits the answers (stdin) into files, prints "N DECISION" or "N OLD NEW"
# a counterexample, and appends Cedar's checks to $work/checks.jsonl. A Long
# beyond 2^53 does not survive JavaScript's numbers: that counterexample is
# left out of Cedar's checks (counted in $work/unsafe).
#   split_claims WORK PROPERTY POLICIES [NEW_POLICIES]
split_claims=$(cat <<'PY'
import json, sys
work, prop, files, n = sys.argv[1], sys.argv[2], sys.argv[3:], 0
def safe(v):
    if isinstance(v, bool): return True
    if isinstance(v, int): return abs(v) <= 2**53
    if isinstance(v, list): return all(safe(x) for x in v)
    if isinstance(v, dict): return all(safe(x) for x in v.values())
    return True
checks = open(f"{work}/checks.jsonl", "a")
for line in sys.stdin:
    answer = json.loads(line)
    for c in answer.get("counterexamples") or ([answer["counterexample"]] if "counterexample" in answer else []):
        n += 1
        json.dump(c["entities"], open(f"{work}/entities_{n}.json", "w"))
        json.dump(c["request"], open(f"{work}/request_{n}.json", "w"))
        d = c["decision"]
        print(n, d["decision"] if "decision" in d else d["old"]["decision"] + " " + d["new"]["decision"])
        if not (safe(c["entities"]) and safe(c["request"])):
            open(f"{work}/unsafe", "a").write("x\n")
            continue
        sides = [(files[0], d)] if "decision" in d else [(files[0], d["old"]), (files[1], d["new"])]
        for f, dd in sides:
            check = {"what": f"{prop} {answer.get('policy', '')} {json.dumps(answer['signature'])} ({f})",
                     "policies": open(f).read(), "entities": c["entities"], "request": c["request"],
                     "decision": {k: dd[k] for k in ("decision", "reasons", "errors")}}
            if "policy" in dd:
                check["policy"] = dd["policy"]
                check["withoutPolicy"] = dd["withoutPolicy"]
            checks.write(json.dumps(check) + "\n")
PY
)

# check PROPERTY EXPECTED_EXIT ARGS...: runs the proof, then each counterexample.
check() {
  local property=$1 expected=$2
  shift 2
  local status=0
  "$charter" prove "$property" --schema "$dir/schema.cedarschema" --format json "$@" >"$work/out.jsonl" || status=$?
  if [ "$status" != "$expected" ]; then
    echo "FAIL: prove $property $*: exit $status, expected $expected"; cat "$work/out.jsonl"; exit 1
  fi
  # Each counterexample's entities and request to files (python3, not jq:
  # jq 1.6 reads integers as doubles and would change 2^63-1), with the
  # decisions claimed: "N DECISION" or "N OLD NEW" a line.
  if [ "$1" = --policies ]; then
    python3 -c "$split_claims" "$work" "$property" "$2" <"$work/out.jsonl" >"$work/claims.txt"
  else
    python3 -c "$split_claims" "$work" "$property" "$2" "$4" <"$work/out.jsonl" >"$work/claims.txt"
  fi
  local k want want_new got
  while read -r k want want_new; do
    if [ "$1" = --policies ]; then
      # (authorize exits 2 on a deny: the decision is what is compared)
      got=$({ "$charter" authorize --policies "$2" --schema "$dir/schema.cedarschema" --entities "$work/entities_$k.json" \
            --request-json "$work/request_$k.json" --format json || true; } | sed -n 's/^{"decision":"\([a-z]*\)".*/\1/p')
      [ "$want" = "$got" ] || { echo "FAIL: $property: claimed $want, authorize says $got"; cat "$work/out.jsonl"; exit 1; }
    else
      for side in old new; do
        local file=$2 claimed=$want
        [ $side = new ] && { file=$4; claimed=$want_new; }
        got=$({ "$charter" authorize --policies "$file" --schema "$dir/schema.cedarschema" --entities "$work/entities_$k.json" \
              --request-json "$work/request_$k.json" --format json || true; } | sed -n 's/^{"decision":"\([a-z]*\)".*/\1/p')
        [ "$claimed" = "$got" ] || { echo "FAIL: $property ($side): claimed $claimed, authorize says $got"; cat "$work/out.jsonl"; exit 1; }
      done
    fi
    checked=$((checked + 1))
  done <"$work/claims.txt"
}

check always-allows 2 --policies "$dir/old.cedar"
check always-denies 2 --policies "$dir/old.cedar"
check always-denies 2 --policies "$dir/new.cedar"
check never-errors 2 --policies "$dir/new.cedar"
check never-errors 2 --policies "$dir/old.cedar"
check implies 2 --old "$dir/old.cedar" --new "$dir/new.cedar"
check equivalent 2 --old "$dir/old.cedar" --new "$dir/new.cedar"
check compare 2 --old "$dir/old.cedar" --new "$dir/new.cedar"
check equivalent 0 --old "$dir/old.cedar" --new "$dir/old.cedar"
check disjoint 2 --old "$dir/old.cedar" --new "$dir/new.cedar"
check disjoint 0 --old "$dir/guests.cedar" --new "$dir/policies.cedar" --action edit
# Per policy: each policy of policies.cedar (one a line, with ids), then one.
check vacuous 2 --policies "$dir/policies.cedar"
check vacuous 0 --policies "$dir/policies.cedar" --policy never
check shadowed 2 --policies "$dir/policies.cedar"
check shadowed 0 --policies "$dir/policies.cedar" --policy view-admins
check redundant 2 --policies "$dir/policies.cedar"
check redundant 2 --policies "$dir/old.cedar"
check overridden 2 --policies "$dir/policies.cedar"
check overridden 0 --policies "$dir/policies.cedar" --policy guest-edit
[ "$checked" -ge 30 ] || { echo "FAIL: only $checked counterexamples checked"; exit 1; }
echo "ok: $checked counterexamples decided by charter authorize as claimed"

# A bundle is its policies: the same answers as from the files it was built from.
(cd "$dir" && "$charter" build --policies policies.cedar --schema schema.cedarschema -o "$work/p.cbundle" >/dev/null)
from_files=$("$charter" prove redundant --policies "$dir/policies.cedar" --schema "$dir/schema.cedarschema" \
  --format json | python3 -c 'import json,sys; print([(a["policy"], a["result"]) for a in map(json.loads, sys.stdin)])' || true)
from_bundle=$(cd "$dir" && "$charter" prove redundant --bundle "$work/p.cbundle" --schema schema.cedarschema \
  --format json | python3 -c 'import json,sys; print([(a["policy"], a["result"]) for a in map(json.loads, sys.stdin)])' || true)
[ -n "$from_files" ] && [ "$from_files" = "$from_bundle" ] ||
  { echo "FAIL: prove --bundle: $from_bundle, from the files: $from_files"; exit 1; }
echo "ok: prove --bundle answers as the files it was built from"

if [ -n "$node" ]; then
  oracle=$(cd "$(dirname "$0")/../oracle" && pwd)
  [ -d "$oracle/node_modules" ] || { echo "FAIL: $oracle/node_modules is missing: run make deps"; exit 1; }
  python3 -c 'import json,sys; print(json.dumps([json.loads(l) for l in open(sys.argv[1])]))' "$work/checks.jsonl" \
    >"$work/checks.json"
  "$node" "$oracle/prove_check.js" "$work/checks.json"
  unsafe=$( [ -f "$work/unsafe" ] && wc -l <"$work/unsafe" || echo 0)
  echo "($((unsafe)) counterexamples hold a Long beyond 2^53, which JavaScript cannot give Cedar exactly)"
fi
