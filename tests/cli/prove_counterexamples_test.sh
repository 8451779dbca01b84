#!/bin/bash
# Every counterexample `charter prove` prints is one anyone can run: for each
# property over tests/cli/prove/'s schema and policy sets, each
# counterexample's entities and request are written to files and decided by
# `charter authorize` (the real CLI, with the schema), which must give the
# decision the counterexample claims; the exit statuses are checked too.
#   prove_counterexamples_test.sh CHARTER
set -euo pipefail
charter=$1
dir=$(cd "$(dirname "$0")/prove" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
checked=0
split_claims=$(cat <<'PY'
import json, sys
work, n = sys.argv[1], 0
for line in sys.stdin:
    answer = json.loads(line)
    for c in answer.get("counterexamples") or ([answer["counterexample"]] if "counterexample" in answer else []):
        n += 1
        json.dump(c["entities"], open(f"{work}/entities_{n}.json", "w"))
        json.dump(c["request"], open(f"{work}/request_{n}.json", "w"))
        d = c["decision"]
        print(n, d["decision"] if "decision" in d else d["old"]["decision"] + " " + d["new"]["decision"])
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
  python3 -c "$split_claims" "$work" <"$work/out.jsonl" >"$work/claims.txt"
  local k want want_new got
  while read -r k want want_new; do
    if [ "$1" = --policies ]; then
      # (authorize exits 2 on a deny: the decision is what is compared)
      got=$({ "$charter" authorize --policies "$2" --schema "$dir/schema.cedarschema" --entities "$work/entities_$k.json" \
            --request-json "$work/request_$k.json" --format json || true; } | python3 -c 'import json,sys; print(json.load(sys.stdin)["decision"])')
      [ "$want" = "$got" ] || { echo "FAIL: $property: claimed $want, authorize says $got"; cat "$work/out.jsonl"; exit 1; }
    else
      for side in old new; do
        local file=$2 claimed=$want
        [ $side = new ] && { file=$4; claimed=$want_new; }
        got=$({ "$charter" authorize --policies "$file" --schema "$dir/schema.cedarschema" --entities "$work/entities_$k.json" \
              --request-json "$work/request_$k.json" --format json || true; } | python3 -c 'import json,sys; print(json.load(sys.stdin)["decision"])')
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
[ "$checked" -ge 10 ] || { echo "FAIL: only $checked counterexamples checked"; exit 1; }
echo "ok: $checked counterexamples decided by charter authorize as claimed"
