#!/usr/bin/env bash
# A private, single-node Slurm cluster on 127.0.0.1, for single-node.sh, the
# tests and the benchmarks: its own munged (own key, socket and pid file),
# slurmctld and slurmd, on free loopback ports, every file under one directory.
# Needs root (slurmd runs jobs as their users) and Debian's slurmctld, slurmd,
# slurm-client and munge.
#
#   cluster.sh start DIR [GPUS]   write DIR/etc/slurm.conf, start the daemons,
#                                 wait until the node is idle; DIR/etc is
#                                 where job_submit.lua must already be
#   cluster.sh stop DIR           stop what start started, by pid
#   cluster.sh env DIR            print `export SLURM_CONF=...` for clients
#
# start records each daemon's pid in DIR/pids as soon as it is known, so that
# stop (which callers run from an EXIT trap) finds every one of them even when
# start failed half way. Nothing here is killed by name.
set -euo pipefail

usage() { echo "usage: $0 start|stop|env DIR [GPUS]" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
cmd=$1
dir=$(realpath -m "$2")
gpus=${3:-4}

log() { echo "cluster.sh: $*" >&2; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Polls `$@` every 0.1 s for up to $timeout seconds.
wait_for() {
  local timeout=$1; shift
  local i
  for ((i = 0; i < timeout * 10; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  return 1
}

stop_pid() {
  local name=$1 pid=$2 i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  log "$name (pid $pid) ignored SIGTERM for 10 s; sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
}

# Reads the pid a daemon wrote to FILE (it forks before writing it) and
# records it; waits up to 10 s for the file.
record_pid_file() {
  local name=$1 file=$2
  if ! wait_for 10 test -s "$file"; then
    log "$name wrote no pid file $file"
    return 1
  fi
  echo "$name $(cat "$file")" >>"$dir/pids"
}

node_idle() {
  local state
  state=$(SLURM_CONF="$dir/etc/slurm.conf" sinfo -h -N -o '%t' 2>/dev/null) || return 1
  [[ "$state" == idle* ]]
}

start() {
  [[ $(id -u) -eq 0 ]] || { log "must run as root (slurmd runs jobs as their users)"; exit 1; }
  for tool in munged mungekey slurmctld slurmd sbatch sinfo python3; do
    command -v "$tool" >/dev/null || { log "$tool not found: install slurmctld slurmd slurm-client munge (scripts/deps.sh)"; exit 1; }
  done
  mkdir -p "$dir/etc" "$dir/munge" "$dir/state" "$dir/spool" "$dir/log" "$dir/dev" "$dir/out"
  : >"$dir/pids"
  # Job users reach the munge socket and write their output files.
  chmod 755 "$dir" "$dir/etc" "$dir/munge" "$dir/dev"
  chmod 1777 "$dir/out"

  # munge: a key of our own, and a socket that no system munged uses.
  mungekey -c -k "$dir/munge/munge.key" 2>/dev/null
  chmod 600 "$dir/munge/munge.key"
  munged -f --socket="$dir/munge/socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/seed" \
    --log-file="$dir/log/munged.log"
  record_pid_file munged "$dir/munge/munged.pid"
  wait_for 10 test -S "$dir/munge/socket" || { log "munged made no socket"; exit 1; }

  # Fake GPUs for GRES: character devices with /dev/null's numbers.
  local i gres_files=()
  for ((i = 0; i < gpus; i++)); do
    [[ -e "$dir/dev/gpu$i" ]] || mknod "$dir/dev/gpu$i" c 1 3
    gres_files+=("$dir/dev/gpu$i")
  done

  local host ctld_port slurmd_port
  host=$(hostname -s)
  ctld_port=$(free_port)
  slurmd_port=$(free_port)
  while [[ "$slurmd_port" == "$ctld_port" ]]; do slurmd_port=$(free_port); done

  cat >"$dir/etc/slurm.conf" <<EOF
# Written by examples/slurm/cluster.sh: a private one-node cluster.
ClusterName=charter-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/slurmd-%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/etc/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobSubmitPlugins=lua
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=1 RealMemory=500 Gres=gpu:$gpus State=UNKNOWN
PartitionName=gpu Nodes=$host Default=YES MaxTime=INFINITE State=UP
PartitionName=cpu Nodes=$host MaxTime=INFINITE State=UP
PartitionName=reserved Nodes=$host MaxTime=INFINITE State=UP
EOF
  : >"$dir/etc/plugstack.conf"
  echo "NodeName=$host Name=gpu File=$dir/dev/gpu[0-$((gpus - 1))]" >"$dir/etc/gres.conf"
  if [[ ! -f "$dir/etc/job_submit.lua" ]]; then
    log "$dir/etc/job_submit.lua is missing: slurmctld would refuse every job"
    exit 1
  fi

  # Both daemons fork and write their pid files; -i ignores saved state.
  SLURM_CONF="$dir/etc/slurm.conf" slurmctld -f "$dir/etc/slurm.conf" -i
  record_pid_file slurmctld "$dir/slurmctld.pid"
  SLURM_CONF="$dir/etc/slurm.conf" slurmd -f "$dir/etc/slurm.conf" -N "$host"
  record_pid_file slurmd "$dir/slurmd.pid"

  if ! wait_for 30 node_idle; then
    log "the node did not become idle in 30 s; the logs:"
    tail -n 30 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
    SLURM_CONF="$dir/etc/slurm.conf" sinfo -N >&2 || true
    exit 1
  fi
}

stop() {
  [[ -f "$dir/pids" ]] || return 0
  # slurmd, then slurmctld, then munged: the reverse of the start.
  local lines=() line
  mapfile -t lines <"$dir/pids"
  local i
  for ((i = ${#lines[@]} - 1; i >= 0; i--)); do
    line=${lines[i]}
    [[ -n "$line" ]] || continue
    stop_pid "${line%% *}" "${line##* }"
  done
  : >"$dir/pids"
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  env) echo "export SLURM_CONF=$dir/etc/slurm.conf" ;;
  *) usage ;;
esac
