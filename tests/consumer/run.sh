#!/usr/bin/env bash
# The consumer tests: build tests/consumer/project against Charter the ways a
# user's project does, and run it.
#
#   run.sh install    CHARTER_BINARY_DIR WORK CONFIG [cmake args...]
#       installs an already-built Charter into a fresh prefix, then builds the
#       consumer against it with find_package(charter), once linking the
#       static library and once the shared libcharter.so installed beside it
#       (whose exports it checks); then builds examples/embedding/decide.c,
#       a C11 program, with `pkg-config --cflags --libs charter` and checks
#       that it decides the governance example's requests as `charter
#       authorize` does;
#   run.sh shared     CHARTER_SOURCE_DIR WORK CONFIG [cmake args...]
#       configures a build of Charter's library alone as a shared library
#       (BUILD_SHARED_LIBS=ON; no tests, benchmarks or command line) in
#       WORK/charter, builds only the `charter` target, installs it, checks
#       what libcharter.so exports, then builds the consumer against the
#       install with find_package(charter);
#   run.sh subproject CHARTER_SOURCE_DIR WORK CONFIG [cmake args...]
#       builds the consumer with Charter's source tree added by
#       add_subdirectory(), with CLI11, GoogleTest and Google Benchmark made
#       unfindable: a subproject needs none of them.
#
# The cmake arguments go to every configure (generator, compiler, launcher).
# WORK/charter (Charter's build for `shared`, the consumer's with Charter in it
# for `subproject`) is kept between runs, so that a second run builds only
# what changed; everything else in WORK is made afresh.
set -euo pipefail

if (($# < 4)); then
  echo "usage: $0 install|shared|subproject DIR WORK_DIR CONFIG [cmake args...]" >&2
  exit 2
fi
mode="$1"
dir="$2"
work="$3"
config="$4"
shift 4
project="$(cd "$(dirname "$0")/project" && pwd)"
prefix="$work/prefix"
build="$work/consumer"

mkdir -p "$work"
rm -rf "$prefix" "$build"

# check_install: the files a user's project needs are in $prefix.
check_install() {
  for f in include/charter/charter.h include/charter/version.h lib*/cmake/charter/charterConfig.cmake \
           lib*/cmake/charter/charterConfigVersion.cmake lib*/cmake/charter/charterTargets.cmake \
           share/charter/stdlib/governance.cedar share/charter/stdlib/governance.cedarschema; do
    compgen -G "$prefix/$f" >/dev/null || { echo "not installed: $f" >&2; exit 1; }
  done
  compgen -G "$prefix/lib*/libcharter.*" >/dev/null || { echo "not installed: libcharter" >&2; exit 1; }
  for f in include/charter.h lib*/pkgconfig/charter.pc; do
    compgen -G "$prefix/$f" >/dev/null || { echo "not installed: $f" >&2; exit 1; }
  done
}

# links_libcharter PROGRAM: PROGRAM needs libcharter.so. (readelf's output is
# read whole first: `readelf | grep -q` fails under pipefail when grep stops
# reading early.)
links_libcharter() {
  local dynamic
  dynamic="$(readelf -d "$1")"
  [[ "$dynamic" == *"NEEDED"*"[libcharter.so"* ]]
}

# check_soname LIBRARY: libcharter.so's SONAME carries the ABI version
# (0.MINOR while the version is 0.x) and its link name points to it.
check_soname() {
  local lib="$1" soname
  soname="$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
  echo "SONAME $soname"
  [[ "$soname" =~ ^libcharter\.so\.[0-9]+(\.[0-9]+)?$ ]] || { echo "unexpected SONAME '$soname'" >&2; exit 1; }
  [[ -e "$(dirname "$lib")/$soname" ]] || { echo "no $soname beside $lib" >&2; exit 1; }
}

# check_c_program SOURCE_DIR BINARY_DIR: builds decide.c as a C11 program
# with pkg-config against the install, and compares its decisions of the
# governance example with the charter command's.
check_c_program() {
  local src="$1" bin="$2"
  local pcdir
  pcdir="$(dirname "$(compgen -G "$prefix/lib*/pkgconfig/charter.pc" | head -1)")"
  echo "== build examples/embedding/decide.c with pkg-config ($pcdir)"
  local flags
  flags="$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs charter)"
  echo "pkg-config: $flags"
  local libdir
  libdir="$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir charter)"
  # CONSUMER_LDFLAGS: what a sanitized libcharter needs in every program.
  ${CC:-cc} -std=c11 -Wall -Wextra -pedantic -Werror "$src/examples/embedding/decide.c" $flags \
    -Wl,-rpath,"$libdir" ${CONSUMER_LDFLAGS:-} -o "$work/decide"
  links_libcharter "$work/decide" || {
    echo "decide does not link libcharter.so" >&2; exit 1; }
  local ex="$src/examples/governance" schema="$src/stdlib/governance.cedarschema"
  "$work/decide" "$ex/policies.cedar" "$schema" "$ex/entities.json" "$ex/requests.json" >"$work/decide.out"
  "$bin/cli/charter" authorize --policies "$ex/policies.cedar" --schema "$schema" \
    --entities "$ex/entities.json" --requests "$ex/requests.json" --format jsonl |
    # The errors' places in the policy text, which the C API does not report.
    sed -E 's/,"begin":[0-9]+,"end":[0-9]+(,"line":[0-9]+,"column":[0-9]+)?//g' >"$work/charter.out"
  local n
  n="$(wc -l <"$work/charter.out")"
  ((n > 0)) || { echo "charter authorize decided nothing" >&2; exit 1; }
  if ! diff "$work/charter.out" "$work/decide.out"; then
    echo "decide.c and charter authorize disagree (above: < charter, > decide)" >&2
    exit 1
  fi
  echo "decide.c decides the $n requests of examples/governance as charter authorize does"
}

# install_into BINARY_DIR: cmake --install into $prefix, quietly unless it fails.
install_into() {
  echo "== install into $prefix"
  cmake --install "$1" --prefix "$prefix" --config "$config" >"$work/install.log" || {
    cat "$work/install.log"; exit 1; }
  check_install
}

# check_exports LIBRARY: the shared library exports the public API, and
# nothing of charter::internal.
check_exports() {
  local lib="$1"
  echo "== exports of $lib"
  # (without the [abi:cxx11] tags of functions that return std::string,
  # and without the version node of the export list, charter.map's CHARTER_0)
  nm -D --defined-only -C "$lib" | sed -E "s/\[abi:cxx11\]//g; s/@@?CHARTER_[0-9]+$//" >"$work/exports.txt"
  echo "$(wc -l <"$work/exports.txt") exported symbols, $(grep -c 'charter::' "$work/exports.txt") of charter"
  # A symbol of charter::internal itself (a function, variable, type's
  # typeinfo or vtable). Public members that take internal types (the
  # private constructors of Engine, Entities, Request, Schema) are members of
  # public classes, and are not counted here.
  local internal='^[0-9a-f]+ [A-Za-z] ((typeinfo|typeinfo name|vtable|VTT|guard variable) for )?charter::internal::'
  if grep -Eq "$internal" "$work/exports.txt"; then
    echo "libcharter exports internal symbols:" >&2
    grep -E "$internal" "$work/exports.txt" | head -20 >&2
    exit 1
  fi
  # One symbol of each public header with out-of-line code.
  local expected=(
    'charter::Version()' 'charter::Compile(' 'charter::Bundle::FromBytes(' 'charter::Engine::Create('
    'charter::EngineHandle::Swap(' 'charter::Entities::FromJson(' 'charter::EntityUid::ToString() const'
    'charter::Request::Create(' 'charter::Decision::ToJson() const' 'charter::EvalContext::EvalContext()'
    'charter::SourceFile::SourceFile(' 'charter::Diagnostics::Render(' 'charter::Explain('
    'charter::Explanation::ToJson() const' 'charter::Coverage::Create(' 'charter::EvaluateExpression('
    'charter::FormatPolicies(' 'charter::Schema::Parse(' 'charter::Validate('
    'charter::schedule::LoadState(' 'charter::schedule::RunCycle(' 'charter::schedule::CycleResult::ToJson() const'
    'charter::schedule::ApplyCycle(' 'charter::schedule::IsStable('
    'charter_version' 'charter_engine_compile' 'charter_authorize' 'charter_eval_context_reason'
    'charter_entities_extend' 'charter_engine_handle_swap_bundle' 'charter_schedule_cycle')
  # Nothing but the C API and charter:: (the export list, charter.map): no
  # abseil, RE2, FlatBuffers or standard library code leaks out.
  local foreign
  foreign="$(grep -Ev '^[0-9a-f]+ [A-Za-z] (charter_[a-z0-9_]+$|.*charter::)' "$work/exports.txt" |
    grep -Ev '^0+ A CHARTER_[0-9]+$' || true)"
  if [[ -n "$foreign" ]]; then
    echo "libcharter exports symbols that are neither charter_* nor charter::" >&2
    echo "$foreign" | head -20 >&2
    exit 1
  fi
  local missing=0
  for symbol in "${expected[@]}"; do
    grep -qF " $symbol" "$work/exports.txt" || { echo "not exported: $symbol" >&2; missing=1; }
  done
  ((missing == 0)) || exit 1
}

# build_consumer [cmake args...]: configures, builds and runs the consumer.
build_consumer() {
  echo "== configure the consumer"
  cmake -S "$project" -B "$build" -DCMAKE_BUILD_TYPE="$config" "$@"
  echo "== build the consumer"
  cmake --build "$build" --config "$config" --target consumer
  echo "== run the consumer"
  local exe="$build/consumer"
  [[ -x "$exe" ]] || exe="$build/$config/consumer"
  "$exe"
}

# found_in_prefix: find_package(charter) found the fresh install.
found_in_prefix() {
  local found
  found="$(sed -n 's/^charter_DIR:PATH=//p' "$build/CMakeCache.txt")"
  case "$found" in
    "$prefix"/*) echo "found charter in $found" ;;
    *) echo "find_package(charter) found $found, not the fresh install in $prefix" >&2; exit 1 ;;
  esac
}

case "$mode" in
  install)
    install_into "$dir"
    build_consumer -DCMAKE_PREFIX_PATH="$prefix" "$@"
    found_in_prefix
    lib="$(compgen -G "$prefix/lib*/libcharter.so.*.*" | head -1)"
    [[ -n "$lib" ]] || { echo "no shared libcharter.so installed beside the static one" >&2; exit 1; }
    check_soname "$lib"
    check_exports "$lib"
    echo "== the consumer again, linking the shared libcharter.so"
    rm -rf "$build"
    build_consumer -DCMAKE_PREFIX_PATH="$prefix" -DCONSUMER_SHARED=ON "$@"
    links_libcharter "$build/consumer" || {
      echo "the consumer does not link libcharter.so" >&2; exit 1; }
    check_c_program "$(cd "$(dirname "$0")/../.." && pwd)" "$dir"
    ;;
  shared)
    charter="$work/charter"
    echo "== configure a shared Charter in $charter"
    cmake -S "$dir" -B "$charter" -DCMAKE_BUILD_TYPE="$config" -DBUILD_SHARED_LIBS=ON \
      -DCHARTER_BUILD_TESTS=OFF -DCHARTER_BUILD_BENCH=OFF -DCHARTER_BUILD_FUZZERS=OFF \
      -DCHARTER_BUILD_CLI=OFF -DCHARTER_SANITIZE=OFF "$@" >"$work/configure.log" || {
      cat "$work/configure.log"; exit 1; }
    echo "== build libcharter"
    cmake --build "$charter" --config "$config" --target charter
    install_into "$charter"
    lib="$(compgen -G "$prefix/lib*/libcharter.so.*.*" | head -1)"
    [[ -n "$lib" ]] || { echo "no shared libcharter.so installed" >&2; exit 1; }
    check_soname "$lib"
    check_exports "$lib"
    build_consumer -DCMAKE_PREFIX_PATH="$prefix" "$@"
    found_in_prefix
    # The program links the shared library, not a static copy of it.
    links_libcharter "$build/consumer" || {
      echo "the consumer does not link libcharter.so" >&2; exit 1; }
    ;;
  subproject)
    build="$work/charter"  # the consumer's build holds Charter's: kept between runs
    # ... unless it was configured with another compiler (CMake would throw
    # its cache away halfway through a configure).
    for arg in "$@"; do
      case "$arg" in
        -DCMAKE_CXX_COMPILER=*)
          if [[ -f "$build/CMakeCache.txt" ]] &&
            ! grep -qx "CMAKE_CXX_COMPILER:[A-Z]*=${arg#-DCMAKE_CXX_COMPILER=}" "$build/CMakeCache.txt"; then
            echo "== $build was configured with another compiler: starting afresh"
            rm -rf "$build"
          fi
          ;;
      esac
    done
    build_consumer -DCHARTER_SOURCE_DIR="$dir" -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON \
      -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON "$@"
    for option in CHARTER_BUILD_TESTS CHARTER_BUILD_BENCH CHARTER_BUILD_CLI CHARTER_BUILD_FUZZERS CHARTER_INSTALL; do
      grep -q "^$option:BOOL=OFF$" "$build/CMakeCache.txt" || {
        echo "as a subproject, $option is not OFF" >&2; exit 1; }
    done
    ;;
  *)
    echo "unknown mode $mode" >&2
    exit 2
    ;;
esac
