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
[[ $failures -eq 0 ]] || exit 1
echo "ui_test: ok"
