#!/usr/bin/env bash
# `charter serve` over real TLS with curl: every endpoint, the webhook
# example's answers to the reviews in reviews/ (expected.tsv), error answers,
# metrics, the decision log (masked, and replayed by `charter authorize`),
# reload on SIGHUP (a good bundle swaps in, a bad one leaves the old one
# serving) and on a change to the bundle file (inotify), and SIGTERM.
#
#   tests/serve/serve_test.sh CHARTER     (from the repository root; ctest runs it)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/lib.sh" "$1"

code_of() { curl_tls -o "$work/body" -w '%{http_code}' "$@"; }

# ---- server 1: SIGHUP only, decision log masked --------------------------------
cat >"$work/config.json" <<JSON
{"reasons": {"gpu-work-goes-through-kueue": "GPU work must name a Kueue queue"},
 "decisionLog": {"maskContext": ["dryRun"]},
 "limits": {"maxBodyBytes": 65536},
 "watch": false}
JSON
cp "$work/bundle" "$work/bundle.orig"
serve_start --config "$work/config.json" --decision-log "$work/decisions.jsonl"

check "GET /healthz" test "$(curl_tls "$base/healthz")" = ok
check "GET /readyz" test "$(curl_tls "$base/readyz")" = ok
# The example's schema declares the mapping's shapes, so reviews' entities
# are read without it (docs/server.md, "Joining the configured entities").
check "the start-up line says reviews' entities were checked against the schema at load" \
  grep -q "reviews' entities checked against the schema at load" "$work/stderr"
check "TLS 1.1 is refused" bash -c "! curl --silent --cacert '$work/tls.crt' --tlsv1.1 --tls-max 1.1 '$base/healthz' >/dev/null 2>&1"

# The reviews and their answers.
decisions=0 denies=0 no_opinions=0
while read -r file endpoint answer policies; do
  [[ -z "$file" || "$file" == \#* ]] && continue
  out="$work/answer.json"
  status="$(curl_tls -o "$out" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary "@$reviews/$file" "$base/v1/$endpoint")"
  decisions=$((decisions + 1))
  if [[ "$status" != 200 ]]; then
    fail "$file: HTTP $status: $(cat "$out")"
    continue
  fi
  if [[ "$endpoint" == admission ]]; then
    uid="$(jq -r .request.uid "$reviews/$file")"
    want_allowed=false
    [[ "$answer" == allow ]] && want_allowed=true || denies=$((denies + 1))
    want_policies="$policies"
    [[ "$policies" == - ]] && want_policies=""
    IFS=$'\x1f' read -r kind got_uid allowed got_policies code reason message < <(jq -r '[.apiVersion + " " + .kind,
      .response.uid, (.response.allowed | tostring), .response.auditAnnotations.policies,
      (.response.status.code // "none" | tostring), (.response.status.reason // "none"),
      (.response.status.message // "none")] | join("\u001f")' "$out")
    ok=1
    [[ "$kind" == "admission.k8s.io/v1 AdmissionReview" && "$got_uid" == "$uid" ]] || ok=0
    [[ "$allowed" == "$want_allowed" && "$got_policies" == "$want_policies" ]] || ok=0
    if [[ "$answer" == deny ]]; then
      [[ "$code" == 403 && "$reason" == Forbidden ]] || ok=0
      if [[ -z "$want_policies" ]]; then
        [[ "$message" == *"no policy permits it"* ]] || ok=0
      else
        for p in ${policies//,/ }; do [[ "$message" == *"policy \`$p\`"* ]] || ok=0; done
      fi
    else
      [[ "$code" == none ]] || ok=0
    fi
    ((ok)) && echo "ok: $file: $answer ($policies)" || fail "$file: want $answer ($policies), got $(cat "$out")"
  else
    case "$answer" in
      allow) want="true false" ;;
      denied) want="false true" ;;
      noopinion) want="false false" ;;
    esac
    # Logged and counted as answered: a "no opinion" is not a denial.
    [[ "$answer" == denied ]] && denies=$((denies + 1))
    [[ "$answer" == noopinion ]] && no_opinions=$((no_opinions + 1))
    IFS=$'\x1f' read -r kind flags reason < <(jq -r '[.apiVersion + " " + .kind,
      "\(.status.allowed) \(.status.denied)", .status.reason] | join("\u001f")' "$out")
    ok=1
    [[ "$kind" == "authorization.k8s.io/v1 SubjectAccessReview" && "$flags" == "$want" ]] || ok=0
    if [[ "$policies" != - ]]; then
      for p in ${policies//,/ }; do [[ "$reason" == *"policy \`$p\`"* ]] || ok=0; done
    fi
    ((ok)) && echo "ok: $file: $answer ($policies)" || fail "$file: want $answer ($policies), got $(cat "$out")"
  fi
done <"$here/expected.tsv"

# The configured reason is in the message.
curl_tls --data-binary "@$reviews/pod-create-bare-gpu.json" "$base/v1/admission" >"$work/out.json"
check "a configured reason is in the denial's message" \
  grep -q 'policy `gpu-work-goes-through-kueue`: GPU work must name a Kueue queue' "$work/out.json"

# /v1/authorize answers as `charter authorize --format json` does.
"$charter" authorize --bundle "$work/bundle" --schema "$gov_schema" --schema "$schema" --entities "$ex/entities.json" \
  --requests "$here/requests.json" --format json >"$work/cli.json"
curl_tls --data-binary "@$here/requests.json" "$base/v1/authorize" >"$work/served.json"
check "POST /v1/authorize (a batch) answers as charter authorize" cmp "$work/cli.json" "$work/served.json"
jq -c '.[0]' "$here/requests.json" >"$work/one.json"
"$charter" authorize --bundle "$work/bundle" --schema "$gov_schema" --schema "$schema" --entities "$ex/entities.json" \
  --request-json "$work/one.json" --format json >"$work/cli-one.json" || true
curl_tls --data-binary "@$work/one.json" "$base/v1/authorize" >"$work/served-one.json"
check "POST /v1/authorize (one request) answers as charter authorize" cmp "$work/cli-one.json" "$work/served-one.json"
decisions=$((decisions + 3))
denies=$((denies + 3))

# Error answers: 4xx with a message, and the server keeps serving.
errors400=0
expect_error() {  # expect_error DESCRIPTION CODE MESSAGE-PART CURL-ARGS...
  local what="$1" want="$2" part="$3"
  shift 3
  local got
  got="$(code_of "$@")"
  if [[ "$got" == "$want" ]] && grep -qF -- "$part" "$work/body"; then
    echo "ok: $what: $got"
  else
    fail "$what: want $want with \`$part\`, got $got: $(cat "$work/body")"
  fi
}
expect_error "malformed JSON" 400 "malformed JSON: 1:" --data-binary '{"apiVersion": ' "$base/v1/admission"
expect_error "a SubjectAccessReview sent for admission" 400 "expected a AdmissionReview of admission.k8s.io/v1, got kind \`SubjectAccessReview\`" \
  --data-binary "@$reviews/sar-team-user-create-pods.json" "$base/v1/admission"
expect_error "an AdmissionReview sent for authorization" 400 "expected a SubjectAccessReview" \
  --data-binary "@$reviews/pytorchjob-create.json" "$base/v1/authorization"
jq 'del(.request.uid)' "$reviews/pod-create-queued.json" >"$work/no-uid.json"
expect_error "a review without a uid" 400 "request.uid: missing" --data-binary "@$work/no-uid.json" "$base/v1/admission"
jq '.request.object.spec.containers[0].resources.requests["nvidia.com/gpu"] = "1.5"' \
  "$reviews/pod-create-queued.json" >"$work/half-gpu.json"
expect_error "a fractional GPU" 400 'request.object.spec.containers[0].resources.requests[\"nvidia.com/gpu\"]: `1.5` is not a whole number' \
  --data-binary "@$work/half-gpu.json" "$base/v1/admission"
jq '.request.operation = "PATCH"' "$reviews/pod-create-queued.json" >"$work/patch.json"
expect_error "an unknown operation" 400 'request.operation: `PATCH` is not CREATE, UPDATE, DELETE or CONNECT' \
  --data-binary "@$work/patch.json" "$base/v1/admission"
expect_error "a request the schema refuses" 400 "request" \
  --data-binary '{"principal":{"type":"Nope","id":"x"},"action":{"type":"Kubernetes::Action","id":"get"},"resource":{"type":"Kubernetes::Resource","id":"r"},"context":{}}' \
  "$base/v1/authorize"
errors400=7
head -c 100000 /dev/zero | tr '\0' ' ' >"$work/big.json"
expect_error "a body over maxBodyBytes" 413 "larger than 65536 bytes" -H 'Content-Type: application/json' \
  --data-binary "@$work/big.json" "$base/v1/admission"
head -c 20000 /dev/zero | tr '\0' ' ' >"$work/form.json"
expect_error "a form-encoded body over 8 KiB" 413 "application/x-www-form-urlencoded is limited to 8192 bytes" \
  --data-binary "@$work/form.json" "$base/v1/admission"
expect_error "an unknown path" 404 "no endpoint POST /v1/nothing" --data-binary '{}' "$base/v1/nothing"
check "the server still answers after the errors" test "$(curl_tls "$base/healthz")" = ok

# A Job whose GPUs add up past 2^31 (issue 32: the sum wrapped to a negative
# count and the Job was allowed) is denied with the mapping's words, as a
# 200 answer, so that no failure policy lets it through.
jq -n '{apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: {uid: "overflow-1",
    kind: {group: "batch", version: "v1", kind: "Job"}, resource: {group: "batch", version: "v1", resource: "jobs"},
    name: "wrap", namespace: "hyperpod-ns-team-a", operation: "CREATE",
    userInfo: {username: "alice", groups: ["system:authenticated"]},
    object: {apiVersion: "batch/v1", kind: "Job", metadata: {name: "wrap", namespace: "hyperpod-ns-team-a"},
      spec: {parallelism: 2147483647, template: {spec: {containers: [range(4) | {name: "c", image: "i",
        resources: {requests: {"nvidia.com/gpu": "2147483648"}}}]}}}}}}' >"$work/overflow.json"
status="$(code_of -H 'Content-Type: application/json' --data-binary "@$work/overflow.json" "$base/v1/admission")"
check "an overflowing GPU total: answered 200" test "$status" = 200
check "an overflowing GPU total: denied, uid echoed, 403" \
  test "$(jq -r '[.response.uid, (.response.allowed | tostring), (.response.status.code | tostring)] | join(" ")' "$work/body")" \
  = "overflow-1 false 403"
check "an overflowing GPU total: the message says why" \
  grep -qF 'the accelerators requested come to more than 2147483648' "$work/body"
decisions=$((decisions + 1))
denies=$((denies + 1))

# Metrics.
curl_tls "$base/metrics" >"$work/metrics"
metric() { awk -v k="$1" '$1 == k { print $2 }' "$work/metrics"; }
admission_deny="$(metric 'charter_requests_total{endpoint="admission",decision="deny"}')"
# From expected.tsv: its admission reviews, and those denied.
admission_reviews=$(awk '!/^#/ && $2 == "admission"' "$here/expected.tsv" | wc -l)
admission_denied=$(awk '!/^#/ && $2 == "admission" && $3 == "deny"' "$here/expected.tsv" | wc -l)
policy_count=$(grep -cE '^(permit|forbid) \(' "$ex/policies.cedar")
check "metrics: admission denials counted ($admission_denied reviews + 1 repeat + the overflow)" \
  test "$admission_deny" = $((admission_denied + 2))
check "metrics: authorization allows counted" test "$(metric 'charter_requests_total{endpoint="authorization",decision="allow"}')" = 3
check "metrics: authorization denials counted (a forbid)" test "$(metric 'charter_requests_total{endpoint="authorization",decision="deny"}')" = 2
check "metrics: authorization no opinions counted apart" test "$(metric 'charter_requests_total{endpoint="authorization",decision="no_opinion"}')" = 2
check "metrics: 400s on /v1/admission counted" test "$(metric 'charter_request_errors_total{endpoint="admission",code="400"}')" = 5
check "metrics: the 413s counted" test "$(metric 'charter_request_errors_total{endpoint="admission",code="413"}')" = 2
check "metrics: latency histogram count" \
  test "$(metric 'charter_request_duration_seconds_count{endpoint="admission"}')" = $((admission_reviews + 2))
hash="sha256:$(sha256sum "$work/bundle" | cut -d' ' -f1)"
check "metrics: the bundle's hash" grep -q "charter_bundle_info{hash=\"$hash\",policies=\"$policy_count\"} 1" "$work/metrics"
check "metrics: no reloads yet" test "$(metric charter_reloads_total)" = 0

# Reload on SIGHUP: a good bundle swaps in.
cp "$ex/policies.cedar" "$work/more.cedar"
cat >>"$work/more.cedar" <<'CEDAR'
@id("anyone-creates-pods")
permit (principal, action == Kubernetes::Action::"create", resource is Kubernetes::Resource)
when { resource.resource == "pods" };
CEDAR
"$charter" build --policies "$work/more.cedar" --schema "$gov_schema" --schema "$schema" -o "$work/bundle.new" >/dev/null
before="$(curl_tls --data-binary "@$reviews/sar-team-user-create-pods-other-namespace.json" "$base/v1/authorization" | jq -r .status.allowed)"
mv "$work/bundle.new" "$work/bundle"
kill -HUP "$server_pid"
wait_metric() {  # wait_metric NAME VALUE: until the server reports it (the reload is asynchronous)
  for _ in $(seq 1 200); do
    curl_tls "$base/metrics" >"$work/metrics"
    [[ "$(metric "$1")" == "$2" ]] && return 0
    sleep 0.05
  done
  return 1
}
check "SIGHUP: the reload is counted" wait_metric charter_reloads_total 1
after="$(curl_tls --data-binary "@$reviews/sar-team-user-create-pods-other-namespace.json" "$base/v1/authorization" | jq -r .status.allowed)"
check "SIGHUP: the new bundle decides (false before, true after)" test "$before $after" = "false true"
new_hash="sha256:$(sha256sum "$work/bundle" | cut -d' ' -f1)"
check "SIGHUP: metrics show the new bundle" grep -q "charter_bundle_info{hash=\"$new_hash\",policies=\"$((policy_count + 1))\"}" "$work/metrics"

# A bad bundle leaves the old one serving.
echo "not a bundle" >"$work/bundle"
kill -HUP "$server_pid"
check "SIGHUP with a bad bundle: the failure is counted" wait_metric charter_reload_failures_total 1
check "SIGHUP with a bad bundle: the failure is logged" grep -q "reload (SIGHUP) failed, still serving $new_hash" "$work/stderr"
still="$(curl_tls --data-binary "@$reviews/sar-team-user-create-pods-other-namespace.json" "$base/v1/authorization" | jq -r .status.allowed)"
check "SIGHUP with a bad bundle: the previous bundle still decides" test "$still" = true
check "SIGHUP with a bad bundle: still ready" test "$(curl_tls "$base/readyz")" = ok
decisions=$((decisions + 3 + 1))
no_opinions=$((no_opinions + 1))  # the review before the reload
denies=$((denies + 1))            # the request in flight at SIGTERM, below

# SIGTERM: drains, writes the queued log lines, exits 0.
check "SIGTERM stops the server with status 0" serve_stop
check "SIGTERM: stopped cleanly" grep -q "charter serve: stopped" "$work/stderr"

# The decision log: a line a decision.
log="$work/decisions.jsonl"
check "decision log: one line a decision ($decisions)" test "$(wc -l <"$log")" = "$decisions"
check "decision log: every line is JSON" jq -e . "$log" >/dev/null
line="$(grep -m1 '"uid":"3f1c2b7e-8d4a-4e0b-9b1e-6a2f0c9d4e51"' "$log")"
check "decision log: the bare pod's line" test "$(jq -r '[.endpoint, .decision, (.reasons | join(",")), .principal, .action, .resource] | join(" ")' <<<"$line")" \
  = 'admission deny gpu-work-goes-through-kueue Kubernetes::User::"arn:aws:sts::111122223333:assumed-role/HyperPodTeamADataScientist/alice" Kubernetes::Action::"CREATE" Kubernetes::Pod::"hyperpod-ns-team-a/alice-gpu-debug"'
check "decision log: the bundle hash and a latency" jq -e --arg h "$hash" '.bundle == $h and (.latency_us | type) == "number"' <<<"$line" >/dev/null
check "decision log: masked context" test "$(jq -r .request.context.dryRun <<<"$line")" = '***'
check "decision log: unmasked context" test "$(jq -r '.request.context.subResource | length' <<<"$line")" = 0
check "decision log: denials" test "$(jq -s '[.[] | select(.decision == "deny")] | length' "$log")" = "$denies"
check "decision log: SubjectAccessReviews with no opinion ($no_opinions)" \
  test "$(jq -s '[.[] | select(.endpoint == "authorization" and .decision == "no opinion")] | length' "$log")" = "$no_opinions"
# The /v1/authorize lines read back as requests decide as they did.
jq -s '[.[] | select(.endpoint == "authorize") | .request]' "$log" | jq '.[0:2]' >"$work/replay.json"
"$charter" authorize --bundle "$work/bundle.orig" --schema "$gov_schema" --schema "$schema" --entities "$ex/entities.json" \
  --requests "$work/replay.json" --format json >"$work/replayed.json"
check "decision log: replayed requests decide as logged" \
  test "$(jq -c '[.[].decision]' "$work/replayed.json")" = "$(jq -s -c '[.[] | select(.endpoint == "authorize") | .decision] | .[0:2]' "$log")"

# ---- server 2: a change to the bundle file is noticed (inotify) ------------------
"$charter" build --policies "$ex/policies.cedar" --schema "$gov_schema" --schema "$schema" -o "$work/bundle" >/dev/null
serve_start
before="$(curl_tls --data-binary "@$reviews/sar-team-user-create-pods-other-namespace.json" "$base/v1/authorization" | jq -r .status.allowed)"
"$charter" build --policies "$work/more.cedar" --schema "$gov_schema" --schema "$schema" -o "$work/bundle.new" >/dev/null
mv "$work/bundle.new" "$work/bundle"
check "inotify: the replaced bundle is reloaded" wait_metric charter_reloads_total 1
after="$(curl_tls --data-binary "@$reviews/sar-team-user-create-pods-other-namespace.json" "$base/v1/authorization" | jq -r .status.allowed)"
check "inotify: the new bundle decides (false before, true after)" test "$before $after" = "false true"
check "inotify: the reload is logged" grep -q "reloaded (files changed)" "$work/stderr"
# A new certificate is served from the next handshake on.
make_cert renewed
cp "$work/renewed.key" "$work/tls.key.new" && cp "$work/renewed.crt" "$work/tls.crt.new"
mv "$work/tls.key.new" "$work/tls.key" && mv "$work/tls.crt.new" "$work/tls.crt"
renewed_served() {
  for _ in $(seq 1 200); do
    curl --silent --cacert "$work/renewed.crt" "$base/healthz" 2>/dev/null | grep -q ok && return 0
    sleep 0.05
  done
  return 1
}
check "inotify: a renewed certificate is served" renewed_served
# SIGTERM finishes a request in flight: a review sent slowly (150 KB at
# 100 KB/s) is still answered after the signal.
{ cat "$reviews/pod-create-bare-gpu.json"; head -c 150000 /dev/zero | tr '\0' ' '; } >"$work/slow.json"
curl_tls -o "$work/slow.out" -w '%{http_code}' --limit-rate 100k -H 'Content-Type: application/json' \
  --data-binary "@$work/slow.json" "$base/v1/admission" >"$work/slow.code" &
slow=$!
other_pids+=("$slow")
connected() {  # until the server has the connection (the body takes 1.5 s to send)
  for _ in $(seq 1 200); do
    [[ -n "$(ss -Htn state established "( sport = :$port )" 2>/dev/null)" ]] && return 0
    sleep 0.05
  done
  return 1
}
check "SIGTERM: a slow request is in flight" connected
# The kernel has the connection; give the server a moment to accept it (a
# connection still in the listen backlog when the server stops is closed).
# The body takes 1.5 s more to arrive, so the request is in flight.
sleep 0.5
check "SIGTERM stops the second server" serve_stop
wait "$slow" || true
check "SIGTERM: the request in flight was answered" test "$(cat "$work/slow.code")" = 200
check "SIGTERM: ... with its decision" grep -q '"allowed":false' "$work/slow.out"

# ---- server 3: a decision log that cannot keep up drops lines, never decisions --
# The log is a FIFO whose reader never reads: once the pipe is full the
# writer blocks, the queue (one line) fills, and every later line is dropped.
mkfifo "$work/log.fifo"
sleep 600 <"$work/log.fifo" &
reader=$!
other_pids+=("$reader")
echo '{"decisionLog": {"queue": 1}, "watch": false}' >"$work/config1.json"
serve_start --config "$work/config1.json" --decision-log "$work/log.fifo"
# One curl, one kept-alive connection, 120 reviews.
urls=()
for _ in $(seq 1 120); do urls+=("$base/v1/admission"); done
answered="$(curl_tls --data-binary "@$reviews/pod-create-bare-gpu.json" "${urls[@]}" | grep -o '"allowed":false' | wc -l)"
check "a blocked decision log: every review still answered" test "$answered" = 120
dropped="$(curl_tls "$base/metrics" | awk '$1 == "charter_decision_log_dropped_total" { print $2 }')"
check "a blocked decision log: the dropped lines are counted ($dropped)" test "$dropped" -gt 0
kill "$reader"  # the writer's next write fails, and the server can stop
wait "$reader" 2>/dev/null || true
check "SIGTERM stops the third server" serve_stop

# ---- bad configurations are refused before serving ------------------------------
echo '{"limits": {"threads": 0}}' >"$work/bad.json"
check "a bad configuration is refused" bash -c "! '$charter' serve --bundle '$work/bundle' --schema '$gov_schema' --schema '$schema' --tls-cert '$work/tls.crt' --tls-key '$work/tls.key' --config '$work/bad.json' 2>'$work/bad.err'"
check "... with the member named, as a start-up fault" grep -q '^charter serve: error: .*bad.json:1:24: `threads` must be a whole number from 1 to 4096' "$work/bad.err"
# Every file the start reads that fails says `charter serve: error: ...` and exits 1.
start_fault() {  # start_fault DESCRIPTION MESSAGE-PART FLAGS...
  local what="$1" part="$2" status=0
  shift 2
  "$charter" serve --bundle "$work/bundle" --schema "$gov_schema" --schema "$schema" --tls-cert "$work/tls.crt" \
    --tls-key "$work/tls.key" --listen 127.0.0.1:0 "$@" 2>"$work/start.err" >/dev/null || status=$?
  if [[ "$status" == 1 ]] && grep -q "^charter serve: error: .*$part" "$work/start.err"; then
    echo "ok: start-up fault: $what"
  else
    fail "start-up fault: $what: exit $status, $(cat "$work/start.err")"
  fi
}
start_fault "a configuration that is not there" "nope.json: cannot open the configuration: No such file or directory" \
  --config "$work/nope.json"
start_fault "a configuration that is a directory" "$(basename "$work"): is a directory, not a configuration file" \
  --config "$work"
# The certificate and key, which start_fault's own flags name: given here.
cert_fault() {  # cert_fault DESCRIPTION MESSAGE-PART CERT KEY
  local status=0
  "$charter" serve --bundle "$work/bundle" --schema "$gov_schema" --schema "$schema" --tls-cert "$3" \
    --tls-key "$4" --listen 127.0.0.1:0 2>"$work/start.err" >/dev/null || status=$?
  if [[ "$status" == 1 ]] && grep -q "^charter serve: error: .*$2" "$work/start.err"; then
    echo "ok: start-up fault: $1"
  else
    fail "start-up fault: $1: exit $status, $(cat "$work/start.err")"
  fi
}
cert_fault "a certificate that is not there" "nope.crt: cannot open the certificate: No such file or directory" \
  "$work/nope.crt" "$work/tls.key"
cert_fault "a certificate that is a directory" "is a directory, not the certificate" "$work" "$work/tls.key"
cert_fault "a key that is not there" "nope.key: cannot open the key: No such file or directory" \
  "$work/tls.crt" "$work/nope.key"
start_fault "an entity file that is not there" "nope.json: cannot open: No such file or directory" --entities "$work/nope.json"
start_fault "a decision log that cannot be opened" "cannot open the decision log for appending: No such file or directory" \
  --decision-log "$work/no/such/dir/log"
start_fault "a decision log that is a directory" "cannot open the decision log for appending: Is a directory" --decision-log "$work"
start_fault "a client CA file that is not there" "nope.pem: cannot open the client CA bundle" --client-ca "$work/nope.pem"
check "a typed bundle without its schema is refused" bash -c "! '$charter' serve --bundle '$work/bundle' --tls-cert '$work/tls.crt' --tls-key '$work/tls.key' 2>'$work/noschema.err'"
check "... saying so" grep -q 'the bundle was compiled with a schema: pass it with --schema' "$work/noschema.err"
make_cert other
check "a key that does not match the certificate is refused" bash -c "! '$charter' serve --bundle '$work/bundle' --schema '$gov_schema' --schema '$schema' --tls-cert '$work/tls.crt' --tls-key '$work/other.key' 2>'$work/key.err'"
check "... saying so" grep -q 'the key does not match' "$work/key.err"

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all serve checks passed"
