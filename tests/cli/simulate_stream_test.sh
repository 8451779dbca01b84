#!/usr/bin/env bash
# `charter simulate` streams its output (issue 15): 2,000 workloads that
# never fit, run for 100,000 cycles (about 17 GB of text, 23 GB of JSON, if
# it were held), piped into `head -c`. Under a memory cap of 600 MB the
# first megabyte arrives, and the simulation ends as soon as `head` does
# (SIGPIPE, or exit 1 on a failed write), well before the timeout. It used
# to keep everything until the end: out of memory, nothing printed.
#
#   tests/cli/simulate_stream_test.sh CHARTER_BINARY
set -uo pipefail
charter_bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# The two cluster queues of the golden state, and 2,000 pending workloads of
# 800 GPUs each (team-a can hold 48): inadmissible forever.
state="$tmp/state.json"
{
  sed -n '1,/^  \],$/p' "$root/tests/cli/golden/schedule-state.json"
  echo '  "admitted": [],'
  echo '  "pending": ['
  for i in $(seq 0 1999); do
    [ "$i" -gt 0 ] && echo ','
    printf '    {"name": "w%d", "cluster_queue": "team-a", "priority_class": "training-priority", "created_at": -%d, "pod_sets": [{"name": "main", "count": 100, "requests": {"nvidia.com/gpu": 8}}]}' "$i" "$i"
  done
  echo ']}'
} > "$state"
"$charter_bin" simulate --state "$state" --cycles 1 > "$tmp/one.txt" || fail "one cycle over the generated state failed"

# run FORMAT: the first megabyte of 100,000 cycles, under the cap.
run() {
  local format="$1" start end status
  start=$(date +%s)
  (
    ulimit -v 600000
    exec timeout 120 "$charter_bin" simulate --state "$state" --cycles 100000 --format "$format" 2> "$tmp/err.$format"
  ) | head -c 1000000 > "$tmp/out.$format"
  status=${PIPESTATUS[0]}
  end=$(date +%s)
  local size
  size=$(wc -c < "$tmp/out.$format")
  [ "$size" -eq 1000000 ] || fail "$format: $size bytes arrived, not 1000000; stderr: $(head -c 300 "$tmp/err.$format")"
  # 141: killed by SIGPIPE; 1: the write failed (SIGPIPE ignored). Not 124 (timeout).
  case "$status" in
    141) ;;
    1) grep -q "cannot write to stdout" "$tmp/err.$format" || fail "$format: exit 1 without a write error: $(head -c 300 "$tmp/err.$format")" ;;
    *) fail "$format: simulate ended with status $status (124 is the timeout)" ;;
  esac
  [ $((end - start)) -lt 60 ] || fail "$format: took $((end - start)) s after head had its megabyte"
  echo "$format: $size bytes, status $status, $((end - start)) s"
}
run text
head -c 11 "$tmp/out.text" | grep -qx "== cycle 1" || fail "text: does not start with the first cycle"
run json
head -c 2 "$tmp/out.json" | grep -qF '[{' || fail "json: does not start with an array of cycles"

[ "$failures" -eq 0 ] || exit 1
echo "ok"
