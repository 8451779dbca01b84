#!/usr/bin/env bash
# The webhook's throughput and latency over loopback TLS with keep-alive
# (issue 18's targets; docs/performance.md): wrk POSTs the bare 8-GPU pod's
# AdmissionReview at 1, 16 and 64 connections, then, at 64 connections, while
# the bundle is reloaded (SIGHUP) every 100 ms, and reports requests a second,
# p50 and p99, and any error. Figures, not assertions: nothing here fails on
# a slow machine, except a lost request or an error answer during reload.
#
#   bench/serve/run.sh [CHARTER]       DURATION=10 (seconds a run), THREADS=2 (wrk's), SERVE_CONFIG
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
charter="${1:-${CHARTER:-$root/build/cli/charter}}"
duration="${DURATION:-10}"
threads="${THREADS:-2}"
work="$(mktemp -d "${TMPDIR:-/tmp}/charter-serve-bench.XXXXXX")"
pid=""
cleanup() {
  [[ -n "$pid" ]] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
cd "$root"

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
  -subj "/CN=charter-bench" -addext "subjectAltName=IP:127.0.0.1" \
  -keyout "$work/tls.key" -out "$work/tls.crt" 2>/dev/null
schemas=(--schema stdlib/governance.cedarschema --schema stdlib/kubernetes.cedarschema)
"$charter" build --policies examples/webhook/policies.cedar "${schemas[@]}" -o "$work/bundle" >/dev/null
# The server's configuration: its defaults (an event loop a core). SERVE_CONFIG
# replaces it, to measure another setting or an older server (cpp-httplib's
# needed `{"limits": {"threads": 80}, "watch": false}`, a thread a connection).
echo "${SERVE_CONFIG:-{\"watch\": false\}}" >"$work/config.json"
"$charter" serve --bundle "$work/bundle" --entities examples/webhook/entities.json "${schemas[@]}" \
  --config "$work/config.json" --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" \
  --listen 127.0.0.1:0 2>"$work/stderr" &
pid=$!
for _ in $(seq 1 200); do
  port="$(sed -n 's|.*listening on https://127.0.0.1:\([0-9]*\) .*|\1|p' "$work/stderr")"
  [[ -n "$port" ]] && break
  sleep 0.05
done
[[ -n "$port" ]] || { cat "$work/stderr" >&2; exit 1; }
url="https://127.0.0.1:$port"
export REVIEW="$root/tests/serve/reviews/pod-create-bare-gpu.json"

run() {  # run CONNECTIONS: one wrk run, its summary lines in $work/wrk.out
  wrk -t"$(( $1 < threads ? $1 : threads ))" -c"$1" -d"${duration}s" --latency -s "$here/post.lua" "$url" >"$work/wrk.out"
}
field() { awk -v k="$1" '$1 == k { print $2 }' "$work/wrk.out"; }

printf '%-34s %10s %9s %9s %8s\n' "run (pod-create review)" "reviews/s" "p50 µs" "p99 µs" "errors"
for c in 1 16 64; do
  run "$c"
  printf '%-34s %10s %9s %9s %8s\n' "$c connection(s)" "$(field rps)" "$(field p50_us)" "$(field p99_us)" \
    "$(( $(field non200) + $(field socket_errors) ))"
done

# Reload every 100 ms during a run at 64 connections.
cp "$work/bundle" "$work/bundle.a"
(
  end=$((SECONDS + duration))
  while ((SECONDS < end)); do
    cp "$work/bundle.a" "$work/bundle.tmp" && mv "$work/bundle.tmp" "$work/bundle"
    kill -HUP "$pid"
    sleep 0.1
  done
) &
reloader=$!
run 64
wait "$reloader"
errors=$(( $(field non200) + $(field socket_errors) ))
reloads="$(curl -s --cacert "$work/tls.crt" "$url/metrics" | awk '$1 == "charter_reloads_total" { print $2 }')"
failed="$(curl -s --cacert "$work/tls.crt" "$url/metrics" | awk '$1 == "charter_reload_failures_total" { print $2 }')"
printf '%-34s %10s %9s %9s %8s\n' "64, reloading every 100 ms" "$(field rps)" "$(field p50_us)" "$(field p99_us)" "$errors"
echo "reloads during the run: $reloads, failed: $failed"
if ((errors != 0)) || [[ "$failed" != 0 ]]; then
  echo "run.sh: errors during the reload run" >&2
  exit 1
fi
