#!/usr/bin/env bash
# `charter serve` called by Go's net/http client (goclient/main.go): the
# answers of expected.tsv, keep-alive, and a load of reviews while the server
# reloads its bundle on SIGHUP. Debian's Go and its standard library only:
# GO111MODULE=off, GOCACHE and GOPATH in the build tree (CMakeLists.txt).
#
#   tests/serve/go_client_test.sh CHARTER     (from the repository root)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/lib.sh" "$1"
go="${GO:-go}"
export GO111MODULE="${GO111MODULE:-off}" GOCACHE="${GOCACHE:-$work/gocache}" GOPATH="${GOPATH:-$work/gopath}"

"$go" build -o "$work/goclient" "$here/goclient/main.go"
serve_start
status=0
"$work/goclient" -base "$base" -ca "$work/tls.crt" -reviews "$reviews" -expected "$here/expected.tsv" \
  -pid "$server_pid" || status=$?
reloads="$(curl_tls "$base/metrics" | awk '$1 == "charter_reloads_total" { print $2 }')"
failed="$(curl_tls "$base/metrics" | awk '$1 == "charter_reload_failures_total" { print $2 }')"
serve_stop || { echo "FAIL: the server did not stop cleanly" >&2; status=1; }
if [[ "$reloads" -lt 1 || "$failed" != 0 ]]; then
  echo "FAIL: $reloads reloads and $failed failed reloads during the load" >&2
  status=1
else
  echo "ok: the server reloaded $reloads times during the load, none failed"
fi
exit "$status"
