#!/usr/bin/env bash
# Slurm's job_submit/lua plugin deciding by policy on a real controller, set
# up as a newcomer does: examples/slurm/single-node.sh starts a private
# one-node cluster whose job_submit.lua is examples/slurm/job_submit.lua over
# the governance example's bundle and makes the members Unix users. The test
# submits jobs with sbatch as the example's members, and checks that the
# policies' refusals reach the user with the determining policy, that an
# allowed job runs, that a refused modification says it was denied, and that
# a corrupt bundle refuses jobs (fail closed) without stopping slurmctld;
# then that `single-node.sh stop` stops every daemon and removes the users it
# made. Stops every daemon it started, by pid, on any exit.
#
#   job_submit_test.sh CHARTER LUA_MODULE_DIR SOURCE_DIR WORK
set -euo pipefail
charter=$1 module_dir=$2 src=$3 work=$4
recipe="$src/examples/slurm/single-node.sh"

rm -rf "$work"
mkdir -p "$work"
work=$(realpath "$work")

# The members that exist before the recipe runs stay; the others must be
# made by start and removed by stop.
members=$(python3 -c 'import json,sys
print(" ".join(e["uid"]["id"] for e in json.load(open(sys.argv[1])) if e["uid"]["type"] == "Governance::Member"))' \
  "$src/examples/governance/entities.json")
absent=()
for u in $members; do id -u "$u" >/dev/null 2>&1 || absent+=("$u"); done

stopped=0
cleanup() {
  local rc=$?
  if ((stopped == 0)); then
    CHARTER="$charter" bash "$recipe" stop "$work" || true
  fi
  if ((rc != 0)) && [[ -f "$work/log/slurmctld.log" ]]; then
    echo "--- the end of slurmctld.log" >&2
    tail -n 40 "$work/log/slurmctld.log" >&2 || true
  fi
  exit $rc
}
trap cleanup EXIT

CHARTER="$charter" CHARTER_LUA_DIR="$module_dir" bash "$recipe" start "$work" >"$work/start.out"
grep -q "runuser -u dave -- sbatch -A nlp-eval -p gpu" "$work/start.out" ||
  { echo "FAIL: start did not say how to submit:" >&2; cat "$work/start.out" >&2; exit 1; }
for u in "${absent[@]}"; do
  id -u "$u" >/dev/null 2>&1 || { echo "FAIL: start did not make user $u" >&2; exit 1; }
done
source "$work/env"
[[ "$SLURM_CONF" == "$work/etc/slurm.conf" ]] || { echo "FAIL: $work/env gives $SLURM_CONF" >&2; exit 1; }

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# submit USER ARGS...: sbatch as USER; its output in $out, its status in $rc.
submit() {
  local user=$1; shift
  set +e
  out=$(cd "$work/out" && runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" \
    sbatch --output="$work/out/%j.out" "$@" --wrap 'echo ran as $(id -un) with $SLURM_JOB_GPUS' 2>&1)
  rc=$?
  set -e
}

# refused USER POLICY ARGS...: sbatch fails and names POLICY.
refused() {
  local user=$1 policy=$2; shift 2
  submit "$user" "$@"
  if ((rc == 0)); then
    fail "$user $*: accepted ($out), expected refused by $policy"
  elif [[ "$out" != *"denied by policy"*"$policy"* ]]; then
    fail "$user $*: refused without naming $policy: $out"
  else
    echo "refused as expected: $user $*"
    echo "  $out" | head -2
  fi
}

refused dave slurm-tasks-stay-in-their-partitions -A nlp-eval -p reserved --gres=gpu:1 \
  --comment "workload=evaluation data=internal"
refused alice submit-only-through-owned-connections -A vision-research -p gpu --gres=gpu:2 \
  --comment "workload=training data=internal"
refused carol slurm-tasks-stay-in-their-partitions -A nlp-pretrain -p gpu --gres=gpu:2 \
  --comment "workload=training data=internal"

# A job without the declarations the policies need is refused, saying so.
submit dave -A nlp-eval -p gpu
if ((rc == 0)) || [[ "$out" != *"--comment"* ]]; then fail "a job without --comment: $out"; fi

# An allowed job is accepted and runs.
submit dave -A nlp-eval -p gpu --gres=gpu:1 --comment "workload=evaluation data=internal"
if ((rc != 0)) || [[ "$out" != "Submitted batch job "* ]]; then
  fail "dave -A nlp-eval -p gpu: not accepted: $out"
else
  job=${out##* }
  echo "accepted: dave -A nlp-eval -p gpu (job $job)"
  for ((i = 0; i < 300; i++)); do
    state=$(scontrol show job "$job" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    [[ "$state" == COMPLETED || "$state" == FAILED || "$state" == CANCELLED ]] && break
    sleep 0.1
  done
  if [[ "$state" != COMPLETED ]]; then
    fail "job $job ended $state"
  elif ! grep -q "^ran as dave" "$work/out/$job.out"; then
    fail "job $job's output: $(cat "$work/out/$job.out" 2>/dev/null)"
  else
    echo "job $job ran: $(cat "$work/out/$job.out")"
  fi
fi

# A modification is decided as the job it makes: moving a held job to the
# reserved partition is refused (Slurm 22.05 shows scontrol no plugin
# message, so the reason is in slurmctld's log), a shorter time limit is not.
submit dave --hold -A nlp-eval -p gpu --gres=gpu:1 --comment "workload=evaluation data=internal"
if ((rc != 0)); then
  fail "a held job was not accepted: $out"
else
  held=${out##* }
  set +e
  out=$(runuser -u dave -- env SLURM_CONF="$SLURM_CONF" scontrol update JobId="$held" Partition=reserved 2>&1)
  rc=$?
  set -e
  if ((rc == 0)); then
    fail "moving job $held to the reserved partition was accepted"
  elif [[ "$out" != *"Access/permission denied"* ]]; then
    fail "a refused modification does not say it was denied: $out"
  fi
  partition=$(scontrol show job "$held" | sed -n 's/.*Partition=\([a-z]*\).*/\1/p')
  [[ "$partition" == gpu ]] || fail "job $held is in partition $partition after a refused update"
  grep -q "modification refused: user dave, account nlp-eval, partition reserved: denied by policy slurm-tasks-stay-in-their-partitions" \
    "$work/log/slurmctld.log" || fail "slurmctld.log does not give the refused modification's policy"
  runuser -u dave -- env SLURM_CONF="$SLURM_CONF" scontrol update JobId="$held" TimeLimit=30 ||
    fail "a shorter time limit for job $held was refused"
  echo "modifications decided: to reserved refused, a time limit accepted (job $held)"
  scancel "$held" || true
fi

# A corrupt bundle: the plugin is reloaded (its file changed) and refuses
# every job, and slurmctld keeps running.
printf 'not a bundle' >"$work/charter/policies.bundle"
sleep 1
touch "$work/etc/job_submit.lua"
submit dave -A nlp-eval -p gpu --gres=gpu:1 --comment "workload=evaluation data=internal"
if ((rc == 0)) || [[ "$out" != *"policy is not loaded"* ]]; then
  fail "with a corrupt bundle: $out"
else
  echo "refused with a corrupt bundle: $out" | head -1
fi
grep -q "charter: cannot load the bundle" "$work/log/slurmctld.log" || fail "slurmctld.log does not say why"
scontrol ping >/dev/null 2>&1 || fail "slurmctld stopped"

# The recipe's stop: every daemon gone, the users it made removed.
pids=$(awk '{print $2}' "$work/pids")
CHARTER="$charter" bash "$recipe" stop "$work"
stopped=1
for pid in $pids; do
  if kill -0 "$pid" 2>/dev/null; then fail "process $pid still runs after stop"; fi
done
for u in "${absent[@]}"; do
  if id -u "$u" >/dev/null 2>&1; then fail "user $u was not removed by stop"; userdel "$u" || true; fi
done

((failures == 0)) || { echo "$failures checks failed" >&2; exit 1; }
echo "job_submit.lua decided every submission as the policies say"
