#!/usr/bin/env bash
# The bindings as a user gets them: installs this build into a fresh prefix
# (cmake --install), then decides the governance example's requests through
# the installed Lua module (each Lua given) and through the Go package
# built with the installed charter.pc, and compares each with `charter
# authorize`.
#
#   bindings.sh CHARTER_BINARY_DIR WORK CHARTER_CLI "LUA_VERSIONS" GO
set -euo pipefail
# A step that fails says which one it was (a silent exit under set -e told CI nothing).
trap 'echo "bindings.sh: line $LINENO: \`$BASH_COMMAND\` failed" >&2' ERR
bin=$1 work=$2 cli=$3 lua_versions=$4 go=$5
src="$(cd "$(dirname "$0")/../.." && pwd)"
prefix="$work/prefix"
rm -rf "$work"
mkdir -p "$work"
echo "== install into $prefix"
cmake --install "$bin" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; exit 1; }

checked=0
for v in $lua_versions; do
  module=$(compgen -G "$prefix/lib*/lua/$v/charter.so" || true)
  module=${module%%$'\n'*}
  [[ -n "$module" ]] || { echo "the Lua $v module is not installed under $prefix" >&2; find "$prefix" -maxdepth 4 >&2; exit 1; }
  echo "== Lua $v: require(\"charter\") from $module"
  # The installed module finds the installed libcharter.so by its RPATH.
  bash "$src/tests/lua/governance.sh" "lua$v" "$(dirname "$module")" "$cli" "$src" "$work/lua$v"
  checked=$((checked + 1))
done

if [[ -n "$go" ]]; then
  pc=$(compgen -G "$prefix/lib*/pkgconfig/charter.pc" || true)
  pc=${pc%%$'\n'*}
  [[ -n "$pc" ]] || { echo "charter.pc is not installed under $prefix" >&2; find "$prefix" -maxdepth 3 >&2; exit 1; }
  pcdir=$(dirname "$pc")
  libdir=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir charter)
  echo "== Go: bindings/go built with $pcdir/charter.pc"
  (cd "$src/bindings/go" &&
   env PKG_CONFIG_PATH="$pcdir" LD_LIBRARY_PATH="$libdir" GOCACHE="$work/go-cache" GOPATH="$work/go-path" \
     GOPROXY=off GOFLAGS=-mod=mod CHARTER_CLI="$cli" CHARTER_SOURCE_DIR="$src" \
     "$go" test -count=1 -v -run 'TestGovernanceAsCharterAuthorize' ./... 2>&1 | tee "$work/go.log")
  grep -q '^--- PASS: TestGovernanceAsCharterAuthorize' "$work/go.log" || { echo "the Go test did not pass" >&2; exit 1; }
  # The test binary linked the installed library.
  checked=$((checked + 1))
fi
((checked > 0)) || { echo "no binding to check" >&2; exit 1; }
echo "every binding decides the governance example as charter authorize does"
