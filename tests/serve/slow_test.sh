#!/usr/bin/env bash
# `charter serve` against slow clients (docs/server.md, "Limits"), each from a
# bounded attacker on 127.0.0.1 (attack.py): connections that send their
# request head a byte a second hold no thread, so that more of them than
# there are threads leave /healthz and reviews answered; the TLS handshake,
# the request head and the body each have a deadline for the whole of it
# (not for each read); connections are bounded per client address (beyond:
# refused at once) and in all (beyond: the connection waiting longest
# without a whole head is closed to make room).
#
#   tests/serve/slow_test.sh CHARTER     (from the repository root; ctest runs it)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/lib.sh" "$1"

# PYTHON3: Debian's, from ctest (a pyenv shim on PATH costs seconds a start).
attack() { timeout 20 "${PYTHON3:-python3}" "$here/attack.py" "$work/tls.crt" "$port" "$@"; }
# Starts an attacker in the background, its output in $work/$1, and waits
# until its connections are open.
attack_bg() {  # attack_bg NAME ARGS...
  local name="$1"
  shift
  # timeout's pid: stopping it stops the attacker (timeout passes the signal on).
  timeout 20 "${PYTHON3:-python3}" "$here/attack.py" "$work/tls.crt" "$port" "$@" >"$work/$name" &
  other_pids+=("$!")
  for _ in $(seq 1 100); do
    grep -q connected "$work/$name" && return 0
    sleep 0.05
  done
  return 1
}
metric() { curl_tls "$base/metrics" | awk -v k="$1" '$1 == k { print $2 }'; }

# ---- slowloris: as many slow connections as threads, and more -----------------------------------
# A configuration the server before the event loops also read (two threads).
echo '{"limits": {"threads": 2}, "watch": false}' >"$work/config.json"
serve_start --config "$work/config.json"
check "slowloris: 4 connections send their head a byte a second" attack_bg slow1 slow 4 8
check "slowloris: /healthz is answered meanwhile" \
  test "$(curl_tls --max-time 3 "$base/healthz" 2>/dev/null)" = ok
code="$(curl_tls --max-time 3 -o "$work/answer.json" -w '%{http_code}' -H 'Content-Type: application/json' \
  --data-binary "@$reviews/pod-create-bare-gpu.json" "$base/v1/admission" 2>/dev/null || true)"
check "slowloris: a review is answered meanwhile ($code)" \
  bash -c "[[ '$code' == 200 ]] && grep -q '\"allowed\":false' '$work/answer.json'"
kill "${other_pids[-1]}" 2>/dev/null || true
check "SIGTERM stops the first server" serve_stop

# ---- deadlines for the whole handshake, head and body; the connection budgets -----------
cat >"$work/config.json" <<'JSON'
{"limits": {"handshakeTimeoutSeconds": 1, "headerTimeoutSeconds": 2, "readTimeoutSeconds": 2,
            "maxConnections": 4, "maxConnectionsPerClient": 100},
 "watch": false}
JSON
serve_start --config "$work/config.json"
attack_bg tcp tcp 1 4
attack_bg head slow 1 5
printf 'POST /v1/admission HTTP/1.1\r\nContent-Length: 100\r\n\r\n{"a' >"$work/short-body"
attack raw "$work/short-body" >"$work/body"
wait "${other_pids[-1]}" "${other_pids[-2]}" 2>/dev/null || true
check "a TCP connection that never starts TLS is closed at handshakeTimeoutSeconds" grep -qx closed "$work/tcp"
check "a head sent a byte a second gets 408 at headerTimeoutSeconds ($(tail -1 "$work/head"))" \
  grep -q 'HTTP/1.1 408 Request Timeout' "$work/head"
check "a body that stops coming gets 408 at readTimeoutSeconds ($(cat "$work/body"))" \
  grep -q '^408 .*the request body did not arrive within 2 s (limits.readTimeoutSeconds)' "$work/body"
check "the deadlines are counted" test "$(metric 'charter_connection_timeouts_total{phase="head"}')" = 1
# Four slow connections take the whole budget; a fifth (the probe) still gets in.
check "the budget: 4 slow connections" attack_bg full slow 4 4
check "the budget: /healthz is answered when every connection is taken" \
  test "$(curl_tls --max-time 3 "$base/healthz" 2>/dev/null)" = ok
check "the budget: a slow connection was evicted for it" test "$(metric charter_connections_evicted_total)" -ge 1
kill "${other_pids[-1]}" 2>/dev/null || true
check "SIGTERM stops the second server" serve_stop

# ---- the budget of a client address -------------------------------------------------------
echo '{"limits": {"maxConnectionsPerClient": 3}, "watch": false}' >"$work/config.json"
serve_start --config "$work/config.json"
attack hold 4 1 >"$work/hold"
check "a client's fourth connection is refused at once" test "$(grep -c '^refused' "$work/hold")" = 1
check "... and its three others were served" test "$(grep -c '^open' "$work/hold")" = 3
check "the refusal is counted" test "$(metric 'charter_connections_refused_total{reason="per_client"}')" = 1
check "SIGTERM stops the third server" serve_stop

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all slow-client checks passed"
