#!/usr/bin/env bash
# The decision log replayed (docs/server.md, "Decision log"; docs/cli.md,
# `charter diff`): a server on 127.0.0.1 decides the sample reviews and
# Charter requests into its log; SubjectAccessReviews are logged and counted
# as allow, deny or no opinion; `charter diff --decision-log` over that log
# decides each line's request over the entity file with the line's own
# entities laid over it, so that policies that drop two forbids change
# decisions (issue 34: it said "0 changed"); the old side equals every
# logged decision; lines it cannot replay (a decision that --old does not
# give, a log line without entities, a masked context, a review that did
# not map) are named with the reason and counted apart, never as unchanged.
#
#   tests/serve/replay_test.sh CHARTER     (from the repository root; ctest runs it)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/lib.sh" "$1"

echo '{"watch": false}' >"$work/config.json"
log="$work/log.jsonl"
serve_start --config "$work/config.json" --decision-log "$log"

# The reviews of expected.tsv, and the Charter requests.
sent=0 sars=0
while read -r file endpoint _; do
  [[ -z "$file" || "$file" == \#* ]] && continue
  curl_tls -o /dev/null -H 'Content-Type: application/json' --data-binary "@$reviews/$file" "$base/v1/$endpoint"
  sent=$((sent + 1))
  [[ "$endpoint" == authorization ]] && sars=$((sars + 1))
done <"$here/expected.tsv"
curl_tls -o /dev/null --data-binary "@$here/requests.json" "$base/v1/authorize"
sent=$((sent + 2))
# A SubjectAccessReview whose request the schema refuses (a verb that is no
# action): no opinion, logged without a request to decide again.
jq '.spec.resourceAttributes.verb = "frobnicate"' "$reviews/sar-team-user-create-pods.json" >"$work/sar-bad-verb.json"
curl_tls -o "$work/bad-verb.out" --data-binary "@$work/sar-bad-verb.json" "$base/v1/authorization"
check "a SubjectAccessReview that does not map: no opinion" \
  test "$(jq -r '"\(.status.allowed) \(.status.denied)"' "$work/bad-verb.out")" = "false false"
sent=$((sent + 1))
sars=$((sars + 1))

metrics() { curl_tls "$base/metrics" >"$work/metrics"; }
metric() { awk -v k="$1" '$1 == k { print $2 }' "$work/metrics"; }
# Every line written before the log is read (no sleep: the writer's count).
for _ in $(seq 1 100); do
  metrics
  [[ "$(metric charter_decision_log_written_total)" == "$sent" ]] && break
  sleep 0.05
done
check "every decision written to the log ($sent)" test "$(metric charter_decision_log_written_total)" = "$sent"

# SubjectAccessReviews: allowed, denied and no opinion, counted and logged apart.
sar_metric() { metric "charter_requests_total{endpoint=\"authorization\",decision=\"$1\"}"; }
check "metrics: SubjectAccessReviews allowed (3)" test "$(sar_metric allow)" = 3
check "metrics: SubjectAccessReviews denied by a forbid (2)" test "$(sar_metric deny)" = 2
check "metrics: SubjectAccessReviews with no opinion (2 + the one that did not map)" test "$(sar_metric no_opinion)" = 3
check "metrics: no no_opinion series for admission" bash -c "! grep -q 'endpoint=\"admission\",decision=\"no_opinion\"' '$work/metrics'"
check "decision log: a SubjectAccessReview with no opinion says so" \
  test "$(jq -s -r '[.[] | select(.endpoint == "authorization") | .decision] | map(select(. == "no opinion")) | length' "$log")" = 3
check "decision log: denied SubjectAccessReviews say deny" \
  test "$(jq -s -r '[.[] | select(.endpoint == "authorization" and .decision == "deny")] | length' "$log")" = 2
check "decision log: the one that did not map has no request" \
  test "$(jq -s -c '[.[] | select(.endpoint == "authorization" and .request == null) | .errors[0].policy]' "$log")" = '["(mapping)"]'

# What a line carries to be decided again: the request, the review's own
# entities (the principal, the object, their annotations and extra; the configured entities are
# not copied), nothing masked.
bare="$(grep -m1 '"uid":"3f1c2b7e-8d4a-4e0b-9b1e-6a2f0c9d4e51"' "$log")"
check "decision log: a review's line carries its entities" \
  test "$(jq -r '[.entities[].uid.type] | sort | join(",")' <<<"$bare")" = "Kubernetes::Annotations,Kubernetes::Extra,Kubernetes::Pod,Kubernetes::User"
check "decision log: ... and the object's attributes" test "$(jq -r '.entities[] | select(.uid.type == "Kubernetes::Pod") | .attrs.gpus' <<<"$bare")" = 8
check "decision log: nothing masked" test "$(jq -c .masked <<<"$bare")" = '[]'
check "decision log: an authorize line has no entities of its own" \
  test "$(jq -s -c '[.[] | select(.endpoint == "authorize") | .entities]' "$log")" = '[[],[]]'
check "SIGTERM stops the server" serve_stop

# ---- charter diff over the server's own log ----------------------------------------
# New policies: two forbids dropped. Decisions change only where a review's
# own attributes made the forbid apply (GPUs without a queue, a workload
# identity), which a replay without the review's entities cannot see.
awk '/^@id\("(gpu-work-goes-through-kueue|workload-identities-never-touch-the-cluster)"\)/ { skip = 1 }
     skip && /;[[:space:]]*$/ { skip = 0; next }
     !skip' "$ex/policies.cedar" >"$work/new.cedar"
check "the new policies lack the two forbids" bash -c "! grep -q 'gpu-work-goes-through-kueue\|workload-identities-never-touch-the-cluster' '$work/new.cedar'"
diff_log() {  # diff_log LOG [more flags]: $work/diff.out, $work/diff.err, $diff_status
  local l="$1"
  shift
  diff_status=0
  "$charter" diff --old "$work/bundle" --new "$work/new.cedar" --entities "$ex/entities.json" \
    --schema "$gov_schema" --schema "$schema" --decision-log "$l" "$@" >"$work/diff.out" 2>"$work/diff.err" \
    || diff_status=$?
}
diff_log "$log"
cat "$work/diff.out"
total=$((sent))
check "diff: every line counted ($total requests)" grep -q "^$total requests: " "$work/diff.out"
changed="$(sed -n 's/^[0-9]* requests: \([0-9]*\) changed.*/\1/p' "$work/diff.out")"
check "diff: decisions changed (issue 34: it said 0 changed): $changed" test "${changed:-0}" -ge 2
check "diff: the bare GPU pod now allowed" \
  grep -q 'deny -> allow  Kubernetes::User::"arn:aws:sts::111122223333:assumed-role/HyperPodTeamADataScientist/alice" Kubernetes::Action::"CREATE" Kubernetes::Pod::"hyperpod-ns-team-a/alice-gpu-debug"' "$work/diff.out"
check "diff: a workload identity's delete of nodes no longer denied: no opinion" \
  grep -q '^  deny -> no opinion  Kubernetes::ServiceAccount::"hyperpod-ns-team-a:.*" Kubernetes::Action::"delete" Kubernetes::Resource::"/nodes/' "$work/diff.out"
check "diff: ... counted between deny and no opinion" grep -q ' changed (0 allow -> deny, 1 deny -> allow, 1 between deny and no opinion), ' "$work/diff.out"
check "diff: only the review that did not map is not replayed" grep -q ', 1 not replayed$' "$work/diff.out"
bad_verb_line="$(grep -n '"policy":"(mapping)"' "$log" | cut -d: -f1)"
check "diff: ... named at its line, with the reason" \
  grep -qF "$log:$bad_verb_line: the review was not decided: it did not map to a request" "$work/diff.out"
check "diff: exit 0 without --fail-on-change" test "$diff_status" = 0
diff_log "$log" --format json --fail-on-change
check "diff --format json: the counts" \
  test "$(jq -c '.summary | [.requests, .changed >= 2, .notReplayed]' "$work/diff.out")" = "[$total,true,1]"
check "diff --fail-on-change: exit 2" test "$diff_status" = 2

# The same policies on both sides: nothing changes, and the old side equals
# every logged decision (a mismatch would be named).
grep -v '"(mapping)"' "$log" >"$work/mapped.jsonl"
same_status=0
"$charter" diff --old "$work/bundle" --new "$work/bundle" --entities "$ex/entities.json" \
  --schema "$gov_schema" --schema "$schema" --decision-log "$work/mapped.jsonl" --fail-on-change \
  >"$work/same.out" 2>&1 || same_status=$?
check "diff of a bundle with itself: 0 changed, 0 not replayed, exit 0" \
  bash -c "grep -q '^$((total - 1)) requests: 0 changed (0 allow -> deny, 0 deny -> allow), 0 with a newly failing policy, 0 not replayed$' '$work/same.out' && test $same_status = 0"

# A line whose logged decision the old side does not give: named, not counted as unchanged.
n_bare="$(grep -n '"uid":"3f1c2b7e-8d4a-4e0b-9b1e-6a2f0c9d4e51"' "$log" | head -1 | cut -d: -f1)"
awk -v n="$n_bare" 'NR == n { sub(/"decision":"deny"/, "\"decision\":\"allow\""); sub(/"reasons":\["gpu-work-goes-through-kueue"\]/, "\"reasons\":[\"team-admits-in-own-namespace\"]") } { print }' \
  "$log" >"$work/tampered.jsonl"
diff_log "$work/tampered.jsonl"
check "diff: a line the old side decides otherwise is named" \
  grep -qF "$work/tampered.jsonl:$n_bare: --old decides deny (gpu-work-goes-through-kueue) where the log says allow (team-admits-in-own-namespace)" "$work/diff.out"
check "diff: ... counted as not replayed (2), not as a change, every line once" \
  grep -q "^$total requests: 1 changed (0 allow -> deny, 0 deny -> allow, 1 between deny and no opinion), 0 with a newly failing policy, 2 not replayed$" "$work/diff.out"
check "diff: ... and the bare pod's change is no longer reported" bash -c "! grep -q 'alice-gpu-debug\"  (' '$work/diff.out'"

# Lines of a server before the entities were logged: not replayed, each named.
jq -c 'del(.entities, .masked)' "$log" >"$work/old-format.jsonl"
diff_log "$work/old-format.jsonl"
reviews_logged="$(jq -s '[.[] | select(.endpoint != "authorize")] | length' "$log")"
check "diff: lines without entities are not replayed ($reviews_logged reviews)" \
  grep -q "^$total requests: 0 changed (0 allow -> deny, 0 deny -> allow), 0 with a newly failing policy, $reviews_logged not replayed$" "$work/diff.out"
check "diff: ... saying why" grep -q "does not carry the review's entities" "$work/diff.out"

# A masked context: marked in the line, and not decided with a fake value.
echo '{"decisionLog": {"maskContext": ["dryRun"]}, "watch": false}' >"$work/masked.json"
serve_start --config "$work/masked.json" --decision-log "$work/masked.jsonl"
curl_tls -o /dev/null --data-binary "@$reviews/pod-create-queued.json" "$base/v1/admission"
check "SIGTERM stops the masking server" serve_stop
check "decision log: the masked attribute written *** and listed" \
  test "$(jq -c '[.request.context.dryRun, .masked]' "$work/masked.jsonl")" = '["***",["context.dryRun"]]'
diff_log "$work/masked.jsonl" --fail-on-change
check "diff: a masked line is not replayed, saying why" \
  grep -qF "$work/masked.jsonl:1: \`context.dryRun\` is masked in the line (decisionLog.maskContext)" "$work/diff.out"
check "diff: ... and with --fail-on-change exits 2" test "$diff_status" = 2

# Faults in a line: its line and column, exit 1.
{ head -2 "$log"; echo '{"endpoint":"admission","decision":"allow","request":{"principal":"x"}, "entities":[]}'; } >"$work/faulty.jsonl"
diff_log "$work/faulty.jsonl"
check "diff: a faulty request at its line and column, exit 1" \
  bash -c "grep -q '^charter: error: $work/faulty.jsonl:3:[0-9]*: ' '$work/diff.err' && test $diff_status = 1"
{ head -1 "$log" | sed 's/"entities":\[/"entities":[{"uid":7},/'; } >"$work/bad-entities.jsonl"
diff_log "$work/bad-entities.jsonl"
check "diff: entities that do not read: not replayed, at their line and column" \
  grep -qE "bad-entities.jsonl:1: the line's entities do not lay over --entities: .*bad-entities.jsonl:1:[0-9]+: " "$work/diff.out"

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all replay checks passed"
