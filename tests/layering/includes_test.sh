#!/usr/bin/env bash
# includes_test.sh CXX WORK CORE_INCLUDES SCHEDULE_INCLUDES TOOLS_INCLUDES CYCLE_INCLUDES
# Compiles (syntax only) one-line files with the include path of a stage of
# each library (charter_vm, charter_kueue, charter_query; ';'-separated lists):
# what the library may include compiles, and a header of a library it does not
# use is not found. And within the scheduling library, with the include path of
# its cycle stage (charter_cycle): the cycle sees none of the stages above it
# (formats, language, section, rules).
set -euo pipefail
cxx="$1" work="$2"
declare -A roots=([core]="$3" [schedule]="$4" [tools]="$5" [cycle]="$6")
mkdir -p "$work"
failures=0

flags() {
  local out=() dir
  IFS=';' read -ra dirs <<<"${roots[$1]}"
  for dir in "${dirs[@]}"; do [[ -n "$dir" ]] && out+=("-I$dir"); done
  printf '%s\n' "${out[@]}"
}

# try LIBRARY HEADER ok|refused
try() {
  local library="$1" header="$2" want="$3" file out
  file="$work/$library-$(echo "$header" | tr '/.' '__').cc"
  echo "#include \"$header\"" >"$file"
  mapfile -t inc < <(flags "$library")
  if out="$("$cxx" -std=c++20 -fsyntax-only "${inc[@]}" "$file" 2>&1)"; then
    if [[ "$want" == ok ]]; then echo "ok: $library includes $header"; else
      echo "FAIL: $library includes $header, which its library does not use" >&2; failures=$((failures + 1)); fi
  else
    # (GCC: "HEADER: No such file or directory"; clang: "'HEADER' file not found".)
    if [[ "$want" == refused && ( "$out" == *"$header: No such file or directory"* ||
          "$out" == *"'$header' file not found"* ) ]]; then
      echo "ok: $library cannot include $header"
    else
      echo "FAIL: $library including $header: want $want, got:" >&2; echo "$out" | head -5 >&2
      failures=$((failures + 1))
    fi
  fi
}

for library in core schedule tools cycle; do [[ -n "${roots[$library]}" ]] || { echo "no include path for $library" >&2; exit 2; }; done

try core charter/engine.h ok
try core charter/schedule.h refused
try core charter/kueue.h refused
try core charter/query.h refused
try core cycle/tree.h refused
try core section/bundle_table.h refused
try core query/query_unwrap.h refused
try schedule cycle/tree.h ok
try schedule kueue/objects.h ok
try schedule charter/query.h refused
try schedule charter/explain.h refused
try tools query/query_unwrap.h ok
try tools charter/schedule.h refused
try tools kueue/objects.h refused
try cycle cycle/tree.h ok
try cycle charter/schedule.h ok
try cycle state_json/load.h refused
try cycle kueue/objects.h refused
try cycle section/bundle_table.h refused
try cycle language/declare.h refused
try cycle rules/rules.h refused

if ((failures > 0)); then echo "$failures layering checks failed" >&2; exit 1; fi
echo "all layering checks passed"
