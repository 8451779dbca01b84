#!/usr/bin/env bash
# The target of issue 31: `charter fmt` of a 10,000-policy file under 1 s.
# Generates the policies with charter_workload (the governance-shaped
# workload of bench/gen), then formats them RUNS times under GNU time,
# printing each run's time and peak memory; then `fmt --check` of the
# formatted file once.
#
#   bench/format/fmt_policies.sh CHARTER CHARTER_WORKLOAD [POLICIES] [RUNS]
set -euo pipefail
charter="$1" workload="$2" policies="${3:-10000}" runs="${4:-7}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$workload" --policies "$policies" --out "$tmp" >/dev/null
echo "policies: $policies ($(wc -c <"$tmp/policies.cedar") bytes, $(wc -l <"$tmp/policies.cedar") lines)"
for ((r = 0; r < runs; r++)); do
  /usr/bin/time -f '%e s wall, %U s user, %S s sys, %M KB peak' -o "$tmp/time" \
    "$charter" fmt "$tmp/policies.cedar" >"$tmp/formatted.cedar" 2>"$tmp/err" || {
    cat "$tmp/err" >&2
    exit 1
  }
  echo "run $((r + 1)): $(cat "$tmp/time")"
done
/usr/bin/time -f '%e s wall, %U s user, %S s sys, %M KB peak' -o "$tmp/time" \
  "$charter" fmt --check "$tmp/formatted.cedar"
echo "fmt --check of the formatted file: $(cat "$tmp/time")"
echo "formatted: $(wc -l <"$tmp/formatted.cedar") lines"
