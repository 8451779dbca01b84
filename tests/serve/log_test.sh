#!/usr/bin/env bash
# `charter serve`'s decision log when its output is blocked (a FIFO whose
# reader never reads; docs/server.md, "Decision log"): the queue is bounded
# in bytes as well as in lines, so the lines of 24 requests of 1 MiB (2 MiB each:
# the id is in the line twice) are not all kept
# (the lines beyond decisionLog.queueBytes, 16 MiB by default, are dropped
# and counted), and SIGTERM stops the server within
# decisionLog.stopTimeoutSeconds (5 s by default) although the output still
# blocks, counting the lines it could not write.
#
#   tests/serve/log_test.sh CHARTER     (from the repository root; ctest runs it)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/lib.sh" "$1"

mkfifo "$work/log.fifo"
sleep 600 <"$work/log.fifo" &
reader=$!
other_pids+=("$reader")
# A configuration the server before this bound also read.
echo '{"limits": {"maxBodyBytes": 2097152}, "watch": false}' >"$work/config.json"
serve_start --config "$work/config.json" --decision-log "$work/log.fifo"

# A request whose resource id is 1 MiB long: its log line is as long.
{
  printf '{"principal": {"type": "Kubernetes::User", "id": "alice"}, "action": {"type": "Kubernetes::Action", "id": "list"},'
  printf ' "resource": {"type": "Kubernetes::NonResourceURL", "id": "/'
  head -c 1048576 /dev/zero | tr '\0' x
  printf '"}, "context": {}}'
} >"$work/big.json"
urls=()
for _ in $(seq 1 24); do urls+=("$base/v1/authorize"); done
answered="$(curl_tls -H 'Content-Type: application/json' --data-binary "@$work/big.json" "${urls[@]}" \
  | grep -o '"decision"' | wc -l)"
check "a blocked decision log: 24 requests of 1 MiB answered" test "$answered" = 24
curl_tls "$base/metrics" >"$work/metrics"
metric() { awk -v k="$1" '$1 == k { print $2 }' "$work/metrics"; }
queued="$(metric charter_decision_log_queue_bytes)"
dropped="$(metric charter_decision_log_dropped_total)"
check "the queue holds at most queueBytes (16 MiB): $queued bytes" \
  bash -c "[[ -n '$queued' ]] && (( $queued <= 16777216 ))"
check "the lines beyond it are dropped and counted ($dropped)" test "${dropped:-0}" -ge 4

# SIGTERM while the output still blocks.
kill -TERM "$server_pid"
stopped=0
for _ in $(seq 1 100); do  # 10 s: the 5 s deadline and the time to get there
  if ! kill -0 "$server_pid" 2>/dev/null; then stopped=1; break; fi
  sleep 0.1
done
if ((stopped)); then
  status=0
  wait "$server_pid" || status=$?
  server_pid=""
  check "SIGTERM with a blocked decision log stops the server within stopTimeoutSeconds" test "$status" = 0
else
  fail "SIGTERM with a blocked decision log: still running after 10 s"
  kill -KILL "$server_pid"
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
fi
check "... saying how many lines it could not write" grep -q 'decision log: the output is still blocked after 5 s: [0-9]* line(s) not written' "$work/stderr"

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all decision-log checks passed"
