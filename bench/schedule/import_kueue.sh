#!/usr/bin/env bash
# The target of issue 31: `charter import kueue` of 1,000 ClusterQueues with
# their LocalQueues under 100 ms. Generates the manifests (one YAML stream:
# a ResourceFlavor, 10 Cohorts, QUEUES ClusterQueues and a LocalQueue for
# each), then imports them into .charter declarations RUNS times under GNU
# time, printing each run's time and peak memory.
#
#   bench/schedule/import_kueue.sh CHARTER [QUEUES] [RUNS]
set -euo pipefail
charter="$1" queues="${2:-1000}" runs="${3:-5}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
{
  printf 'apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata:\n  name: default-flavor\n'
  for ((c = 0; c < 10; c++)); do
    printf -- '---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata:\n  name: cohort-%d\n' "$c"
  done
  for ((q = 0; q < queues; q++)); do
    cat <<YAML
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: team-$q
spec:
  cohort: cohort-$((q % 10))
  namespaceSelector: {}
  preemption:
    withinClusterQueue: LowerPriority
    reclaimWithinCohort: Any
  resourceGroups:
  - coveredResources: ["cpu", "memory", "nvidia.com/gpu"]
    flavors:
    - name: default-flavor
      resources:
      - name: "cpu"
        nominalQuota: 64
        borrowingLimit: 32
      - name: "memory"
        nominalQuota: 512Gi
      - name: "nvidia.com/gpu"
        nominalQuota: 8
        borrowingLimit: 8
        lendingLimit: 4
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata:
  namespace: team-$q
  name: user-queue
spec:
  clusterQueue: team-$q
YAML
  done
} >"$tmp/cluster.yaml"
echo "manifests: $queues ClusterQueues and LocalQueues, 10 Cohorts ($(wc -c <"$tmp/cluster.yaml") bytes)"
for ((r = 0; r < runs; r++)); do
  rm -f "$tmp/cluster.charter"
  /usr/bin/time -f '%e s wall, %U s user, %S s sys, %M KB peak' -o "$tmp/time" \
    "$charter" import kueue "$tmp/cluster.yaml" -o "$tmp/cluster.charter" 2>"$tmp/err" >/dev/null || {
    cat "$tmp/err" >&2
    exit 1
  }
  echo "run $((r + 1)): $(cat "$tmp/time")"
done
echo "wrote $(grep -c '^queue ' "$tmp/cluster.charter") queues"
