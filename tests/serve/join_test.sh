#!/usr/bin/env bash
# `charter serve` joined to the governance model (docs/server.md, "Joining the
# governance model"): with the webhook example's configuration, whose `join`
# names each team namespace's Governance::Namespace and two users' members,
# reviews are decided through the join (an allow and denies that the review
# alone does not decide); without the join the same reviews are decided
# otherwise; and a join the schema or the entities refuse stops the server
# before it serves, with the configuration's file, line and column.
#
#   tests/serve/join_test.sh CHARTER     (from the repository root; ctest runs it)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/lib.sh" "$1"

# answer REVIEW: "allowed policies" of an AdmissionReview's answer.
answer() {
  curl_tls -H 'Content-Type: application/json' --data-binary "@$reviews/$1" "$base/v1/admission" |
    jq -r '"\(.response.allowed) \(.response.auditAnnotations.policies)"'
}

# ---- with the example's configuration (the join) --------------------------------
serve_start --config "$ex/config.json"
check "the join keeps reviews' entities checked against the schema at load" \
  grep -q "reviews' entities checked against the schema at load" "$work/stderr"
# carol is in no Kubernetes group of team a; the governance model makes her a
# member of team a, the team of hyperpod-ns-team-a's Governance::Namespace.
check "a member of the namespace's team is allowed through the join" \
  test "$(answer join-member-create-pod.json)" = "true governance-team-admits-in-its-namespace"
check "... and not in another team's namespace" \
  test "$(answer join-member-create-pod-other-namespace.json)" = "false "
# mallory is in the Kubernetes group, but the governance model suspended her.
check "a suspended member is denied through the join" \
  test "$(answer join-suspended-member-create-pod.json)" = "false suspended-members-change-nothing"
# 128 GPUs: more than team a's allocation (64) and what it may borrow (32).
check "an object over its team's allocation is denied through the join" \
  test "$(answer join-pod-over-allocation.json)" = "false gpus-within-the-team-allocation"
check "the research samples keep their answers" \
  test "$(answer pytorchjob-create.json)" = "true team-admits-in-own-namespace"
curl_tls -H 'Content-Type: application/json' --data-binary "@$reviews/join-suspended-member-create-pod.json" \
  "$base/v1/admission" >"$work/suspended.json"
check "the denial says why, in the configuration's words" \
  grep -q 'the governance model has suspended this member' "$work/suspended.json"
serve_stop || fail "the server did not stop cleanly"

# ---- without the join: the same reviews are decided otherwise --------------------
jq 'del(.join)' "$ex/config.json" >"$work/nojoin.json"
serve_start --config "$work/nojoin.json"
check "without the join the member is not allowed" \
  test "$(answer join-member-create-pod.json)" = "false "
check "without the join the suspended member is allowed by her group" \
  test "$(answer join-suspended-member-create-pod.json)" = "true team-admits-in-own-namespace"
check "without the join the allocation is not known" \
  test "$(answer join-pod-over-allocation.json)" = "true team-admits-in-own-namespace"
serve_stop || fail "the server did not stop cleanly"

# ---- joins refused before serving -------------------------------------------------
# refused NAME JQ-FILTER MESSAGE: the example's configuration changed by the
# filter stops `charter serve` with exit status 1 and MESSAGE at the line of
# the join's value, which is the first line LINE-PATTERN matches (jq writes
# one member a line).
refused() {
  local name="$1" filter="$2" message="$3"
  jq "$filter" "$ex/config.json" >"$work/$name.json"
  local status=0
  "$charter" serve --bundle "$work/bundle" --entities "$ex/entities.json" --schema "$gov_schema" \
    --schema "$schema" --config "$work/$name.json" --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" \
    --listen 127.0.0.1:0 2>"$work/$name.err" >/dev/null || status=$?
  local line
  line="$(grep -n "$4" "$work/$name.json" | head -1 | cut -d: -f1)"
  if [[ "$status" == 1 ]] && grep -qF "$work/$name.json:$line:" "$work/$name.err" &&
     grep -qF -- "$message" "$work/$name.err" && ! grep -q 'listening on' "$work/$name.err"; then
    echo "ok: $name refused"
  else
    fail "$name: want exit 1 and \"$work/$name.json:$line:...$message\", got $status: $(cat "$work/$name.err")"
  fi
}
refused unknown-member \
  '.join.users["arn:aws:sts::111122223333:assumed-role/HyperPodTeamAMLEngineer/carol"].id = "nobody"' \
  'Governance::Member::"nobody" is not an entity of' 'HyperPodTeamAMLEngineer/carol'
refused wrong-type \
  '.join.users["arn:aws:sts::111122223333:assumed-role/HyperPodTeamAMLEngineer/carol"] = {"type": "Governance::Team", "id": "team-a"}' \
  'Governance::Team::"team-a" cannot be the `governance` of Kubernetes::User::' 'HyperPodTeamAMLEngineer/carol'
refused namespace-wrong-type \
  '.join.namespaces["hyperpod-ns-team-a"] = {"type": "Governance::Team", "id": "team-a"}' \
  'cannot be the `governance` of Kubernetes::Namespace::"hyperpod-ns-team-a"' '"hyperpod-ns-team-a": {'
refused unconfigured-namespace \
  '.join.namespaces["hyperpod-ns-team-z"] = {"type": "Governance::Namespace", "id": "hyperpod-west/hyperpod-ns-team-a"}' \
  'Kubernetes::Namespace::"hyperpod-ns-team-z" is not an entity of' '"hyperpod-ns-team-z"'
refused not-an-entity \
  '.join.users["someone"] = "Governance::Member::\"carol\""' \
  'expected an entity {"type": "Governance::...", "id": "..."}' '"someone"'
refused bad-service-account \
  '.join.users["system:serviceaccount:oops"] = {"type": "Governance::Identity", "id": "x"}' \
  'is not system:serviceaccount:NAMESPACE:NAME' 'serviceaccount:oops'

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all join checks passed"
