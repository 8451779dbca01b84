#!/usr/bin/env bash
# `charter repl` on a real terminal (a tmux pane): tab completion of
# commands, file names, entities, actions and attribute names (from the
# entities, and from the schema before any request), an entry over two
# lines, and history kept across sessions; Ctrl-C (an entry dropped, a load
# interrupted), Ctrl-D (exit 0 on a line of its own), `:load FILE` completed
# with `~/`, and the pager for what does not fit the screen.
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
  start_sized 50 "$@"
}
# start_sized ROWS ARGS...: the same in a pane ROWS high, with $PAGER set
# to mark what goes through it; when the REPL ends the pane shows
# `exited-STATUS` and stays.
start_sized() {
  local rows="$1"
  shift
  tmux -S "$sock" kill-server 2>/dev/null
  # (A server still exiting when the next starts takes it down with it.)
  sleep 0.2
  rm -f "$sock"
  tmux -S "$sock" new-session -d -x 160 -y "$rows" \
    "env HOME=$tmp CHARTER_HISTORY=$tmp/history TERM=xterm PAGER='sed s/^/paged:/' $charter_bin repl $*; echo exited-\$?; sleep 30"
}
governance="--policies examples/governance/policies.cedar --entities examples/governance/entities.json"
# wait_for TEXT [SECONDS]: until the pane shows TEXT (at most SECONDS, 5 by default).
wait_for() {
  local i
  for i in $(seq $((${2:-5} * 10))); do
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

# Ctrl-C drops the line being typed, and a continued entry whole; the
# REPL goes on (it used to exit 130). Ctrl-D on an empty line quits with 0,
# the shell's prompt on a line of its own.
start "$governance"
wait_for "charter>"
keys '1000 + 337' C-c
keys '40 + 2' Enter
wait_for '42'
tmux -S "$sock" capture-pane -p | grep -q '^1337$' && fail "the dropped line ran"
keys '[1,' Enter
wait_for '     ...'
keys C-c
keys '7 * 6 + 1' Enter
wait_for '43'
tmux -S "$sock" capture-pane -p | grep -q 'error' && fail "the dropped continuation ran"
keys C-d
wait_for 'exited-0'
tmux -S "$sock" capture-pane -p | grep -q '^exited-0$' || fail "no newline after Ctrl-D"

# Ctrl-C while an entry runs: a load is dropped once its file is read and
# parsed, and nothing is loaded; twice, the REPL quits. The file is a FIFO
# that this script holds open, so that the REPL is still reading it when
# Ctrl-C comes, however fast it reads and parses.
# repl_pid: the REPL in the pane (the pane's shell runs it as its child).
repl_pid() {
  local shell_pid
  shell_pid="$(tmux -S "$sock" list-panes -F '#{pane_pid}' | head -1)"
  cut -d' ' -f1 "/proc/$shell_pid/task/$shell_pid/children" 2>/dev/null
}
# wait_reading FILE: until the REPL has FILE open.
wait_reading() {
  local i pid
  for i in $(seq 100); do
    pid="$(repl_pid)"
    if [ -n "$pid" ] && ls -l "/proc/$pid/fd" 2>/dev/null | grep -qF -- "$1"; then return 0; fi
    sleep 0.1
  done
  fail "the REPL never opened $1"
  return 1
}
mkfifo "$tmp/slow.json" "$tmp/endless.json"
start ""
wait_for "charter>"
exec 7<>"$tmp/slow.json"
keys ":load entities $tmp/slow.json" Enter
wait_reading "$tmp/slow.json"
keys C-c
# The terminal raises SIGINT as tmux writes the key; the REPL is blocked
# reading the FIFO until the entities come and the FIFO closes.
sleep 0.5
printf '%s' '[{"uid": {"type": "User", "id": "u1"}, "attrs": {}, "parents": []}]' >&7
exec 7>&-
wait_for "error: interrupted; $tmp/slow.json was not loaded" 30
keys ':entities' Enter
wait_for 'no entities loaded'
keys C-d
wait_for 'exited-0'
# A second Ctrl-C before the entry ends quits, as Ctrl-C does elsewhere
# (the pane's shell ignores SIGINT here, so that it lives to say how the
# REPL ended; the REPL sets its own handler). The FIFO never ends.
tmux -S "$sock" kill-server 2>/dev/null
sleep 0.2
rm -f "$sock"
exec 8<>"$tmp/endless.json"
tmux -S "$sock" new-session -d -x 160 -y 50 \
  "trap '' INT; env HOME=$tmp TERM=xterm $charter_bin repl; echo exited-\$?; sleep 30"
wait_for "charter>"
keys ":load entities $tmp/endless.json" Enter
wait_reading "$tmp/endless.json"
keys C-c
sleep 0.1
keys C-c
wait_for 'exited-130'
exec 8>&-

# `:load FILE` completes file names, `~/` too, and loads them.
cp tests/cli/golden/repl-policies.cedar "$tmp/home-policies.cedar"
start ""
wait_for "charter>"
keys ':load tests/cli/golden/repl-pol' Tab Enter
wait_for 'loaded 2 policies from tests/cli/golden/repl-policies.cedar'
keys ':load ~/home-pol' Tab Enter
wait_for "loaded 2 policies from $tmp/home-policies.cedar"
keys C-d
wait_for 'exited-0'

# The pager: output taller than the pane goes through $PAGER, short output
# does not; `:ex` runs :explain.
start_sized 10 "$governance"
wait_for "charter>"
keys ':help' Enter
wait_for 'paged:$PAGER (less -FRX).'
keys '1 + 1' Enter
wait_for 'charter> 1 + 1'
sleep 0.3
tmux -S "$sock" capture-pane -p | grep -q '^2$' || fail "short output went through the pager"
keys ':ex --brief Governance::Member::"alice" viewTask Governance::Task::"vision-finetune-4"' Enter
wait_for 'paged:    = resource.namespace.team is Governance::Team::"vision-research"'
keys C-d
wait_for 'exited-0'

if [[ $failures -gt 0 ]]; then exit 1; fi
echo "repl_pty: ok"
