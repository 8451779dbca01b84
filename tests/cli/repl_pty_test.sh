#!/usr/bin/env bash
# `charter repl` on a real terminal (a tmux pane): tab completion of
# commands, file names, entities, actions and attribute names (from the
# entities, and from the schema before any request), an entry over two
# lines, and history kept across sessions.
#
#   tests/cli/repl_pty_test.sh CHARTER_BINARY
set -uo pipefail
charter_bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 2
command -v tmux >/dev/null || { echo "tmux is missing (scripts/deps.sh installs it)" >&2; exit 1; }
tmp="$(mktemp -d)"
sock="$tmp/tmux.sock"
trap 'tmux -S "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

start() {  # ARGS...: a session in a fresh pane
  tmux -S "$sock" kill-server 2>/dev/null
  tmux -S "$sock" new-session -d -x 160 -y 50 \
    "env HOME=$tmp CHARTER_HISTORY=$tmp/history TERM=xterm $charter_bin repl $*"
}
governance="--policies examples/governance/policies.cedar --entities examples/governance/entities.json"
# wait_for TEXT: until the pane shows TEXT (at most ~5 s).
wait_for() {
  local i
  for i in $(seq 50); do
    tmux -S "$sock" capture-pane -p | grep -qF -- "$1" && return 0
    sleep 0.1
  done
  fail "the pane never showed: $1"
  tmux -S "$sock" capture-pane -p >&2
  return 1
}
keys() { tmux -S "$sock" send-keys "$@"; }

start "$governance"
wait_for "charter>"
# Completion: an entity, an action, another entity.
keys 'Governance::Member::"ali' Tab
keys 'viewT' Tab
keys 'Governance::Task::"vision-f' Tab Enter
wait_for 'ALLOW  reasons: teams-view-their-tasks'
# Attribute names: of the current request's principal, of an entity, of a
# path; the value is printed when the completed line runs.
keys 'principal.em' Tab Enter
wait_for '"alice@acme.example"'
keys 'Governance::Member::"mallory".susp' Tab Enter
wait_for 'true'
keys '(resource.namespace.te' Tab ')' Enter
wait_for 'Governance::Team::"vision-research"'
# An entry over two lines.
keys '[1, 2,' Enter '3].contains(3) && 2 > 1' Enter
wait_for '     ... 3].contains(3) && 2 > 1'
# Commands and file names.
keys ':sch' Tab Enter
wait_for 'no schema loaded'
keys ':load pol' Tab 'tests/cli/golden/repl-pol' Tab Enter
wait_for 'loaded 2 policies from tests/cli/golden/repl-policies.cedar'
keys ':quit' Enter
sleep 0.3
# (libedit writes spaces as \040.)
grep -qF 'Governance::Member::"alice"\040viewTask\040Governance::Task::"vision-finetune-4"' "$tmp/history" ||
  fail "history not written"

# A new session finds the request in its history, behind 7 later entries.
start "$governance"
wait_for "charter>"
keys Up Up Up Up Up Up Up Up Enter
wait_for 'ALLOW  reasons: teams-view-their-tasks'
keys C-d
sleep 0.3

# With a schema and no request yet, `principal.` completes from the
# attributes the schema gives principals.
start --schema tests/cli/golden/repl-model.cedarschema --policies tests/cli/golden/repl-policies.cedar
wait_for "charter>"
keys 'principal.man' Tab Enter
wait_for 'charter> principal.manager'
wait_for '`principal` has no value: there is no request'
keys 'Org::User::"ada".le' Tab Enter
wait_for 'charter> Org::User::"ada".level'
wait_for 'entity `Org::User::"ada"` does not exist'
keys C-d

if [[ $failures -gt 0 ]]; then exit 1; fi
echo "repl_pty: ok"
