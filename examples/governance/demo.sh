#!/usr/bin/env bash
# The governance example end to end: validate the policies against the
# standard model, decide every request in requests.json (the entities and
# requests checked against the model too), then compile the policies into a
# bundle and decide the same requests from it; then the clusters' queues
# (scheduling.charter): checked against the Allocations they implement,
# compiled into the same bundle, and one scheduling cycle over a few
# workloads (workloads.json), with a pending one explained.
#
#   examples/governance/demo.sh        (from anywhere; `make demo` runs it)
#
# The charter binary is $CHARTER if set, else cli/charter in the build
# directory: $CHARTER_BUILD_DIR (what `make demo` sets), else $BUILD_DIR,
# else build/ -- relative to the repository root unless absolute.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build_dir="${CHARTER_BUILD_DIR:-${BUILD_DIR:-build}}"
[[ "$build_dir" == /* ]] || build_dir="$root/$build_dir"
charter="${CHARTER:-$build_dir/cli/charter}"
if [[ ! -x "$charter" ]]; then
  echo "demo.sh: no charter binary at $charter; run \`make build\` first" >&2
  exit 1
fi

# Paths relative to the repository root keep the output short.
cd "$root"
ex=examples/governance
schema=stdlib/governance.cedarschema
policies=$ex/policies.cedar entities=$ex/entities.json requests=$ex/requests.json

count() { grep -c "$1" "$2" || true; }
echo "== The governance example ($("$charter" version))"
echo "   model     $schema (the standard model, as it ships)"
echo "   policies  $policies: $(count '^@id' "$policies") policies"
echo "   entities  $entities: $(count '"uid"' "$entities") entities (an organization with two clusters)"
echo "   requests  $requests: $(count '"description"' "$requests") requests"
echo

echo "== 1. The policies validate against the model"
echo "\$ charter check --policies $policies --schema $schema"
"$charter" check --policies "$policies" --schema "$schema"
echo

# Each request's description (one request a line in requests.json), then its
# decision: the policies that determined it, and any policy that erred.
echo "== 2. Every request decided; the entities and requests are checked against the model first"
echo "\$ charter authorize --policies $policies --entities $entities --requests $requests --schema $schema"
mapfile -t descriptions < <(sed -n 's/.*"description": *"\([^"]*\)".*/\1/p' "$requests")
decisions="$("$charter" authorize --policies "$policies" --entities "$entities" \
  --requests "$requests" --schema "$schema")"
mapfile -t lines <<<"$decisions"
allowed=0
for i in "${!lines[@]}"; do
  # A text line is `ALLOW|DENY  PRINCIPAL ACTION RESOURCE`, then
  # `  reasons: ID, ID` and `  errors: ID: MESSAGE; ...` when there are any.
  line="${lines[$i]}"
  decision="${line%% *}"
  reasons="" errors=""
  [[ "$line" =~ \ \ reasons:\ ([^ ]+(, [^ ]+)*) ]] && reasons="${BASH_REMATCH[1]}"
  [[ "$line" =~ \ \ errors:\ (.*)$ ]] && errors="${BASH_REMATCH[1]}"
  if [[ "$decision" == ALLOW ]]; then
    allowed=$((allowed + 1))
    verdict="ALLOW  permitted by $reasons"
  elif [[ -n "$reasons" ]]; then
    verdict="DENY   forbidden by $reasons"
  else
    verdict="DENY   no permit applies (deny by default)"
  fi
  printf '%2d. %s\n    %s\n' "$((i + 1))" "${descriptions[$i]:-}" "$verdict"
  [[ -z "$errors" ]] || printf '           skipped, its evaluation failed: %s\n' "$errors"
done
echo "   ${#lines[@]} requests: $allowed allowed, $((${#lines[@]} - allowed)) denied"
echo

# The same policies, compiled once into a bundle that services load.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bundle="$tmp/governance.bundle"
echo "== 3. A bundle, as services load it"
echo "\$ charter build --policies $policies -o governance.bundle"
"$charter" build --policies "$policies" -o "$bundle"
echo "   wrote governance.bundle, $(wc -c <"$bundle" | tr -d ' ') bytes"
from_bundle="$("$charter" authorize --bundle "$bundle" --entities "$entities" --requests "$requests")"
if [[ "$from_bundle" != "$decisions" ]]; then
  echo "demo.sh: the bundle decided differently from the policy text" >&2
  diff <(echo "$decisions") <(echo "$from_bundle") >&2 || true
  exit 1
fi
request="$tmp/request.json"
cat >"$request" <<'JSON'
{"principal": "Governance::Member::\"carol\"", "action": "Governance::Action::\"submitTask\"",
 "resource": "Governance::Task::\"nlp-pretrain-8\"",
 "context": {"now": {"__extn": {"fn": "datetime", "arg": "2025-11-03T09:00:00Z"}}}}
JSON
echo "   carol submits nlp-pretrain-8 (confidential data), decided from the bundle as JSON:"
echo "\$ charter authorize --bundle governance.bundle --entities $entities --request-json request.json --format json"
status=0
"$charter" authorize --bundle "$bundle" --entities "$entities" --request-json "$request" \
  --format json || status=$?
echo "   exit status $status (0 allow, 2 deny)"
[[ $status -eq 0 || $status -eq 2 ]]
echo "   The bundle decided all ${#lines[@]} requests as the policy text did."
echo

scheduling=$ex/scheduling.charter workloads=$ex/workloads.json
echo "== 4. The queues agree with the Allocations they implement, and schedule"
echo "   $scheduling: $(count '^queue ' "$scheduling") queues in $(count '^cohort ' "$scheduling") cohorts, each implementing an Allocation of the entities"
echo "\$ charter check --policies $scheduling --entities $entities --schema $schema"
"$charter" check --policies "$scheduling" --entities "$entities" --schema "$schema"
echo "\$ charter build --policies $policies --policies $scheduling -o governance.bundle"
"$charter" build --policies "$policies" --policies "$scheduling" -o "$bundle"
echo "   wrote governance.bundle, $(wc -c <"$bundle" | tr -d ' ') bytes: the policies and the queues"
echo "   One cycle over $workloads: two jobs running on gpu-east, three arriving"
echo "\$ charter schedule --bundle governance.bundle --workloads $workloads"
schedule="$("$charter" schedule --bundle "$bundle" --workloads "$workloads")"
echo "$schedule"
# The arrivals: one admitted on its own quota, one that reclaims the GPUs
# vision borrowed, and one that can never fit its queue.
grep -q '^ADMIT    asr-finetune ' <<<"$schedule"
grep -q '^PREEMPT  vision-train .*InCohortReclamation' <<<"$schedule"
grep -q '^PENDING  eval-sweep .*no_fit_exceeds_max_quota' <<<"$schedule"
echo "   eval-sweep stays pending: nlp-eval's Allocation guarantees 8 GPUs and lets it borrow none."
echo

# The pictures of the same state: the quota tree with what each queue holds,
# and the pending workloads with the cycle's reasons (docs/report.md). Kept in
# $CHARTER_REPORT_DIR (`make demo`: BUILD_DIR/governance-report) to open in a
# browser; in a temporary directory otherwise.
report="${CHARTER_REPORT_DIR:-$tmp/report}"
echo "== 5. The pictures: the quota tree, usage and the pending workloads"
echo "\$ charter report --bundle governance.bundle --workloads $workloads -o REPORT"
"$charter" report --bundle "$bundle" --workloads "$workloads" -o "$report"
grep -q 'data-workload="eval-sweep"' "$report/index.html"
echo "   wrote $(cd "$report" && ls | tr '\n' ' ')into ${CHARTER_REPORT_DIR:-a temporary directory}"

# The pictures this example's README shows (pictures/): the quota tree and
# the waiting of the report above, and who may do what through the vision
# project's connection to gpu-east. They depend only on the files here, so
# the demo draws them again and says whether they still match; `make demo`
# (CHARTER_UPDATE_PICTURES=1) writes them into pictures/ when they changed.
pictures="$ex/pictures"
drawn="$tmp/pictures"
mkdir -p "$drawn"
cp "$report/quota-tree.svg" "$report/waiting.svg" "$drawn/"
echo "\$ charter access --policies $policies --entities $entities --connection vision/gpu-east --at 2026-01-15 --format svg"
"$charter" access --policies "$policies" --entities "$entities" --connection vision/gpu-east --at 2026-01-15 \
  --format svg >"$drawn/access-vision-gpu-east.svg"
stale=()
for f in quota-tree.svg waiting.svg access-vision-gpu-east.svg; do
  cmp -s "$drawn/$f" "$pictures/$f" || stale+=("$f")
done
if [[ ${#stale[@]} -eq 0 ]]; then
  echo "   the README's pictures (pictures/) are as drawn now"
elif [[ "${CHARTER_UPDATE_PICTURES:-}" == 1 ]]; then
  mkdir -p "$pictures"
  for f in "${stale[@]}"; do cp "$drawn/$f" "$pictures/$f"; done
  echo "   updated the README's pictures: ${stale[*]}"
else
  echo "   the README's pictures differ from what is drawn now: ${stale[*]} (make demo updates them)" >&2
  exit 1
fi
