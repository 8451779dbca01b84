#!/usr/bin/env bash
# The governance example end to end: decide every request in requests.json
# against policies.cedar and entities.json, then compile the policies into a
# bundle and decide one request from the bundle.
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
policies=$ex/policies.cedar entities=$ex/entities.json requests=$ex/requests.json

count() { grep -c "$1" "$2" || true; }
echo "== Charter governance example ($("$charter" version))"
echo "   $(count '^@id' "$policies") policies in $policies"
echo "   $(count '"uid"' "$entities") entities in $entities"
echo "   $(count '"description"' "$requests") requests in $requests"
echo

# Each request's description (one request a line in requests.json), then its
# decision with the policies that determined it and any policy that erred.
mapfile -t descriptions < <(sed -n 's/.*"description": *"\([^"]*\)".*/\1/p' "$requests")
decisions="$("$charter" authorize --policies "$policies" --entities "$entities" --requests "$requests")"
mapfile -t lines <<<"$decisions"
echo "== Decisions (charter authorize --requests $requests)"
for i in "${!lines[@]}"; do
  printf '%2d. %s\n    %s\n' "$((i + 1))" "${descriptions[$i]:-}" "${lines[$i]}"
done
echo

# The same policies, compiled once into a bundle that services load.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bundle="$tmp/governance.bundle"
echo "== Build a bundle (charter build --policies $policies -o governance.bundle)"
"$charter" build --policies "$policies" -o "$bundle"
echo "   wrote $(wc -c <"$bundle" | tr -d ' ') bytes"
request="$tmp/request.json"
cat >"$request" <<'JSON'
{"principal": "User::\"carol\"", "action": "Action::\"submitTask\"",
 "resource": "Task::\"nlp-pretrain-7\"", "context": {}}
JSON
echo "== carol submits Task::\"nlp-pretrain-7\", decided from the bundle"
status=0
"$charter" authorize --bundle "$bundle" --entities "$entities" --request-json "$request" \
  --format json || status=$?
echo "   exit status $status (0 allow, 2 deny)"
[[ $status -eq 0 || $status -eq 2 ]]
