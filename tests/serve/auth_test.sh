#!/usr/bin/env bash
# Authenticated callers: `charter serve --client-ca` refuses a TLS handshake
# without a client certificate signed by the CA (none, a self-signed one, one
# from another CA of the same name, one for servers only, one past
# clientChainDepth) with a TLS alert, and answers the right one as it answers
# without --client-ca; no session is resumable; the CA is reloaded with the
# certificate (SIGHUP and a file change; a bad file keeps the old one).
# `--admin-listen` serves /v1/authorize and /metrics on a unix socket (mode
# 0600, or 0660 of --admin-group; removed on SIGTERM; a stale one replaced, a
# live one not) or on loopback, and the TLS listener answers 404 for them; a
# non-loopback address and bad CA files are refused at start.
#
#   tests/serve/auth_test.sh CHARTER     (from the repository root; ctest runs it)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/lib.sh" "$1"

# ---- a throwaway PKI ------------------------------------------------------------
ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
make_ca() {  # make_ca NAME: a CA certificate, subject CN=charter-test-ca
  openssl req -x509 "${ec[@]}" -days 1 -subj "/CN=charter-test-ca" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$work/$1.key" -out "$work/$1.crt" 2>/dev/null
}
make_client() {  # make_client NAME CA [USAGE]: a certificate for the apiserver, signed by CA, for USAGE (clientAuth)
  openssl req -new "${ec[@]}" -subj "/CN=charter.charter-system.svc" \
    -keyout "$work/$1.key" -out "$work/$1.csr" 2>/dev/null
  printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=%s\n' "${3:-clientAuth}" \
    >"$work/$1.ext"
  openssl x509 -req -in "$work/$1.csr" -CA "$work/$2.crt" -CAkey "$work/$2.key" -set_serial "0x$RANDOM$RANDOM" \
    -days 1 -extfile "$work/$1.ext" -out "$work/$1.crt" 2>/dev/null
}
make_ca ca
make_client client ca
make_client server-only ca serverAuth
# An intermediate CA under ca, and a client of it that sends the chain.
openssl req -new "${ec[@]}" -subj "/CN=charter-test-intermediate" -keyout "$work/intermediate.key" \
  -out "$work/intermediate.csr" 2>/dev/null
printf 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n' >"$work/intermediate.ext"
openssl x509 -req -in "$work/intermediate.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" -set_serial 7 -days 1 \
  -extfile "$work/intermediate.ext" -out "$work/intermediate.crt" 2>/dev/null
make_client chained intermediate
cat "$work/intermediate.crt" >>"$work/chained.crt"
# A CA of the same name that is not the one given: its client must be refused
# by signature, not name.
make_ca rogue-ca
make_client rogue rogue-ca
openssl req -x509 "${ec[@]}" -days 1 -subj "/CN=charter.charter-system.svc" \
  -addext "extendedKeyUsage=clientAuth" -keyout "$work/self.key" -out "$work/self.crt" 2>/dev/null

review="$reviews/pod-create-bare-gpu.json"
as() {  # as CLIENT CURL-ARGS...: curl with that client certificate ("none": without one)
  local who="$1"
  shift
  if [[ "$who" == none ]]; then
    curl_tls "$@"
  else
    curl_tls --cert "$work/$who.crt" --key "$work/$who.key" "$@"
  fi
}
# refused CLIENT [TLS-MAX]: the handshake fails with the server's TLS alert:
# curl exits 35 (in the handshake, TLS 1.2) or 56 (TLS 1.3: the client is done
# with its handshake when the server's alert arrives, and reads it after
# sending the request), and no HTTP status came back.
refused() {
  local who="$1" max=() rc=0 status
  [[ $# -gt 1 ]] && max=(--tls-max "$2")
  status="$(as "$who" "${max[@]}" -o "$work/refused.out" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary "@$review" "$base/v1/admission" 2>"$work/refused.err")" || rc=$?
  if [[ "$status" == 000 && ( "$rc" == 35 || "$rc" == 56 ) && ! -s "$work/refused.out" ]] &&
    grep -q "alert" "$work/refused.err"; then
    return 0
  fi
  echo "  curl exit $rc, HTTP status $status: $(cat "$work/refused.err")" >&2
  return 1
}
# The example's configuration, files reloaded on SIGHUP only (server 2 checks
# the reload on a file change).
jq '. + {watch: false}' "$ex/config.json" >"$work/config.json"
# The admission answer without --client-ca, to compare.
serve_start --config "$work/config.json"
curl_tls -H 'Content-Type: application/json' --data-binary "@$review" "$base/v1/admission" >"$work/plain.json"
serve_stop

# ---- server 1: --client-ca -------------------------------------------------------
cp "$work/ca.crt" "$work/client-ca.crt"
serve_start --config "$work/config.json" --client-ca "$work/client-ca.crt"
check "the start-up line names the CA bundle" \
  grep -q "client certificates required, verified against $work/client-ca.crt (1 CA certificate)" "$work/stderr"
check "no client certificate: the handshake is refused (TLS 1.3)" refused none
check "no client certificate: the handshake is refused (TLS 1.2)" refused none 1.2
check "a self-signed client certificate: refused" refused self
check "a certificate from another CA of the same name: refused" refused rogue
check "... also over TLS 1.2" refused rogue 1.2
check "the server's own certificate as a client certificate: refused" refused tls
check "a certificate of the CA for servers only (extendedKeyUsage serverAuth): refused" refused server-only
as client -H 'Content-Type: application/json' --data-binary "@$review" "$base/v1/admission" >"$work/mtls.json"
check "the right client certificate: the review answered as without --client-ca" \
  test "$(jq -c 'del(.response.auditAnnotations.bundle)' "$work/mtls.json")" = \
       "$(jq -c 'del(.response.auditAnnotations.bundle)' "$work/plain.json")"
check "... a denial with its policy" test "$(jq -r .response.auditAnnotations.policies "$work/mtls.json")" = \
  gpu-work-goes-through-kueue
check "a client of an intermediate CA (sent with its chain, depth 1 of 4): answered" \
  test "$(as chained -o /dev/null -w '%{http_code}' "$base/healthz")" = 200
# The CertificateRequest names the CA, so that a client picks the certificate to send.
echo | openssl s_client -connect "127.0.0.1:$port" -CAfile "$work/tls.crt" \
  -cert "$work/client.crt" -key "$work/client.key" >"$work/s_client.out" 2>&1 || true
check "the server's CertificateRequest names the CA" \
  test "$(grep -A1 -x "Acceptable client certificate CA names" "$work/s_client.out" | tail -1)" = "CN = charter-test-ca"
# No session is resumed: each connection's certificate is verified against
# the CAs of the moment. The server gives no session id and no ticket.
echo | openssl s_client -tls1_2 -connect "127.0.0.1:$port" -CAfile "$work/tls.crt" \
  -cert "$work/client.crt" -key "$work/client.key" >"$work/session.out" 2>&1 || true
check "no TLS session to resume (no session id, no ticket)" \
  bash -c "grep -q '^New, TLSv1.2' '$work/session.out' && grep -qx '    Session-ID: ' '$work/session.out' &&
    ! grep -q 'TLS session ticket:' '$work/session.out'"
# Two requests on one connection (curl reuses it): the second is answered too.
check "the right client certificate: two requests on one connection" \
  test "$(as client "$base/healthz" "$base/readyz" | tr -d '\n')" = okok
# Without --admin-listen the TLS listener still serves /v1/authorize and /metrics.
check "without --admin-listen, /v1/authorize is on the TLS listener" \
  test "$(as client --data-binary "@$here/requests.json" -o /dev/null -w '%{http_code}' "$base/v1/authorize")" = 200
as client "$base/metrics" >"$work/metrics"
metric() { awk -v k="$1" '$1 == k { print $2 }' "$work/metrics"; }
check "metrics: handshakes without a certificate counted (2)" \
  test "$(metric 'charter_client_certificates_refused_total{reason="missing"}')" = 2
check "metrics: certificates that do not verify counted (5)" \
  test "$(metric 'charter_client_certificates_refused_total{reason="unverified"}')" = 5
check "metrics: no refused handshake reached a handler (1 admission decision)" \
  test "$(metric 'charter_requests_total{endpoint="admission",decision="deny"}')" = 1

# The CA is reloaded with the certificate: the rogue CA in its place lets the
# rogue client in and keeps the first one out.
cp "$work/rogue-ca.crt" "$work/client-ca.crt"
kill -HUP "$server_pid"
reloaded() {
  for _ in $(seq 1 100); do
    grep -q "reloaded (SIGHUP)" "$work/stderr" && return 0
    sleep 0.05
  done
  return 1
}
check "SIGHUP: reloaded" reloaded
check "SIGHUP: a client of the new CA is answered" \
  test "$(as rogue -o /dev/null -w '%{http_code}' "$base/healthz")" = 200
check "SIGHUP: a client of the old CA is refused" refused client
# A bad CA file: the reload fails and the CA in use stays.
echo "not a certificate" >"$work/client-ca.crt"
kill -HUP "$server_pid"
bad_reload() {
  for _ in $(seq 1 100); do
    grep -q "certificates not replaced: $work/client-ca.crt: no PEM certificate in it" "$work/stderr" && return 0
    sleep 0.05
  done
  return 1
}
check "SIGHUP with a bad CA file: the failure says which file" bad_reload
check "SIGHUP with a bad CA file: the CA in use stays" \
  test "$(as rogue -o /dev/null -w '%{http_code}' "$base/healthz")" = 200
check "SIGTERM stops the first server" serve_stop

# ---- server 2: --admin-listen on a unix socket -------------------------------------
sock="$work/admin.sock"
# A stale socket file (its server gone) is replaced.
"${PYTHON3:-python3}" -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$sock"
cp "$work/ca.crt" "$work/client-ca.crt"
serve_start --config "$ex/config.json" --client-ca "$work/client-ca.crt" --admin-listen "unix:$sock"
check "the start-up line names the admin listener" grep -q "admin listening on unix:$sock" "$work/stderr"
check "the socket is mode 0600" test "$(stat -c %a "$sock")" = 600
admin() { curl --silent --show-error --unix-socket "$sock" "$@"; }
"$charter" authorize --bundle "$work/bundle" --schema "$gov_schema" --schema "$schema" --entities "$ex/entities.json" \
  --requests "$here/requests.json" --format json >"$work/cli.json"
admin --data-binary "@$here/requests.json" http://charter/v1/authorize >"$work/served.json"
check "admin socket: /v1/authorize decided as charter authorize" cmp "$work/cli.json" "$work/served.json"
denies="$(jq '[.[] | select(.decision == "deny")] | length' "$work/cli.json")"
admin http://charter/metrics >"$work/metrics"
check "admin socket: /metrics counts the decisions ($denies denials)" \
  test "$(metric 'charter_requests_total{endpoint="authorize",decision="deny"}')" = "$denies"
check "admin socket: /healthz" test "$(admin http://charter/healthz)" = ok
check "admin socket: /readyz" test "$(admin http://charter/readyz)" = ok
code() { "$@" -o "$work/body" -w '%{http_code}'; }
check "admin socket: /v1/admission is not there (404)" \
  test "$(code admin --data-binary "@$review" http://charter/v1/admission)" = 404
check "admin socket: ... saying where it is" grep -q 'no endpoint POST /v1/admission on the admin listener' "$work/body"
check "TLS listener: /v1/authorize answers 404" \
  test "$(code as client --data-binary "@$here/requests.json" "$base/v1/authorize")" = 404
check "TLS listener: ... saying where it is" \
  grep -q 'no endpoint POST /v1/authorize on this listener: it is served on the admin listener' "$work/body"
check "TLS listener: /metrics answers 404" test "$(code as client "$base/metrics")" = 404
check "TLS listener: /healthz" test "$(as client "$base/healthz")" = ok
check "TLS listener: the review answered" \
  test "$(as client -H 'Content-Type: application/json' --data-binary "@$review" "$base/v1/admission" | jq -r .response.allowed)" = false
check "TLS listener: still no handshake without a certificate" refused none
# The limits apply on the socket too: a body over maxBodyBytes (3 MiB in the example).
head -c 4000000 /dev/zero | tr '\0' ' ' >"$work/big.json"
check "admin socket: a body over maxBodyBytes is refused (413)" \
  test "$(code admin -H 'Content-Type: application/json' --data-binary "@$work/big.json" http://charter/v1/authorize)" = 413
# A second server on the same socket is refused, and leaves the socket alone.
rc=0
timeout 20 "$charter" serve --bundle "$work/bundle" --schema "$gov_schema" --schema "$schema" \
  --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" --listen 127.0.0.1:0 --admin-listen "unix:$sock" \
  2>"$work/second.err" || rc=$?
check "a socket a server listens on is not taken: exit 1" test "$rc" = 1
check "... saying so" grep -q "error: --admin-listen: $sock: a server is listening on it" "$work/second.err"
check "... and the first server still answers there" test "$(admin http://charter/healthz)" = ok
# A change to the CA file reloads it (inotify), as a change to the certificate does.
cp "$work/rogue-ca.crt" "$work/client-ca.new" && mv "$work/client-ca.new" "$work/client-ca.crt"
rogue_in() {
  for _ in $(seq 1 100); do
    [[ "$(as rogue -o /dev/null -w '%{http_code}' "$base/healthz" 2>/dev/null)" == 200 ]] && return 0
    sleep 0.05
  done
  return 1
}
check "inotify: a replaced CA file is used from the next handshake" rogue_in
check "inotify: ... and the old CA's client is refused" refused client
check "SIGTERM stops the second server" serve_stop
check "SIGTERM: the socket file is removed" test ! -e "$sock"

# ---- server 3: --admin-listen on loopback, no CA between client and --client-ca -----
echo '{"limits": {"clientChainDepth": 0}}' >"$work/depth0.json"
serve_start --admin-listen 127.0.0.1:0 --client-ca "$work/ca.crt" --config "$work/depth0.json"
admin_port="$(sed -n 's|.*admin listening on http://127.0.0.1:\([0-9]*\) .*|\1|p' "$work/stderr")"
check "loopback admin listener: /metrics over plain HTTP" \
  bash -c "curl --silent 'http://127.0.0.1:$admin_port/metrics' | grep -q '^charter_connections_open '"
check "loopback admin listener: the TLS listener answers 404 for /metrics" \
  test "$(code as client "$base/metrics")" = 404
check "clientChainDepth 0: a client of the CA itself is answered" \
  test "$(as client -o /dev/null -w '%{http_code}' "$base/healthz")" = 200
check "clientChainDepth 0: a client of an intermediate CA is refused" refused chained
check "SIGTERM stops the third server" serve_stop

# ---- server 4: the socket shared with a group ---------------------------------------
# A group other than the server's own when there is one (root may give any).
group="$(id -gn)"
for g in $(id -Gn); do [[ "$g" != "$group" ]] && group="$g" && break; done
if [[ "$group" == "$(id -gn)" && "$(id -u)" == 0 ]] && getent group nogroup >/dev/null; then group=nogroup; fi
serve_start --admin-listen "unix:$sock" --admin-group "$group"
check "--admin-group: the socket is mode 0660 and of the group" test "$(stat -c '%a %G' "$sock")" = "660 $group"
check "--admin-group: answered there" test "$(admin http://charter/healthz)" = ok
check "SIGTERM stops the fourth server" serve_stop
check "SIGTERM: the socket file is removed" test ! -e "$sock"

# ---- refused at start --------------------------------------------------------------------
start_refused() {  # start_refused NAME MESSAGE FLAGS...: exit 1, the message, nothing listening
  local name="$1" message="$2" rc=0
  shift 2
  timeout 20 "$charter" serve --bundle "$work/bundle" --schema "$gov_schema" --schema "$schema" \
    --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" --listen 127.0.0.1:0 "$@" 2>"$work/$name.err" || rc=$?
  if [[ "$rc" == 1 ]] && grep -qF -- "$message" "$work/$name.err" && ! grep -q "listening on" "$work/$name.err"; then
    return 0
  fi
  echo "  exit $rc: $(cat "$work/$name.err")" >&2
  return 1
}
check "a non-loopback --admin-listen is refused" start_refused public \
  '--admin-listen: `10.0.0.1:9090` is not a loopback address: the admin listener is plain HTTP, for this machine only' \
  --admin-listen 10.0.0.1:9090
check "--admin-listen on every address is refused" start_refused any '`:9090` is not a loopback address' \
  --admin-listen :9090
check "a missing CA file is refused" start_refused missing \
  "error: $work/nothing.crt: cannot open the client CA bundle (--client-ca)" --client-ca "$work/nothing.crt"
echo "not a certificate" >"$work/text.crt"
check "a CA file without PEM is refused" start_refused text "error: $work/text.crt: no PEM certificate in it" \
  --client-ca "$work/text.crt"
: >"$work/empty.crt"
check "an empty CA file is refused" start_refused empty "error: $work/empty.crt: empty" --client-ca "$work/empty.crt"
{ cat "$work/ca.crt"; printf -- '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n'; } \
  >"$work/broken.crt"
check "a CA file with a broken certificate is refused" start_refused broken \
  "error: $work/broken.crt: certificate 2 is not a PEM certificate" --client-ca "$work/broken.crt"
check "--admin-group without a unix socket is refused" start_refused group-tcp \
  "--admin-group: only with --admin-listen unix:PATH" --admin-listen 127.0.0.1:0 --admin-group "$group"
check "an unknown --admin-group is refused" start_refused group-none \
  "error: --admin-group: \`no-such-group-charter\` is not a group here" --admin-listen "unix:$sock" \
  --admin-group no-such-group-charter
check "... and leaves no socket behind" test ! -e "$sock"
check "a plain file where the socket goes is not replaced" start_refused notsock \
  "$work/text.crt: exists and is not a socket" --admin-listen "unix:$work/text.crt"

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all auth checks passed"
