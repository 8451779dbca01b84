#!/usr/bin/env bash
# `make bench-report` (issue 37's targets; docs/performance.md, "Pictures"):
# `charter report` over 10,000 Kueue Workloads in 100 queues over 30 days
# (target: under 1 s, the HTML under 1 MB), the same with a decision log of
# 100,000 lines, and `charter serve`'s GET /ui/data (target: under 1 ms a
# call) with every policy of the webhook example in its window.
#
#   bench/report/run.sh CHARTER [RUNS]
set -euo pipefail
charter="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
runs="${2:-5}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/charter-bench-report.XXXXXX")"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then kill -TERM "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
python3 "$root/bench/report/gen_workloads.py" "$work"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"

# Median of RUNS of the command's wall and CPU (user + system) seconds.
median_of() {
  local what="$1"; shift
  local rows=()
  for _ in $(seq 1 "$runs"); do
    /usr/bin/time -o "$work/time" -f '%e %U %S' "$@" >/dev/null 2>"$work/stderr.run" ||
      { cat "$work/stderr.run" >&2; exit 1; }
    rows+=("$(tail -1 "$work/time")")
  done
  printf '%s\n' "${rows[@]}" | python3 -c '
import statistics, sys
w = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
print("%s: wall %.3f s, CPU %.3f s (median of %d)" % (sys.argv[1], statistics.median(r[0] for r in w),
      statistics.median(r[1] + r[2] for r in w), len(w)))' "$what"
}
median_of "report, 10,000 workloads" "$charter" report --policies "$work/cluster.charter" \
  --workloads "$work/workloads.json" -o "$work/out"
echo "index.html: $(stat -c %s "$work/out/index.html") bytes; usage.csv $(wc -l <"$work/out/usage.csv") lines"
median_of "report, 10,000 workloads and 100,000 decisions" "$charter" report --policies "$work/cluster.charter" \
  --workloads "$work/workloads.json" --decision-log "$work/decisions.jsonl" -o "$work/out2"
echo "index.html with decisions: $(stat -c %s "$work/out2/index.html") bytes"

# GET /ui/data: the webhook example's server, its window holding the
# decisions of every review in tests/serve/reviews.
ex="$root/examples/webhook"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj "/CN=bench" \
  -addext "subjectAltName=IP:127.0.0.1" -keyout "$work/tls.key" -out "$work/tls.crt" 2>/dev/null
"$charter" build --policies "$ex/policies.cedar" --schema "$root/stdlib/governance.cedarschema" \
  --schema "$root/stdlib/kubernetes.cedarschema" -o "$work/bundle" >/dev/null
"$charter" serve --bundle "$work/bundle" --entities "$ex/entities.json" --schema "$root/stdlib/governance.cedarschema" \
  --schema "$root/stdlib/kubernetes.cedarschema" --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" \
  --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 2>"$work/stderr" &
server_pid=$!
for _ in $(seq 1 200); do grep -q 'listening on https' "$work/stderr" && break; sleep 0.05; done
admin="$(sed -n 's|.*admin listening on http://\(127.0.0.1:[0-9]*\) .*|\1|p' "$work/stderr" | head -1)"
base="$(sed -n 's|.*listening on \(https://127.0.0.1:[0-9]*\) .*|\1|p' "$work/stderr" | head -1)"
for f in "$root"/tests/serve/reviews/*.json; do
  case "$(basename "$f")" in sar-*) path=/v1/authorization ;; *) path=/v1/admission ;; esac
  curl --silent --cacert "$work/tls.crt" -X POST -H 'content-type: application/json' --data-binary @"$f" \
    "$base$path" >/dev/null || true
done
python3 - "$admin" <<'PY'
import http.client, json, statistics, sys, time
host, port = sys.argv[1].split(":")
c = http.client.HTTPConnection(host, int(port), timeout=10)
times = []
for i in range(2000):
    t = time.perf_counter()
    c.request("GET", "/ui/data")
    body = c.getresponse().read()
    times.append(time.perf_counter() - t)
rows = len(json.loads(body)["decisions"]["rows"])
times.sort()
print("GET /ui/data: median %.1f µs, p99 %.1f µs a call over one connection (2,000 calls; %d rows, %d bytes)"
      % (statistics.median(times) * 1e6, times[int(len(times) * 0.99)] * 1e6, rows, len(body)))
PY
