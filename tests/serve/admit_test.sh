#!/usr/bin/env bash
# `charter admit` answers as `charter serve` does (issue 34, point 5): the
# webhook example served with its configuration, and every review of
# reviews/ posted to it and decided by `charter admit --format json`, from
# the same bundle and from the policy text (compiled as `charter build`
# compiles it, so the bundle's hash is the same); the example's plain
# objects wrapped by `charter admit --format review`, posted, and decided by
# `charter admit`; an object the server answers 400. Every answer must be
# byte for byte the server's: no field differs (the uid is the review's, or
# the one admit derived for the object and put in the review it posted).
#
#   tests/serve/admit_test.sh CHARTER     (from the repository root; ctest runs it)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/lib.sh" "$1"

serve_start --config "$ex/config.json"
files=(--entities "$ex/entities.json" --schema "$gov_schema" --schema "$schema" --config "$ex/config.json")

# posted FILE: the server's answers to the reviews of FILE (one a line), each
# posted to the endpoint of its kind.
posted() {
  local line endpoint
  while IFS= read -r line; do
    endpoint=admission
    [[ "$line" == *'"kind":"SubjectAccessReview"'* ]] && endpoint=authorization
    printf '%s' "$line" | curl_tls -H 'Content-Type: application/json' --data-binary @- "$base/v1/$endpoint"
  done <"$1"
}

# same WHAT ADMIT-ARGS...: the reviews `charter admit --format review` makes of
# the inputs, posted to the server, answered as `charter admit --format json`
# answers the inputs.
same() {
  local what="$1"
  shift
  "$charter" admit --format review "$@" >"$work/reviews.jsonl"
  posted "$work/reviews.jsonl" >"$work/served.jsonl"
  "$charter" admit --bundle "$work/bundle" "${files[@]}" --format json "$@" >"$work/admit.jsonl" || true
  "$charter" admit --policies "$ex/policies.cedar" "${files[@]}" --format json "$@" >"$work/admit-policies.jsonl" || true
  local n
  n="$(wc -l <"$work/served.jsonl")"
  if [[ "$n" -ge 1 ]] && cmp -s "$work/served.jsonl" "$work/admit.jsonl" &&
    cmp -s "$work/served.jsonl" "$work/admit-policies.jsonl"; then
    echo "ok: $what: $n answers as the server's"
  else
    fail "$what: the answers differ"
    diff "$work/served.jsonl" "$work/admit.jsonl" >&2 || true
    diff "$work/served.jsonl" "$work/admit-policies.jsonl" >&2 || true
  fi
}

# Every review, as the apiserver sent it.
reviewed=0
for review in "$reviews"/*.json; do
  same "$(basename "$review")" "$review"
  reviewed=$((reviewed + 1))
done
check "every review of reviews/ was compared" test "$reviewed" -ge 21

# The example's objects, as the apiserver would send their CREATE.
same "objects by alice" --as alice --as-group hyperpod-team-a-users \
  "$ex"/objects/pod.yaml "$ex"/objects/pod-bare-gpu.yaml "$ex"/objects/job.yaml "$ex"/objects/pytorchjob.yaml
same "the Workload by Kueue's controller" --as system:serviceaccount:kueue-system:kueue-controller-manager \
  "$ex/objects/workload.yaml"
same "objects by the cluster administrator" "$ex/objects/job.yaml"
same "a cluster's List" --as arn:aws:sts::111122223333:assumed-role/HyperPodTeamAMLEngineer/carol "$ex/objects/cluster.json"

# An object the server answers 400: the same error body.
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: half, namespace: hyperpod-ns-team-a}\nspec:\n  containers:\n  - name: a\n    resources: {requests: {nvidia.com/gpu: "1.5"}}\n' \
  >"$work/half.yaml"
same "a fractional GPU (HTTP 400)" --as alice "$work/half.yaml"

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "admit_test: ok"
