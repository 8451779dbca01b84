#!/usr/bin/env bash
# `charter serve --policies`: policy sources in place of a bundle, compiled
# with the schema at start and at every reload. A change to a source file
# reloads it (inotify); a source that no longer compiles leaves the last good
# state serving, counted as a failed reload, with the fault at its line and
# column; a source that does not compile at start stops the server, saying
# where.
#
#   tests/serve/sources_test.sh CHARTER     (from the repository root; ctest runs it)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/lib.sh" "$1"

cp "$ex/policies.cedar" "$work/policies.cedar"
serve_sources() {
  "$charter" serve --policies "$work/policies.cedar" --entities "$ex/entities.json" \
    --schema "$gov_schema" --schema "$schema" --config "$ex/config.json" \
    --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" --listen 127.0.0.1:0 "$@" 2>"$work/stderr" &
  server_pid=$!
  port=""
  for _ in $(seq 1 200); do
    port="$(sed -n 's|.*listening on https://127.0.0.1:\([0-9]*\) .*|\1|p' "$work/stderr" | head -1)"
    [[ -n "$port" ]] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.05
  done
  base="https://127.0.0.1:$port"
  [[ -n "$port" ]]
}
answer() {  # answer REVIEW: "allowed policies"
  curl_tls -H 'Content-Type: application/json' --data-binary "@$reviews/$1" "$base/v1/admission" |
    jq -r '"\(.response.allowed) \(.response.auditAnnotations.policies)"'
}
metric() { curl_tls "$base/metrics" | awk -v k="$1" '$1 == k { print $2 }'; }
wait_metric() {  # wait_metric NAME VALUE: until the server reports it (a reload is asynchronous)
  for _ in $(seq 1 200); do
    [[ "$(metric "$1")" == "$2" ]] && return 0
    sleep 0.05
  done
  return 1
}

check "serve --policies starts" serve_sources
check "it decides as the built bundle does" test "$(answer pod-create-bare-gpu.json)" = "false gpu-work-goes-through-kueue"
# Its bundle is the one `charter build` makes of the same files.
"$charter" build --policies "$work/policies.cedar" --schema "$gov_schema" --schema "$schema" -o "$work/built.bundle" >/dev/null
check "its bundle is charter build's (the same hash)" \
  grep -q "bundle sha256:$(sha256sum "$work/built.bundle" | cut -d' ' -f1)" "$work/stderr"

# An edit (a new file moved in, as editors and kubelets do): reloaded.
sed '/^@id("gpu-work-goes-through-kueue")$/,/^when { resource.gpus > 0 && !(resource has queueName) && !resource.controlled };$/d' \
  "$ex/policies.cedar" >"$work/edited.cedar"
check "the edit removes the forbid" test "$(grep -c gpu-work-goes-through-kueue "$work/edited.cedar")" = 0
mv "$work/edited.cedar" "$work/policies.cedar"
check "a changed source is reloaded" wait_metric charter_reloads_total 1
check "... and decides with the change" test "$(answer pod-create-bare-gpu.json)" = "true team-admits-in-own-namespace"

# A source that no longer compiles, written in place: the last good state serves.
printf '\npermit (principal, action, resource) when { principal.nosuch };\n' >>"$work/policies.cedar"
check "a source that does not compile is a failed reload" wait_metric charter_reload_failures_total 1
check "... the last good state still serves" test "$(answer pod-create-bare-gpu.json)" = "true team-admits-in-own-namespace"
check "... and the server says where the fault is" grep -q "policies.cedar:[0-9]*:[0-9]*: " "$work/stderr"
serve_stop

# At start, the same fault stops the server before it serves.
status=0
"$charter" serve --policies "$work/policies.cedar" --entities "$ex/entities.json" \
  --schema "$gov_schema" --schema "$schema" --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" \
  --listen 127.0.0.1:0 2>"$work/start.err" || status=$?
check "a source that does not compile at start exits 1 ($(head -c 200 "$work/start.err"))" test "$status" = 1
check "... with charter serve: error: and the fault's line and column" \
  grep -q "charter serve: error: .*policies.cedar:[0-9]*:[0-9]*: " "$work/start.err"
status=0
"$charter" serve --bundle "$work/built.bundle" --policies "$work/policies.cedar" --tls-cert "$work/tls.crt" \
  --tls-key "$work/tls.key" 2>"$work/both.err" || status=$?
check "--bundle and --policies together are refused" test "$status" = 1

((failures == 0)) || { echo "$failures check(s) failed" >&2; exit 1; }
echo "all policy-source checks passed"
