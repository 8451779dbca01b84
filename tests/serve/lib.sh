# Shared by the serve tests: a certificate made for the test, a bundle of
# the webhook example, and `charter serve` on 127.0.0.1 (a port the kernel
# picks), stopped by its pid when the test exits, also on failure.
#
#   . tests/serve/lib.sh CHARTER
#   serve_start [extra charter serve flags...]   # sets $port, $base, $server_pid
#   curl_tls ARGS...                              # curl against it, verifying the certificate
set -euo pipefail

charter="$1"
root="$(pwd)"
ex="$root/examples/webhook"
# The bundle is compiled with the governance model and the Kubernetes schema,
# read as one schema (stdlib/kubernetes.cedarschema names governance types).
gov_schema="$root/stdlib/governance.cedarschema"
schema="$root/stdlib/kubernetes.cedarschema"
reviews="$root/tests/serve/reviews"
work="$(mktemp -d "${TMPDIR:-/tmp}/charter-serve-test.XXXXXX")"
server_pid=""
other_pids=()  # helpers a test starts; stopped by pid on exit
failures=0

cleanup() {
  for p in "${other_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
check() {  # check DESCRIPTION COMMAND...: the command must succeed
  local what="$1"
  shift
  if "$@"; then echo "ok: $what"; else fail "$what"; fi
}

# An EC certificate for 127.0.0.1 and localhost, valid for a day.
make_cert() {  # make_cert NAME
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
    -subj "/CN=charter-serve-test" -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
    -keyout "$work/$1.key" -out "$work/$1.crt" 2>/dev/null
}
make_cert tls

"$charter" build --policies "$ex/policies.cedar" --schema "$gov_schema" --schema "$schema" -o "$work/bundle" >/dev/null

serve_start() {
  "$charter" serve --bundle "$work/bundle" --entities "$ex/entities.json" --schema "$gov_schema" --schema "$schema" \
    --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" --listen 127.0.0.1:0 "$@" \
    2>"$work/stderr" &
  server_pid=$!
  port=""
  for _ in $(seq 1 200); do
    port="$(sed -n 's|.*listening on https://127.0.0.1:\([0-9]*\) .*|\1|p' "$work/stderr" | head -1)"
    [[ -n "$port" ]] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then
      cat "$work/stderr" >&2
      echo "FAIL: charter serve exited before listening" >&2
      exit 1
    fi
    sleep 0.05
  done
  if [[ -z "$port" ]]; then
    cat "$work/stderr" >&2
    echo "FAIL: charter serve did not say where it listens" >&2
    exit 1
  fi
  base="https://127.0.0.1:$port"
}

serve_stop() {
  kill -TERM "$server_pid"
  local status=0
  wait "$server_pid" || status=$?
  server_pid=""
  return "$status"
}

curl_tls() { curl --silent --show-error --cacert "$work/tls.crt" "$@"; }
