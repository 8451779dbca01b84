#!/usr/bin/env bash
# `charter serve` against hostile requests (docs/server.md, "Limits"), each
# from a bounded attacker on 127.0.0.1 (attack.py): a chunked body past the
# body limit is refused as soon as it passes it, never read whole; a gzip
# body that inflates past its limit is refused; gzip, deflate and chunked
# bodies within the limits are answered; requests pipelined on one
# connection are all answered, in order; every malformed request gets a 4xx
# (or 5xx for what HTTP/1.1 lets a server not implement) saying what is wrong,
# and the server keeps serving.
#
#   tests/serve/limits_test.sh CHARTER     (from the repository root; ctest runs it)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/lib.sh" "$1"

# PYTHON3: Debian's, from ctest (a pyenv shim on PATH costs seconds a start).
attack() { timeout 20 "${PYTHON3:-python3}" "$here/attack.py" "$work/tls.crt" "$port" "$@"; }

# A configuration the server before the event loops also read, so that each
# check below says what that server did.
echo '{"limits": {"maxBodyBytes": 65536}, "watch": false}' >"$work/config.json"
serve_start --config "$work/config.json"

# ---- a chunked body past maxBodyBytes --------------------------------------------
# The attacker offers 32 MiB in 64 KiB chunks and stops when an answer comes.
peak() { awk '/^VmHWM/ { print $2 }' "/proc/$server_pid/status"; }  # KiB
curl_tls "$base/healthz" >/dev/null
before="$(peak)"
out="$(attack chunked 33554432)"
after="$(peak)"
read -r status _ sent _ <<<"$out"
check "a chunked body over maxBodyBytes is refused with 413 ($out)" \
  bash -c "[[ '$status' == 413 ]] && grep -q 'larger than 65536 bytes' <<<'$out'"
check "... and not kept: the server's peak grew by $((after - before)) KiB (under 8 MiB) while $sent bytes were sent" \
  test "$((after - before))" -lt 8192

# ---- bodies within the limits, encoded ---------------------------------------------
review="$reviews/pod-create-bare-gpu.json"
gzip -c "$review" >"$work/review.gz"
"${PYTHON3:-python3}" -c 'import sys, zlib; sys.stdout.buffer.write(zlib.compress(open(sys.argv[1], "rb").read()))' "$review" \
  >"$work/review.zz"
for how in "gzip:--data-binary @$work/review.gz -H Content-Encoding:gzip" \
           "deflate:--data-binary @$work/review.zz -H Content-Encoding:deflate" \
           "chunked:--data-binary @$review -H Transfer-Encoding:chunked"; do
  name="${how%%:*}"
  # shellcheck disable=SC2086
  curl_tls -o "$work/answer.json" -w '%{http_code}' -H 'Content-Type: application/json' ${how#*:} \
    "$base/v1/admission" >"$work/code" || true
  check "a $name body is answered" \
    bash -c "[[ \$(cat '$work/code') == 200 ]] && grep -q '\"allowed\":false' '$work/answer.json'"
done

# ---- a gzip body that inflates past maxInflatedBodyBytes (4 MiB by default) ---------
head -c 33554432 /dev/zero | tr '\0' ' ' | gzip -9 >"$work/bomb.gz"
code="$(curl_tls -o "$work/body" -w '%{http_code}' -H 'Content-Type: application/json' \
  -H 'Content-Encoding: gzip' --data-binary "@$work/bomb.gz" "$base/v1/admission")"
check "a gzip body of $(stat -c %s "$work/bomb.gz") bytes inflating to 32 MiB is refused with 413 ($code: $(cat "$work/body"))" \
  bash -c "[[ '$code' == 413 ]] && grep -q 'inflates to more than 4194304 bytes' '$work/body'"

# ---- pipelined requests -------------------------------------------------------------
request() {  # request FILE METHOD PATH [BODY-FILE]
  local body=""
  [[ -n "${4:-}" ]] && body="$(cat "$4")"
  printf '%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
    "$2" "$3" "${#body}" "$body" >"$1"
}
request "$work/p1" POST /v1/admission "$reviews/pod-create-queued.json"
request "$work/p2" GET /healthz
request "$work/p3" POST /v1/admission "$review"
attack pipeline "$work/p1" "$work/p2" "$work/p3" >"$work/pipelined"
check "three requests pipelined on one connection get three answers" grep -qx '3 answers' "$work/pipelined"
answer_uid() { sed -n "$1p" "$work/pipelined" | cut -d' ' -f2- | jq -r .response.uid 2>/dev/null; }
check "... in order" test "$(answer_uid 1) $(sed -n 2p "$work/pipelined") $(answer_uid 3)" \
  = "5a0b1c2d-0000-4000-8000-000000000002 200 ok 3f1c2b7e-8d4a-4e0b-9b1e-6a2f0c9d4e51"

# ---- malformed requests: a status and a message each ----------------------------------
bad() {  # bad DESCRIPTION STATUS MESSAGE-PART: the request is in $work/bad
  local got
  got="$(attack raw "$work/bad")"
  if [[ "${got%% *}" == "$2" ]] && grep -qF -- "$3" <<<"$got"; then
    echo "ok: $1: $2"
  else
    fail "$1: want $2 with \`$3\`, got: $got"
  fi
}
printf 'GARBAGE\r\n\r\n' >"$work/bad"
bad "a request line that is not one" 400 'is not METHOD TARGET HTTP/1.1'
printf 'POST /v1/admission HTTP/1.1\r\nContent-Length: 1x\r\n\r\n' >"$work/bad"
bad "a Content-Length that is not a number" 400 'Content-Length `1x` is not a number of bytes'
printf 'POST /v1/admission HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}' >"$work/bad"
bad "two different Content-Lengths" 400 'two different Content-Length headers'
printf 'POST /v1/admission HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n' >"$work/bad"
bad "Transfer-Encoding and Content-Length together" 400 'both Transfer-Encoding and Content-Length'
printf 'POST /v1/admission HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n' >"$work/bad"
bad "a Transfer-Encoding other than chunked" 501 'is not supported (only `chunked`, once)'
printf 'POST /v1/admission HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n' >"$work/bad"
bad "a chunk size that is not hexadecimal" 400 '`zz` is not a chunk size'
printf 'GET /healthz HTTP/2.0\r\n\r\n' >"$work/bad"
bad "HTTP/2.0 in a request line" 505 'is not supported: send HTTP/1.1'
printf 'POST /v1/admission HTTP/1.1\r\nContent-Encoding: br\r\nContent-Length: 2\r\n\r\n{}' >"$work/bad"
bad "a Content-Encoding not supported" 415 'Content-Encoding `br` is not supported'
printf 'POST /v1/admission HTTP/1.1\r\nContent-Encoding: gzip\r\nContent-Length: 8\r\n\r\nnot gzip' >"$work/bad"
bad "a gzip body that is not gzip" 400 'the gzip body is corrupt'
{ printf 'GET /healthz HTTP/1.1\r\nX-Big: '; head -c 9000 /dev/zero | tr '\0' a; printf '\r\n\r\n'; } >"$work/bad"
bad "a head over 8 KiB" 431 'larger than 8192 bytes (limits.maxHeaderBytes)'
{ printf 'GET /healthz HTTP/1.1\r\n'; for i in $(seq 1 120); do printf 'X-%d: 1\r\n' "$i"; done; printf '\r\n'; } >"$work/bad"
bad "more than 100 header fields" 431 'more than 100 header fields (limits.maxHeaders)'
printf 'GET /healthz HTTP/1.1\r\nX-Folded: a\r\n b\r\n\r\n' >"$work/bad"
bad "an obsolete folded header line" 400 'obsolete line folding'
printf 'GET /v1/admission HTTP/1.1\r\n\r\n' >"$work/bad"
bad "GET on a POST endpoint" 405 'GET is not allowed on /v1/admission'
# A wrong method on every endpoint: 405 with the Allow header, and the server keeps serving.
wrong_method() {  # wrong_method METHOD PATH ALLOW
  local got allow
  if [[ "$1" == HEAD ]]; then
    got="$(curl_tls -I -o "$work/405.head" -w '%{http_code}' "$base$2")"
  else
    got="$(curl_tls -X "$1" -D "$work/405.head" -o "$work/405.body" -w '%{http_code}' "$base$2")"
  fi
  allow="$(sed -n 's/^[Aa]llow: \(.*\)\r$/\1/p' "$work/405.head")"
  if [[ "$got" == 405 && "$allow" == "$3" ]] && { [[ "$1" == HEAD ]] || grep -qF "$1 is not allowed on $2 ($3)" "$work/405.body"; }; then
    echo "ok: $1 $2: 405, Allow: $allow"
  else
    fail "$1 $2: want 405 with Allow: $3, got $got, Allow: $allow"
  fi
}
for path in /v1/admission /v1/authorization /v1/authorize; do
  for method in GET HEAD PUT OPTIONS; do wrong_method "$method" "$path" POST; done
done
for path in /healthz /readyz /metrics; do
  for method in POST PUT DELETE; do wrong_method "$method" "$path" "GET, HEAD"; done
done
check "the server still answers after the attacks" test "$(curl_tls "$base/healthz")" = ok
check "SIGTERM stops the server" serve_stop

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all limits checks passed"
