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

# check PROPERTY EXPECTED_EXIT ARGS...: runs the proof, then each counterexample.
check() {
  local property=$1 expected=$2
  shift 2
  local status=0
  "$charter" prove "$property" --schema "$dir/schema.cedarschema" --format json "$@" >"$work/out.jsonl" || status=$?
  if [ "$status" != "$expected" ]; then
    echo "FAIL: prove $property $*: exit $status, expected $expected"; cat "$work/out.jsonl"; exit 1
  fi
  local n
  n=$(wc -l <"$work/out.jsonl")
  for ((i = 1; i <= n; i++)); do
    sed -n "${i}p" "$work/out.jsonl" >"$work/line.json"
    local m
    m=$(jq '[.counterexamples // (if .counterexample then [.counterexample] else [] end)] | add | length' "$work/line.json")
    for ((j = 0; j < m; j++)); do
      jq -c "(.counterexamples // [.counterexample])[$j].entities" "$work/line.json" >"$work/entities.json"
      jq -c "(.counterexamples // [.counterexample])[$j].request" "$work/line.json" >"$work/request.json"
      if [ "$1" = --policies ]; then
        local want got
        want=$(jq -r "(.counterexamples // [.counterexample])[$j].decision.decision" "$work/line.json")
        got=$("$charter" authorize --policies "$2" --schema "$dir/schema.cedarschema" --entities "$work/entities.json" \
              --request-json "$work/request.json" --format json | jq -r .decision)
        [ "$want" = "$got" ] || { echo "FAIL: $property: claimed $want, authorize says $got"; cat "$work/line.json"; exit 1; }
      else
        local side
        for side in old new; do
          local file want got
          file=$([ $side = old ] && echo "$2" || echo "$4")
          want=$(jq -r "(.counterexamples // [.counterexample])[$j].decision.$side.decision" "$work/line.json")
          got=$("$charter" authorize --policies "$file" --schema "$dir/schema.cedarschema" \
                --entities "$work/entities.json" --request-json "$work/request.json" --format json | jq -r .decision)
          [ "$want" = "$got" ] || { echo "FAIL: $property ($side): claimed $want, authorize says $got"; cat "$work/line.json"; exit 1; }
        done
      fi
      checked=$((checked + 1))
    done
  done
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
