#!/usr/bin/env bash
# The consumer test: installs an already-built Charter into a fresh temporary
# prefix, then configures, builds and runs tests/consumer/project against it
# with find_package(charter), the way a user's project would.
#
#   run.sh CHARTER_BINARY_DIR WORK_DIR CONFIG [extra cmake arguments for the consumer...]
set -euo pipefail

if (($# < 3)); then
  echo "usage: $0 CHARTER_BINARY_DIR WORK_DIR CONFIG [cmake args...]" >&2
  exit 2
fi
binary_dir="$1"
work="$2"
config="$3"
shift 3
project="$(cd "$(dirname "$0")/project" && pwd)"
prefix="$work/prefix"
build="$work/build"

rm -rf "$work"
mkdir -p "$work"

echo "== install into $prefix"
cmake --install "$binary_dir" --prefix "$prefix" --config "$config" >"$work/install.log" || {
  cat "$work/install.log"; exit 1; }
for f in include/charter/charter.h include/charter/version.h lib*/cmake/charter/charterConfig.cmake \
         lib*/cmake/charter/charterConfigVersion.cmake lib*/cmake/charter/charterTargets.cmake; do
  compgen -G "$prefix/$f" >/dev/null || { echo "not installed: $f" >&2; exit 1; }
done
compgen -G "$prefix/lib*/libcharter.*" >/dev/null || { echo "not installed: libcharter" >&2; exit 1; }

echo "== configure the consumer"
cmake -S "$project" -B "$build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE="$config" "$@"
found="$(sed -n 's/^charter_DIR:PATH=//p' "$build/CMakeCache.txt")"
case "$found" in
  "$prefix"/*) echo "found charter in $found" ;;
  *) echo "find_package(charter) found $found, not the fresh install in $prefix" >&2; exit 1 ;;
esac

echo "== build the consumer"
cmake --build "$build" --config "$config"

echo "== run the consumer"
exe="$build/consumer"
[[ -x "$exe" ]] || exe="$build/$config/consumer"
"$exe"
