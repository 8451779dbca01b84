#!/usr/bin/env bash
# sbatch throughput with and without Charter's job_submit.lua, on a private
# one-node cluster (examples/slurm/cluster.sh): N held submissions (default
# 300; held, so nothing runs) from 4 concurrent clients, first through a
# job_submit.lua that accepts everything, then through
# examples/slurm/job_submit.lua over the governance bundle. Prints jobs a
# second for each. Bounded by N; stops every daemon it started, by pid.
#
#   bench/slurm/sbatch_throughput.sh [BUILD_DIR] [N]      (as root; `make bench-slurm`)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build=$(realpath "${1:-$root/build}")
n=${2:-300}
clients=4
work=$(mktemp -d /tmp/charter-sbatch-bench.XXXXXX)
chmod 755 "$work"  # the job user reads slurm.conf under it
cluster="$root/examples/slurm/cluster.sh"
trap 'bash "$cluster" stop "$work/cluster" || true; rm -rf "$work"' EXIT

id -u dave >/dev/null 2>&1 || { useradd --no-create-home --shell /bin/sh dave; trap 'bash "$cluster" stop "$work/cluster" || true; userdel dave || true; rm -rf "$work"' EXIT; }
"$build/cli/charter" build --policies "$root/examples/governance/policies.cedar" \
  --schema "$root/stdlib/governance.cedarschema" -o "$work/policies.bundle"
export CHARTER_SLURM_BUNDLE="$work/policies.bundle"
export CHARTER_SLURM_ENTITIES="$root/examples/governance/entities.json"
export CHARTER_SLURM_CPATH="$build/bindings/lua/5.1/?.so"

# run LABEL SCRIPT: N held submissions through a cluster whose plugin is SCRIPT.
run() {
  local label=$1 script=$2
  mkdir -p "$work/cluster/etc"
  cp "$script" "$work/cluster/etc/job_submit.lua"
  bash "$cluster" start "$work/cluster" 4 2>/dev/null
  export SLURM_CONF="$work/cluster/etc/slurm.conf"
  local per=$((n / clients)) start end c
  start=$(date +%s.%N)
  for ((c = 0; c < clients; c++)); do
    (for ((i = 0; i < per; i++)); do
       runuser -u dave -- env SLURM_CONF="$SLURM_CONF" sbatch --hold -A nlp-eval -p gpu --gres=gpu:1 \
         --comment "workload=evaluation data=internal" --output=/dev/null --wrap true >/dev/null || exit 1
     done) &
  done
  wait
  end=$(date +%s.%N)
  local accepted
  accepted=$(squeue -h | wc -l)
  scancel --user=dave 2>/dev/null || true
  bash "$cluster" stop "$work/cluster"
  rm -rf "$work/cluster"
  awk -v l="$label" -v n="$((per * clients))" -v a="$accepted" -v s="$start" -v e="$end" \
    'BEGIN { printf "%-32s %5d jobs (%d accepted) in %6.2f s: %6.1f jobs/s\n", l, n, a, e - s, n / (e - s) }'
}

cat >"$work/accept.lua" <<'LUA'
function slurm_job_submit(job_desc, part_list, submit_uid) return slurm.SUCCESS end
function slurm_job_modify(job_desc, job_rec, part_list, modify_uid) return slurm.SUCCESS end
return slurm.SUCCESS
LUA
run "job_submit.lua accepting all" "$work/accept.lua"
run "job_submit.lua with Charter" "$root/examples/slurm/job_submit.lua"
