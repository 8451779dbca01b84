#!/usr/bin/env bash
# Rollout modes (docs/server.md, "Rolling out"): a forbid annotated
# @enforcement("warn") lets a review through with a warning and the audit
# annotation wouldDeny; the server's --enforcement is a ceiling over every
# policy's (dryrun: no warning, the annotation only), also for "no policy
# permits it" on admission, never turning a SubjectAccessReview's "no
# opinion" into "allowed"; a bad annotation stops the server before it serves.
#
#   tests/serve/enforcement_test.sh CHARTER     (from the repository root; ctest runs it)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/lib.sh" "$1"

# review ENDPOINT FILE: the answer, as JSON on one line.
review() {
  curl_tls -H 'Content-Type: application/json' --data-binary "@$reviews/$2" "$base/v1/$1" | jq -c .
}
# build_with SED_SCRIPT: the example's policies edited by the script, built to $work/bundle.
build_with() {
  sed "$1" "$ex/policies.cedar" >"$work/policies.cedar"
  "$charter" build --policies "$work/policies.cedar" --schema "$gov_schema" --schema "$schema" \
    -o "$work/bundle" >/dev/null
}

# ---- as shipped: every policy enforced ---------------------------------------------
serve_start --config "$ex/config.json"
out=$(review admission pod-create-bare-gpu.json)
check "as shipped, the bare GPU Pod is denied" test "$(jq -r .response.allowed <<<"$out")" = false
check "... with no wouldDeny annotation" test "$(jq -r '.response.auditAnnotations | has("wouldDeny")' <<<"$out")" = false
serve_stop

# ---- one forbid in warn mode ---------------------------------------------------------
build_with 's/^@id("gpu-work-goes-through-kueue")$/@id("gpu-work-goes-through-kueue")\n@enforcement("warn")/'
grep -q '@enforcement("warn")' "$work/policies.cedar" || { echo "FAIL: the annotation was not added" >&2; exit 1; }
serve_start --config "$ex/config.json"
out=$(review admission pod-create-bare-gpu.json)
check "a warn forbid lets the bare GPU Pod through" test "$(jq -r .response.allowed <<<"$out")" = true
check "... with a warning that says what would have denied it, and why" \
  grep -q 'charter: warn: CREATE Pod hyperpod-ns-team-a/[^ ]* by Kubernetes::User::.* would be denied: forbidden by policy `gpu-work-goes-through-kueue`: an object that requests GPUs must name a Kueue queue' \
  <<<"$(jq -r '.response.warnings[]' <<<"$out")"
check "... and the audit annotation wouldDeny" \
  test "$(jq -r .response.auditAnnotations.wouldDeny <<<"$out")" = "warn:gpu-work-goes-through-kueue"
check "... its decision annotation is the answer given (allow)" \
  test "$(jq -r .response.auditAnnotations.decision <<<"$out")" = allow
# The pod is bare: no permit applies to alice's pod but her team's, which does.
check "... the permit that allowed it is named" \
  test "$(jq -r .response.auditAnnotations.policies <<<"$out")" = team-admits-in-own-namespace
out=$(review admission pod-create-wrong-queue.json)
check "the other forbids still deny" test "$(jq -r '"\(.response.allowed) \(.response.auditAnnotations.policies)"' <<<"$out")" = "false queue-of-own-namespace"
out=$(review admission pytorchjob-create-other-namespace-dryrun.json)
check "a review no policy permits is still denied (the server's mode is deny)" \
  test "$(jq -r .response.allowed <<<"$out")" = false
serve_stop

# ---- the server in dryrun mode: a ceiling over every policy ------------------------------
"$charter" build --policies "$ex/policies.cedar" --schema "$gov_schema" --schema "$schema" -o "$work/bundle" >/dev/null
serve_start --config "$ex/config.json" --enforcement dryrun --decision-log "$work/log.jsonl"
check "the server says its mode at start" grep -q "enforcement dryrun" "$work/stderr"
out=$(review admission pod-create-bare-gpu.json)
check "dryrun lets the bare GPU Pod through" test "$(jq -r .response.allowed <<<"$out")" = true
check "... with no warning" test "$(jq -r '.response.warnings // [] | length' <<<"$out")" = 0
check "... and the audit annotation wouldDeny" \
  test "$(jq -r .response.auditAnnotations.wouldDeny <<<"$out")" = "dryrun:gpu-work-goes-through-kueue"
out=$(review admission pytorchjob-create-other-namespace-dryrun.json)
check "dryrun lets through what no policy permits" test "$(jq -r .response.allowed <<<"$out")" = true
check "... annotated as no policy permitting it" test "$(jq -r .response.auditAnnotations.wouldDeny <<<"$out")" = "dryrun:"
out=$(review authorization sar-team-sa-delete-nodes.json)
check "a SubjectAccessReview's forbid in dryrun does not deny" \
  test "$(jq -r '"\(.status.allowed) \(.status.denied)"' <<<"$out")" = "false false"
out=$(review authorization sar-team-user-create-pods-other-namespace.json)
check "... and no opinion stays no opinion (never allowed)" \
  test "$(jq -r '"\(.status.allowed) \(.status.denied)"' <<<"$out")" = "false false"
out=$(review authorization sar-team-user-create-pods.json)
check "... and a permit still allows" test "$(jq -r .status.allowed <<<"$out")" = true
serve_stop
# dryrun is "logged only": the line keeps the policies' own decision (so that
# charter diff replays it) and says what was answered and what was not enforced.
line=$(jq -c 'select(.resource | contains("alice-gpu-debug")) | select(.endpoint == "admission")' "$work/log.jsonl" | head -1)
check "the log line has the policies' decision (deny, gpu-work-goes-through-kueue)" \
  test "$(jq -r '"\(.decision) \(.reasons | join(","))"' <<<"$line")" = "deny gpu-work-goes-through-kueue"
check "... the answer given and what was not enforced" \
  test "$(jq -c .enforcement <<<"$line")" = '{"answered":"allow","notEnforced":["dryrun:gpu-work-goes-through-kueue"]}'
check "a line nothing was set aside for has no enforcement member" \
  test "$(jq -s '[.[] | select(.decision == "allow" and .endpoint == "admission") | has("enforcement")] | any' "$work/log.jsonl")" = false
"$charter" diff --old "$work/bundle" --new "$work/bundle" --decision-log "$work/log.jsonl" --entities "$ex/entities.json" \
  --schema "$gov_schema" --schema "$schema" >"$work/diff.txt" 2>&1 || true
check "charter diff replays the dryrun log: nothing changed, nothing it could not replay ($(tail -1 "$work/diff.txt"))" \
  grep -q ": 0 changed.* 0 not replayed" "$work/diff.txt"

# ---- the server in warn mode, from the configuration ------------------------------------
jq '. + {enforcement: "warn"}' "$ex/config.json" >"$work/config.json"
serve_start --config "$work/config.json"
out=$(review admission pytorchjob-create-other-namespace-dryrun.json)
check "warn (configuration) lets through what no policy permits, with a warning" \
  test "$(jq -r '"\(.response.allowed) \(.response.warnings[0])"' <<<"$out" | sed 's/ by .* would/ would/')" = \
  "true charter: warn: CREATE PyTorchJob hyperpod-ns-team-b/llama3-8b-finetune would be denied: no policy permits it"
serve_stop
serve_start --config "$work/config.json" --enforcement deny
out=$(review admission pod-create-bare-gpu.json)
check "--enforcement deny overrides the configuration's warn" test "$(jq -r .response.allowed <<<"$out")" = false
serve_stop

# ---- bad annotations and modes stop the server before it serves ----------------------------
# refused WHAT EXPECTED_MESSAGE FLAGS...: charter serve exits 1 saying so.
refused() {
  local what=$1 message=$2
  shift 2
  local status=0
  "$charter" serve --bundle "$work/bundle" --entities "$ex/entities.json" --schema "$gov_schema" --schema "$schema" \
    --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" --listen 127.0.0.1:0 "$@" 2>"$work/refused" &
  local pid=$!
  other_pids+=("$pid")
  wait "$pid" || status=$?
  if ((status == 1)) && grep -qF -- "$message" "$work/refused"; then
    echo "ok: $what"
  else
    fail "$what: exit $status, $(cat "$work/refused")"
  fi
}
build_with 's/^@id("gpu-work-goes-through-kueue")$/@id("gpu-work-goes-through-kueue")\n@enforcement("warnn")/'
refused "an unknown @enforcement is refused" \
  'policy `gpu-work-goes-through-kueue`: @enforcement: an enforcement is "deny", "warn" or "dryrun", not "warnn"'
build_with 's/^@id("cluster-administrators")$/@id("cluster-administrators")\n@enforcement("warn")/'
refused "@enforcement on a permit is refused" \
  'policy `cluster-administrators`: @enforcement applies to forbid policies only'
"$charter" build --policies "$ex/policies.cedar" --schema "$gov_schema" --schema "$schema" -o "$work/bundle" >/dev/null
refused "an unknown --enforcement is refused" '--enforcement: an enforcement is "deny", "warn" or "dryrun", not "off"' \
  --enforcement off
jq '. + {enforcement: 3}' "$ex/config.json" >"$work/config.json"
refused "a configuration's enforcement that is not a string is refused" 'enforcement' --config "$work/config.json"

((failures == 0)) || { echo "$failures check(s) failed" >&2; exit 1; }
echo "all enforcement checks passed"
