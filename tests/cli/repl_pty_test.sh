#!/usr/bin/env bash
# `charter repl` on a real terminal (a tmux pane): tab completion of a
# command, an action and an entity, and history kept across two sessions.
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

start() {
  tmux -S "$sock" new-session -d -x 160 -y 40 \
    "env HOME=$tmp CHARTER_HISTORY=$tmp/history TERM=xterm $charter_bin repl --policies examples/governance/policies.cedar --entities examples/governance/entities.json"
}
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

start
wait_for "charter>"
# Completion: an entity, an action, another entity.
keys 'Governance::Member::"ali' Tab
keys 'Governance::Action::"viewT' Tab
keys 'Governance::Task::"vision-f' Tab Enter
wait_for 'ALLOW  reasons: teams-view-their-tasks'
keys ':sch' Tab Enter
wait_for 'the REPL does not load schemas yet'
keys ':quit' Enter
sleep 0.3
# (libedit writes spaces as \040.)
grep -qF 'Governance::Member::"alice"\040Governance::Action::"viewTask"\040Governance::Task::"vision-finetune-4"' "$tmp/history" ||
  fail "history not written"

# A new session finds the request in its history (before :schema and :quit).
start
wait_for "charter>"
keys Up Up Up Enter
wait_for 'ALLOW  reasons: teams-view-their-tasks'
keys C-d
if [[ $failures -gt 0 ]]; then exit 1; fi
echo "repl_pty: ok"
