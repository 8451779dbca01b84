#!/usr/bin/env bash
# The Slurm example on one machine, from the repository: a private one-node
# Slurm cluster (cluster.sh) whose job_submit/lua plugin is job_submit.lua,
# deciding jobs with the governance example's policies and entities. Run as
# root from a checkout after `make build`:
#
#   examples/slurm/single-node.sh start [DIR]   build the bundle, make the
#       example's members Unix users (those that do not exist yet), start
#       munged, slurmctld and slurmd on loopback, print how to submit
#   examples/slurm/single-node.sh stop [DIR]    stop the daemons (by pid) and
#       remove the users that start made; DIR keeps the logs
#
# DIR defaults to build/slurm-example in the checkout; every file the cluster
# uses is under it (etc/slurm.conf, etc/job_submit.lua, charter/, log/, out/).
# Nothing is written to /etc and no system daemon is touched. The charter
# binary is $CHARTER (default build/cli/charter), the Lua 5.1 module's
# directory $CHARTER_LUA_DIR (default build/bindings/lua/5.1).
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/examples/slurm"
usage() { echo "usage: $0 start|stop [DIR]" >&2; exit 2; }
[[ $# -ge 1 && $# -le 2 ]] || usage
cmd=$1
dir=$(realpath -m "${2:-$root/build/slurm-example}")
say() { echo "single-node.sh: $*" >&2; }
die() { say "$*"; exit 1; }

# The members of the example's entities, by name (Governance::Member ids).
members() {
  python3 - "$root/examples/governance/entities.json" <<'EOF'
import json, sys
for e in json.load(open(sys.argv[1])):
    if e["uid"]["type"] == "Governance::Member":
        print(e["uid"]["id"])
EOF
}

running() {
  local line
  [[ -f "$dir/pids" ]] || return 1
  while read -r line; do
    [[ -n "$line" ]] && kill -0 "${line##* }" 2>/dev/null && return 0
  done <"$dir/pids"
  return 1
}

start() {
  [[ $(id -u) -eq 0 ]] || die "run as root: slurmd starts jobs as their users, and the users are made here"
  local charter=${CHARTER:-$root/build/cli/charter}
  local lua_dir=${CHARTER_LUA_DIR:-$root/build/bindings/lua/5.1}
  [[ -x "$charter" ]] || die "$charter not found: run \`make build\` first (or set CHARTER)"
  [[ -f "$lua_dir/charter.so" ]] ||
    die "$lua_dir/charter.so not found: run \`make build\` first (it needs liblua5.1-0-dev), or set CHARTER_LUA_DIR"
  # slurmctld runs in its own directory: every path it is given is absolute.
  charter=$(realpath "$charter")
  lua_dir=$(realpath "$lua_dir")
  running && die "a cluster already runs under $dir: \`$0 stop $dir\` first"

  # Job users read slurm.conf and reach the munge socket under DIR: every
  # directory above it must let them through.
  local d=$dir
  while [[ "$d" != / ]]; do
    d=$(dirname "$d")
    if [[ -d "$d" ]] && ! setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$d" 2>/dev/null; then
      die "$d cannot be entered by other users, so the jobs' users could not read $dir/etc/slurm.conf; give another DIR (for example /tmp/charter-slurm)"
    fi
  done

  mkdir -p "$dir/etc" "$dir/charter"
  : >>"$dir/users"
  # A start that fails half way undoes itself: daemons stopped, users removed.
  trap 'rc=$?; if ((rc != 0)); then say "start failed; undoing it"; stop; fi' EXIT
  # The example's members as Unix users: Slurm runs a job as its submitter,
  # and sbatch takes the user from the caller's uid. Only missing ones are
  # made, and recorded, so that stop removes exactly those.
  local u made=()
  for u in $(members); do
    if ! id -u "$u" >/dev/null 2>&1; then
      useradd --no-create-home --shell /bin/sh "$u"
      echo "$u" >>"$dir/users"
      made+=("$u")
    fi
  done
  ((${#made[@]} == 0)) || say "made Unix users ${made[*]} (stop removes them)"

  # The bundle, the entities and the plugin, as README.md's set-up has them.
  "$charter" build --policies "$root/examples/governance/policies.cedar" \
    --schema "$root/stdlib/governance.cedarschema" -o "$dir/charter/policies.bundle" >/dev/null
  cp "$root/examples/governance/entities.json" "$dir/charter/entities.json"
  cp "$here/job_submit.lua" "$dir/etc/job_submit.lua"

  # The plugin's configuration is slurmctld's environment.
  export CHARTER_SLURM_BUNDLE="$dir/charter/policies.bundle"
  export CHARTER_SLURM_ENTITIES="$dir/charter/entities.json"
  export CHARTER_SLURM_CLUSTER=slurm-west
  export CHARTER_SLURM_CPATH="$lua_dir/?.so"
  bash "$here/cluster.sh" start "$dir" 4

  echo "export SLURM_CONF=$dir/etc/slurm.conf" >"$dir/env"
  trap - EXIT
  cat <<EOF
A one-node Slurm cluster runs under $dir, deciding every job with
examples/slurm/job_submit.lua (4 GPUs, partitions gpu, cpu and reserved). Submit as the
example's members:

  export SLURM_CONF=$dir/etc/slurm.conf
  cd $dir/out
  runuser -u dave -- sbatch -A nlp-eval -p gpu --gres=gpu:1 --comment "workload=evaluation data=internal" --wrap 'id -un'
  runuser -u dave -- sbatch -A nlp-eval -p reserved --gres=gpu:1 --comment "workload=evaluation data=internal" --wrap 'id -un'

The first is accepted and runs (its output in $dir/out); the second is refused, naming
the policy. slurmctld's log: $dir/log/slurmctld.log. Stop with:

  $0 stop $dir
EOF
}

stop() {
  [[ -d "$dir" ]] || die "$dir does not exist: nothing to stop"
  bash "$here/cluster.sh" stop "$dir"
  local u
  if [[ -f "$dir/users" ]]; then
    while read -r u; do
      [[ -n "$u" ]] || continue
      userdel "$u" 2>/dev/null || say "could not remove user $u"
    done <"$dir/users"
    rm -f "$dir/users"
  fi
  say "stopped; the logs stay in $dir/log"
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
