#!/usr/bin/env bash
# Hostile bundles through `charter authorize --bundle` (issue 32): code the
# verifier accepts but no compiler writes, and a record literal's cost. Each
# case runs charter under a time cap and, unless the build is sanitized, an
# address-space cap, and checks the answer and the evaluation error.
#
#   tests/core/vm/hostile_bundle_test.sh CHARTER_BINARY HOSTILE_BUNDLE_BINARY CASE CAP_ON(0|1) [BUNDLE_REPLAY_BINARY]
set -uo pipefail

if [[ $# -lt 4 ]]; then
  echo "usage: $0 CHARTER_BINARY HOSTILE_BUNDLE_BINARY CASE CAP_ON [BUNDLE_REPLAY_BINARY]" >&2
  exit 2
fi
charter="$1"
generator="$2"
case_name="$3"
cap_on="$4"
replay="${5:-}"
time_cap=60

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo '[]' >"$tmp/e.json"
printf '%s\n' '{"principal": "User::\"a\"", "action": "Action::\"v\"", "resource": "Doc::\"d\"", "context": {}}' \
  >"$tmp/req.json"

# run CAP_KB EXPECTED_STATUS ARGS...: charter under the caps (CAP_KB 0: none),
# into $tmp/out and $tmp/err; fails unless it exits with EXPECTED_STATUS.
run() {
  local cap_kb="$1" want="$2"
  shift 2
  (
    if [[ "$cap_on" == 1 && "$cap_kb" != 0 ]]; then ulimit -v "$cap_kb"; fi
    exec timeout "$time_cap" "$charter" "$@"
  ) >"$tmp/out" 2>"$tmp/err"
  local status=$?
  if [[ $status -ne $want ]]; then
    echo "FAIL: charter $* (cap ${cap_kb} KB) exited $status, expected $want (124: over ${time_cap}s; 139: a crash)" >&2
    head -c 2000 "$tmp/out" "$tmp/err" >&2
    exit 1
  fi
}

expect() {  # expect FILE TEXT
  if ! grep -qF -- "$2" "$1"; then
    echo "FAIL: $(basename "$1") lacks: $2" >&2
    head -c 2000 "$1" >&2
    exit 1
  fi
}

# Sets nested 100,000 deep and compared with themselves (800 KB of code):
# the comparison recursed a level at a time and overflowed the stack.
case_nested_sets() {
  "$generator" nested-sets 100000 "$tmp/nested.chb" || exit 1
  run 400000 2 authorize --bundle "$tmp/nested.chb" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" DENY
  expect "$tmp/err" 'policy `nested` was skipped: sets and records nested more than 1000 deep (the limit, max_value_depth)'
  # JSON output says the same.
  run 400000 2 authorize --bundle "$tmp/nested.chb" --entities "$tmp/e.json" --request-json "$tmp/req.json" \
    --format json
  expect "$tmp/out" '"errors":[{"policy":"nested","message":"sets and records nested more than 1000 deep'
}

# A million MakeSets of 255 registers (8 MB of code), each set allocated
# for 255 values: 4 GB a decision before. Under a 500 MB cap the decision
# stops at the 128 MiB default and says so.
case_set_flood() {
  "$generator" set-flood 1000000 "$tmp/flood.chb" || exit 1
  run 500000 2 authorize --bundle "$tmp/flood.chb" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" DENY
  expect "$tmp/err" 'policy `flood` was skipped: the sets and records built for this request need more than 134217728 bytes (the limit, max_decision_bytes)'
}

# A record literal of n keys (k0 ... k(n-1), whose sorted order interleaves
# the chunks of 32 the compiler writes), decided from its bundle at three
# sizes, each under an address-space cap linear in n: 100 MB and 1 KB a key.
# Built in place, the decision passes under 60 MB at each size (14, 17 and
# 23 MB resident); merging each chunk into a copy of the record so far cost
# n * n / 64 fields: 124 MB, 457 MB and 1.78 GB resident and 3, 10 and 47 s.
case_record_literal() {
  local n
  for n in 15000 30000 60000; do
    awk -v n=$n 'BEGIN {
      printf "permit(principal, action, resource) when { {";
      for (i = 0; i < n; i++) printf "%sk%d: %d", (i ? ", " : ""), i, i;
      printf "}.k%d == %d };\n", n - 1, n - 1 }' >"$tmp/r.cedar"
    run 0 0 build --policies "$tmp/r.cedar" -o "$tmp/r.chb"
    run $((100000 + n)) 0 authorize --bundle "$tmp/r.chb" --entities "$tmp/e.json" --request-json "$tmp/req.json"
    expect "$tmp/out" ALLOW
  done
}

# Sets that share their elements, S(k+1) = {S(k), {S(k)}} for 30 levels (a
# 624-byte bundle), then hashed: the walk visited the 2^31-node tree the 60
# instructions stand for, 49 s a decision. Walks now take their steps from
# the decision's max_decision_work (2^26 by default): the policy errs within
# seconds, under a 20 s time cap and 200 MB (unsanitized builds).
case_shared_sets() {
  "$generator" shared-sets 30 "$tmp/shared.chb" || exit 1
  if [[ "$cap_on" == 1 ]]; then time_cap=20; fi  # sanitized builds run slower
  run 200000 2 authorize --bundle "$tmp/shared.chb" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" DENY
  expect "$tmp/err" 'policy `shared` was skipped: comparing and hashing the values of this request took more than 67108864 steps (the limit, max_decision_work)'
}

# The bundle fuzz target (fuzz/bundle_fuzz.cc, replayed) on both bundles
# above under a 1 GB cap: std::bad_alloc escaped Engine::Authorize on the
# flood (abort, 134) and the nested sets overflowed the stack (139).
case_fuzz_replay() {
  "$generator" nested-sets 100000 "$tmp/nested.chb" || exit 1
  "$generator" set-flood 1000000 "$tmp/flood.chb" || exit 1
  (
    if [[ "$cap_on" == 1 ]]; then ulimit -v 1000000; fi
    exec timeout "$time_cap" "$replay" "$tmp/nested.chb" "$tmp/flood.chb"
  ) >"$tmp/out" 2>&1
  local status=$?
  if [[ $status -ne 0 ]]; then
    echo "FAIL: bundle_replay exited $status" >&2
    head -c 2000 "$tmp/out" >&2
    exit 1
  fi
  expect "$tmp/out" "ran 2 inputs"
}

"case_$case_name"
echo "ok: $case_name"
