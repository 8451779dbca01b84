#!/usr/bin/env bash
# authorize_only_test.sh PROGRAM LIBCORE
# PROGRAM links charter::core alone: it decides as it should, and neither it
# nor the core library has libyaml or scheduling or tools code in it.
set -euo pipefail
program="$1" core="$2"
out="$("$program")"
echo "$out"
[[ "$out" == "allow deny" ]] || { echo "FAIL: the program decided '$out', not 'allow deny'" >&2; exit 1; }
needed="$(readelf -d "$program")"
if [[ "$needed" == *libyaml* ]]; then echo "FAIL: $program needs libyaml" >&2; exit 1; fi
for binary in "$program" "$core"; do
  symbols="$(nm -C "$binary" 2>/dev/null || true)"
  [[ -n "$symbols" ]] || { echo "FAIL: no symbols read from $binary" >&2; exit 1; }
  for unwanted in "yaml_parser" "charter::schedule::" "charter::internal::schedule::" "charter::kueue" \
                  "charter::Explain" "charter::Disassemble" "charter::internal::kueue::"; do
    if [[ "$symbols" == *"$unwanted"* ]]; then
      echo "FAIL: $binary has $unwanted code:" >&2
      grep -F -m3 -- "$unwanted" <<<"$symbols" >&2
      exit 1
    fi
  done
done
echo "ok: an authorize-only program links charter::core alone, without libyaml or scheduling code"
