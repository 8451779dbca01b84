#!/usr/bin/env bash
# `charter serve`'s decision log when its output is blocked (a FIFO whose
# reader never reads; docs/server.md, "Decision log"): the queue is bounded
# in bytes as well as in lines, so the lines of 24 requests of 1 MiB (2 MiB each:
# the id is in the line twice) are not all kept
# (the lines beyond decisionLog.queueBytes, 16 MiB by default, are dropped
# and counted), and SIGTERM stops the server within
# decisionLog.stopTimeoutSeconds (5 s by default) although the output still
# blocks, counting the lines it could not write. Then the file is reopened
# on SIGHUP (logrotate's move and signal: `mv log log.1; kill -HUP`) and
# rotated by size, keeping at most --decision-log-keep old files.
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

# ---- reopened on SIGHUP ------------------------------------------------------------
log="$work/decisions.jsonl"
serve_start --decision-log "$log"
review() { curl_tls -o /dev/null -H 'Content-Type: application/json' --data-binary "@$reviews/$1" "$base/v1/admission"; }
metrics() { curl_tls "$base/metrics" >"$work/metrics"; }
wait_metric() {  # wait_metric NAME VALUE: bounded, on the server's own count
  for _ in $(seq 1 100); do
    metrics
    [[ "$(metric "$1")" == "$2" ]] && return 0
    sleep 0.05
  done
  return 1
}
review pod-create-queued.json
review pod-create-bare-gpu.json
check "two lines written" wait_metric charter_decision_log_written_total 2
mv "$log" "$log.1"
review pod-delete.json  # before the signal: still to the moved file
check "a line before SIGHUP goes to the moved file" wait_metric charter_decision_log_written_total 3
kill -HUP "$server_pid"
check "SIGHUP reopens the log" wait_metric charter_decision_log_reopened_total 1
review pytorchjob-create.json
check "a line after SIGHUP is written" wait_metric charter_decision_log_written_total 4
check "the moved file keeps the lines before the signal (3)" test "$(wc -l <"$log.1")" = 3
check "a new file at the path has the line after it" test "$(jq -r .uid "$log")" = "$(jq -r .request.uid "$reviews/pytorchjob-create.json")"
# A path that cannot be opened again: said, counted, and the old file still written.
mv "$log" "$log.2"
mkdir "$log"
kill -HUP "$server_pid"
check "a reopen that fails is counted" wait_metric charter_decision_log_file_failures_total 1
check "... and said" grep -q "decision log: $log: cannot open (SIGHUP): Is a directory; still writing to the file open before" "$work/stderr"
review pod-create-queued.json
check "... and the old file is still written" wait_metric charter_decision_log_written_total 5
check "... (the line is in it)" test "$(wc -l <"$log.2")" = 2
rmdir "$log"
check "SIGTERM stops the server" serve_stop

# ---- rotated by size --------------------------------------------------------------
rm -f "$log"*
serve_start --decision-log "$log" --decision-log-max-bytes 6000 --decision-log-keep 2
for i in $(seq 1 12); do review pod-create-queued.json; done
check "12 lines written" wait_metric charter_decision_log_written_total 12
rotated="$(metric charter_decision_log_rotated_total)"
check "the file was rotated ($rotated times)" test "${rotated:-0}" -ge 3
check "at most keep (2) old files: log.1 and log.2, no log.3" bash -c "test -f '$log.1' && test -f '$log.2' && ! test -e '$log.3'"
for f in "$log" "$log.1" "$log.2"; do
  check "$(basename "$f"): at most 6000 bytes ($(wc -c <"$f")), whole lines" \
    bash -c "(( \$(wc -c <'$f') <= 6000 )) && jq -e . '$f' >/dev/null && [[ \"\$(tail -c 1 '$f' | od -An -c | tr -d ' ')\" == '\\n' ]]"
done
kept=$(cat "$log.2" "$log.1" "$log" | wc -l)
check "the oldest lines removed: $kept of 12 kept" test "$kept" -lt 12
check "... the files in time order, log.2 the oldest" \
  bash -c "cat '$log.2' '$log.1' '$log' | jq -r .time >'$work/times'; sort -c '$work/times'"
check "SIGTERM stops the rotating server" serve_stop

# Rotation of stdout is refused at start, saying so.
check "--decision-log - with a size is refused" \
  bash -c "! '$charter' serve --bundle '$work/bundle' --schema '$gov_schema' --schema '$schema' --tls-cert '$work/tls.crt' --tls-key '$work/tls.key' --decision-log - --decision-log-max-bytes 1000 2>'$work/stdout-rotate.err'"
check "... with charter serve: error:" grep -q '^charter serve: error: --decision-log -: stdout cannot be rotated' "$work/stdout-rotate.err"

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all decision-log checks passed"
