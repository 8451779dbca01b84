#!/usr/bin/env bash
# The consumer tests: build tests/consumer/project against Charter the ways a
# user's project does, and run it.
#
#   run.sh install    CHARTER_BINARY_DIR WORK CONFIG [cmake args...]
#       installs an already-built Charter into a fresh prefix, then builds the
#       consumer against it with find_package(charter);
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
  # (without the [abi:cxx11] tags of functions that return std::string)
  nm -D --defined-only -C "$lib" | sed "s/\[abi:cxx11\]//g" >"$work/exports.txt"
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
    'charter::schedule::ApplyCycle(' 'charter::schedule::IsStable(')
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
    check_exports "$lib"
    build_consumer -DCMAKE_PREFIX_PATH="$prefix" "$@"
    found_in_prefix
    # The program links the shared library, not a static copy of it.
    readelf -d "$build/consumer" | grep -q 'NEEDED.*libcharter\.so' || {
      echo "the consumer does not link libcharter.so" >&2; exit 1; }
    ;;
  subproject)
    build="$work/charter"  # the consumer's build holds Charter's: kept between runs
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
