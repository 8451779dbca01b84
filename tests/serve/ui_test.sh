#!/usr/bin/env bash
# The live page of `charter serve` (GET /ui, /ui/app.js, /ui/data): served
# where /metrics is (the admin listener when there is one, refused on the
# TLS listener then), GET only, with a Content-Security-Policy; /ui/data's
# figures checked with curl against the decisions just made; then the page in
# Debian's Chromium (ui_browser.js, playwright-core): it shows the decisions
# per policy and the loads, and updates without being reloaded as more
# decisions and a reload (SIGHUP) come.
#
#   tests/serve/ui_test.sh CHARTER NODE NODE_PATH OUT_DIR
set -euo pipefail
node="$2"
export NODE_PATH="$3"
out="$4"
. "$(dirname "$0")/lib.sh" "$1"

serve_start --admin-listen 127.0.0.1:0
admin="$(sed -n 's|.*admin listening on \(http://127.0.0.1:[0-9]*\) .*|\1|p' "$work/stderr" | head -1)"
[[ -n "$admin" ]] || { cat "$work/stderr" >&2; echo "FAIL: no admin listener" >&2; exit 1; }

# Where it is served, and how.
check "/ui is not served on the TLS listener when there is an admin listener" \
  bash -c "[[ \"\$(curl --silent --cacert '$work/tls.crt' -o /dev/null -w '%{http_code}' '$base/ui')\" == 404 ]]"
check "POST /ui/data is refused (405)" \
  bash -c "[[ \"\$(curl --silent -X POST -o /dev/null -w '%{http_code}' '$admin/ui/data')\" == 405 ]]"
headers="$(curl --silent --show-error -D - -o "$work/page.html" "$admin/ui")"
check "/ui is HTML" grep -qi '^content-type: text/html' <<<"$headers"
check "/ui carries its Content-Security-Policy" \
  grep -qi "^content-security-policy: default-src 'none'; script-src 'self'; connect-src 'self'" <<<"$headers"
check "/ui loads its script from the server only" grep -q '<script src="/ui/app.js" defer></script>' "$work/page.html"
check "/ui/app.js is JavaScript" \
  bash -c "curl --silent -D - -o /dev/null '$admin/ui/app.js' | grep -qi '^content-type: text/javascript'"

# Two decisions over the example's entities, then /ui/data's figures:
# both denied with no policy permitting.
curl --silent --show-error -X POST -H 'content-type: application/json' \
  --data-binary @tests/serve/requests.json "$admin/v1/authorize" >"$work/answers.json"
curl --silent --show-error "$admin/ui/data" >"$work/data.json"
check "/ui/data counts the two denials in one row, in the latest period" python3 - "$work/data.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["decisions"]["rows"]
assert [(r["policy"], r["allow"], r["deny"], r["no_opinion"]) for r in rows] == [("(no policy permits)", 0, 2, 0)], rows
series = rows[0]["series"]["deny"]
assert len(series) == 60 and sum(series) == 2 and series[-1] + series[-2] == 2, series
assert d["decisions"]["period_seconds"] == 10 and d["policies"] > 0 and d["bundle"].startswith("sha256:")
assert [(l["why"], l["ok"]) for l in d["loads"]] == [("start", True)], d["loads"]
PY

# The page in a real browser, as decisions and a reload come.
# The screenshot is kept in OUT_DIR (the build tree).
NODE_EXTRA_CA_CERTS="$work/tls.crt" "$node" "$(dirname "$0")/ui_browser.js" "$admin" "$base" "$server_pid" \
  "$out" "$reviews" || fail "the live page in Chromium"

serve_stop

# ---- the allocation: --workloads, drawn on the policies' queues ----------------------
# Over policies without scheduling declarations (the webhook bundle),
# --workloads cannot be drawn: the server does not start.
status=0
"$charter" serve --bundle "$work/bundle" --entities "$ex/entities.json" --schema "$gov_schema" --schema "$schema" \
  --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" --listen 127.0.0.1:0 \
  --workloads "$root/examples/governance/workloads.json" 2>"$work/stderr.noscheduling" || status=$?
check "--workloads over policies that declare no scheduling: exit 1" test "$status" -eq 1
check "... saying why" grep -q 'error: --workloads: the policies declare no scheduling configuration' \
  "$work/stderr.noscheduling"

gov="$root/examples/governance"
cp "$gov/workloads.json" "$work/workloads.json"
"$charter" serve --policies "$gov/policies.cedar" --policies "$gov/scheduling.charter" --entities "$gov/entities.json" \
  --schema "$gov_schema" --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" --listen 127.0.0.1:0 \
  --admin-listen 127.0.0.1:0 --workloads "$work/workloads.json" 2>"$work/stderr" &
server_pid=$!
admin=""
for _ in $(seq 1 200); do
  grep -q 'listening on https' "$work/stderr" && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.05
done
admin="$(sed -n 's|.*admin listening on \(http://127.0.0.1:[0-9]*\) .*|\1|p' "$work/stderr" | head -1)"
[[ -n "$admin" ]] || { cat "$work/stderr" >&2; echo "FAIL: the governance server did not start" >&2; exit 1; }

# The used GPUs of a queue in /ui/data's picture, or the error: "USED ERROR".
allocation() {
  curl --silent --show-error "$admin/ui/data" | python3 -c '
import json, re, sys
a = json.load(sys.stdin)["allocation"]
m = re.search(r"data-queue=\"" + sys.argv[1] + r"\"[^>]*data-used=\"(\d+)\"", a["svg"])
print(m.group(1) if m else "-", a["error"] or "-")' "$1"
}
# Waits (bounded) until allocation QUEUE prints a line matching PATTERN.
await_allocation() {
  for _ in $(seq 1 100); do
    [[ "$(allocation "$1")" =~ $2 ]] && return 0
    sleep 0.1
  done
  echo "allocation $1: $(allocation "$1"), expected $2" >&2
  return 1
}
check "the allocation: vision-research holds 48 GPUs (32 own, 16 borrowed)" \
  await_allocation gpu-east-vision-research '^48 -$'
# vision-train finishes: gone from the file, and SIGHUP reads it again.
python3 - "$work/workloads.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["admitted"] = [w for w in d["admitted"] if w["name"] != "vision-train"]
json.dump(d, open(sys.argv[1], "w"))
PY
kill -HUP "$server_pid"
check "after a reload, vision-research holds none" await_allocation gpu-east-vision-research '^0 -$'
# A file that does not read: the last picture stays, with the error.
echo '{"admitted": [' >"$work/workloads.json"
kill -HUP "$server_pid"
check "a workloads file that does not read: the error, the last picture kept" \
  await_allocation gpu-east-nlp-pretrain '^64 .*workloads\.json:'
NODE_EXTRA_CA_CERTS="$work/tls.crt" "$node" "$(dirname "$0")/ui_browser.js" --allocation "$admin" "$out" ||
  fail "the allocation on the live page in Chromium"
kill -TERM "$server_pid"
wait "$server_pid" || fail "the governance server's exit status"
server_pid=""
[[ $failures -eq 0 ]] || exit 1
echo "ui_test: ok"
