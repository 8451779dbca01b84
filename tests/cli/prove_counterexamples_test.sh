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
# Splits the answers of every proof ($work/manifest: "I PROPERTY POLICIES
# [NEW_POLICIES]" for $work/out_I.jsonl) into files, one python3 run (not
# jq: jq 1.6 reads integers as doubles and would change 2^63-1; one run, as
# python3 starts slowly on a loaded machine). Prints "N PROPERTY FILE
# DECISION" for each counterexample and set, and writes Cedar's checks to
# $work/checks.json. A Long beyond 2^53 does not survive JavaScript's
# numbers: that counterexample is left out of Cedar's checks (counted in
# $work/unsafe).
split_claims=$(cat <<'PY'
import json, sys
work, n, checks, unsafe = sys.argv[1], 0, [], 0
def safe(v):
    if isinstance(v, bool): return True
    if isinstance(v, int): return abs(v) <= 2**53
    if isinstance(v, list): return all(safe(x) for x in v)
    if isinstance(v, dict): return all(safe(x) for x in v.values())
    return True
for entry in open(f"{work}/manifest"):
    i, prop, *files = entry.split()
    for line in open(f"{work}/out_{i}.jsonl"):
        answer = json.loads(line)
        for c in answer.get("counterexamples") or ([answer["counterexample"]] if "counterexample" in answer else []):
            n += 1
            json.dump(c["entities"], open(f"{work}/entities_{n}.json", "w"))
            json.dump(c["request"], open(f"{work}/request_{n}.json", "w"))
            d = c["decision"]
            sides = [(files[0], d)] if "decision" in d else [(files[0], d["old"]), (files[1], d["new"])]
            for f, dd in sides:
                print(n, prop, f, dd["decision"])
            if not (safe(c["entities"]) and safe(c["request"])):
                unsafe += 1
                continue
            for f, dd in sides:
                check = {"what": f"{prop} {answer.get('policy', '')} {json.dumps(answer['signature'])} ({f})",
                         "policies": open(f).read(), "entities": c["entities"], "request": c["request"],
                         "decision": {k: dd[k] for k in ("decision", "reasons", "errors")}}
                if "policy" in dd:
                    check["policy"] = dd["policy"]
                    check["withoutPolicy"] = dd["withoutPolicy"]
                checks.append(check)
json.dump(checks, open(f"{work}/checks.json", "w"))
open(f"{work}/unsafe", "w").write(f"{unsafe}\n")
PY
)

# check PROPERTY EXPECTED_EXIT ARGS...: runs the proof and checks its exit
# status; its counterexamples are decided after every proof has run.
proofs=0
check() {
  local property=$1 expected=$2
  shift 2
  local status=0
  proofs=$((proofs + 1))
  "$charter" prove "$property" --schema "$dir/schema.cedarschema" --format json "$@" >"$work/out_$proofs.jsonl" ||
    status=$?
  if [ "$status" != "$expected" ]; then
    echo "FAIL: prove $property $*: exit $status, expected $expected"; cat "$work/out_$proofs.jsonl"; exit 1
  fi
  if [ "$1" = --policies ]; then
    echo "$proofs $property $2" >>"$work/manifest"
  else
    echo "$proofs $property $2 $4" >>"$work/manifest"
  fi
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
# An enumerated entity type (Kind), as an entity's and as the context's attribute.
check always-denies 2 --policies "$dir/kinds.cedar"
check redundant 2 --policies "$dir/kinds.cedar"

# Each counterexample, for each set it claims a decision of, by `charter
# authorize` (which exits 2 on a deny: the decision is what is compared).
python3 -c "$split_claims" "$work" >"$work/claims.txt"
while read -r k property file want; do
  got=$({ "$charter" authorize --policies "$file" --schema "$dir/schema.cedarschema" --entities "$work/entities_$k.json" \
        --request-json "$work/request_$k.json" --format json || true; } | sed -n 's/^{"decision":"\([a-z]*\)".*/\1/p')
  [ "$want" = "$got" ] || { echo "FAIL: $property, counterexample $k, $file: claimed $want, authorize says $got"; exit 1; }
  checked=$((checked + 1))
done <"$work/claims.txt"
[ "$checked" -ge 40 ] || { echo "FAIL: only $checked decisions checked"; exit 1; }
echo "ok: $checked decisions of counterexamples by charter authorize as claimed"

# A bundle is its policies: the same answers as from the files it was built from.
(cd "$dir" && "$charter" build --policies policies.cedar --schema schema.cedarschema -o "$work/p.cbundle" >/dev/null)
# (the policy, the signature and the result of each answer)
shape='s/.*\("policy":"[^"]*","signature":{[^}]*},"result":"[a-z-]*"\).*/\1/p'
from_files=$({ "$charter" prove redundant --policies "$dir/policies.cedar" --schema "$dir/schema.cedarschema" \
  --format json || true; } | sed -n "$shape")
from_bundle=$(cd "$dir" && { "$charter" prove redundant --bundle "$work/p.cbundle" --schema schema.cedarschema \
  --format json || true; } | sed -n "$shape")
[ "$(echo "$from_files" | wc -l)" -ge 5 ] && [ "$from_files" = "$from_bundle" ] ||
  { echo "FAIL: prove --bundle: $from_bundle, from the files: $from_files"; exit 1; }
echo "ok: prove --bundle answers as the files it was built from"

if [ -n "$node" ]; then
  oracle=$(cd "$(dirname "$0")/../oracle" && pwd)
  [ -d "$oracle/node_modules" ] || { echo "FAIL: $oracle/node_modules is missing: run make deps"; exit 1; }
  "$node" "$oracle/prove_check.js" "$work/checks.json"
  unsafe=$(cat "$work/unsafe")
  echo "($unsafe counterexamples hold a Long beyond 2^53, which JavaScript cannot give Cedar exactly)"
fi
