#!/usr/bin/env bash
# Inputs whose cost grew faster than their size (issue 15, "Hostile input"):
# each case generates its input, runs `charter` under a generous time cap
# and, unless the build is sanitized, an address-space cap, and checks the
# result. Before the fixes each case needed gigabytes or minutes; a case
# that exceeds a cap fails (the command is killed or reports out of memory).
#
#   tests/cli/growth_test.sh CHARTER_BINARY CASE MEMORY_CAP_KB   # 0: no memory cap
#   tests/cli/growth_test.sh CHARTER_BINARY --list
set -uo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 CHARTER_BINARY CASE|--list [MEMORY_CAP_KB]" >&2
  exit 2
fi
charter="$1"
case_name="$2"
cap_kb="${3:-0}"
time_cap=60

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# run EXPECTED_STATUS ARGS...: runs charter under the caps into $tmp/out
# and $tmp/err; fails unless it exits with EXPECTED_STATUS.
run() {
  local want="$1"
  shift
  (
    if [[ "$cap_kb" != 0 ]]; then ulimit -v "$cap_kb"; fi
    exec timeout "$time_cap" "$charter" "$@"
  ) >"$tmp/out" 2>"$tmp/err"
  local status=$?
  if [[ $status -ne $want ]]; then
    echo "FAIL: charter $* exited $status, expected $want (124: over ${time_cap}s)" >&2
    head -c 2000 "$tmp/out" "$tmp/err" >&2
    exit 1
  fi
}

expect() {  # expect FILE PATTERN
  if ! grep -q -- "$2" "$1"; then
    echo "FAIL: $(basename "$1") lacks: $2" >&2
    head -c 2000 "$1" >&2
    exit 1
  fi
}

# A set literal over 80,000 context attributes, decided from a bundle and
# from the policy text (each value twice: a0 and a40000 are 0): each SetExtend of the literal copied the whole set
# (12 s and 1.6 GB a decision).
case_context_set_literal() {
  local n=80000
  awk -v n=$n 'BEGIN {
    printf "permit(principal, action, resource) when { [";
    for (i = 0; i < n; i++) printf "%scontext.a%d", (i ? ", " : ""), i;
    printf "].contains(%d) };\n", n / 2 - 1 }' >"$tmp/p.cedar"
  awk -v n=$n 'BEGIN {
    printf "{\"principal\": \"User::\\\"a\\\"\", \"action\": \"Action::\\\"v\\\"\", \"resource\": \"User::\\\"b\\\"\", \"context\": {";
    for (i = 0; i < n; i++) printf "%s\"a%d\": %d", (i ? ", " : ""), i, i % (n / 2);
    printf "}}\n" }' >"$tmp/req.json"
  echo '[]' >"$tmp/e.json"
  run 0 build --policies "$tmp/p.cedar" -o "$tmp/p.chb"
  run 0 authorize --bundle "$tmp/p.chb" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" ALLOW
  run 0 authorize --policies "$tmp/p.cedar" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" ALLOW
  # The same literal without the element it looks for.
  sed -i "s/contains($((n / 2 - 1)))/contains(-1)/" "$tmp/p.cedar"
  run 0 build --policies "$tmp/p.cedar" -o "$tmp/p.chb"
  run 2 authorize --bundle "$tmp/p.chb" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" DENY
  # A literal of 4,001 attributes (a0, a40000, a1, a40001, ..., a0) equal to
  # the set of its 2,000 distinct values, which it is only if each value is
  # kept once; and nested, two such literals in a literal.
  awk -v n=$n 'function lit(  i) {
      printf "[";
      for (i = 0; i < 2000; i++) printf "context.a%d, context.a%d, ", i, i + n / 2;
      printf "context.a0]" }
    BEGIN {
      printf "permit(principal, action, resource) when { ";
      lit();
      printf " == [";
      for (i = 0; i < 2000; i++) printf "%s%d", (i ? ", " : ""), i;
      printf "] && [";
      lit();
      printf ", [-1], ";
      lit();
      printf "].contains([-1]) };\n" }' >"$tmp/eq.cedar"
  run 0 build --policies "$tmp/eq.cedar" -o "$tmp/eq.chb"
  run 0 authorize --bundle "$tmp/eq.chb" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" ALLOW
  run 0 authorize --policies "$tmp/eq.cedar" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" ALLOW
}

if [[ "$case_name" == --list ]]; then
  declare -F | sed -n 's/^declare -f case_//p'
  exit 0
fi
if ! declare -F "case_$case_name" >/dev/null; then
  echo "no case $case_name" >&2
  exit 2
fi
"case_$case_name"
echo "PASS: $case_name"
