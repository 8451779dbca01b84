#!/usr/bin/env bash
# Installs everything Charter needs to build, test, benchmark and fuzz on
# Debian 12, from Debian's packages and (for the Cedar oracle, the language
# server's client tests and the VS Code extension) npm. Idempotent: apt-get
# runs only when a package is missing, and `npm ci` only when a node_modules is
# missing or older than its lock file.
#
#   scripts/deps.sh            # check, install what is missing
#   scripts/deps.sh --check    # exit 1 and list what is missing, install nothing
set -euo pipefail

cd "$(dirname "$0")/.."

# The exact Debian 12 packages Charter uses.
PACKAGES=(
  build-essential g++ cmake make pkg-config ninja-build  # toolchain
  antlr4 default-jre-headless libantlr4-runtime-dev      # parser generator (Java) and runtime
  flatbuffers-compiler libflatbuffers-dev                # bundle schema
  libabsl-dev libre2-dev libcli11-dev libedit-dev        # libraries
  libyaml-dev                                            # Kueue's objects (YAML)
  libz3-dev                                              # `charter prove` (the SMT solver, Z3)
  nlohmann-json3-dev                                     # `charter lsp`'s JSON-RPC messages
  libjemalloc-dev                                        # jemalloc, the `charter` command's allocator
  libgtest-dev libgmock-dev libbenchmark-dev             # tests and benchmarks
  libssl-dev zlib1g-dev                                  # `charter serve` (HTTPS; gzip bodies)
  openssl curl jq iproute2 wrk python3-yaml              # its tests (certificates, clients, ss, manifests; Go below), benchmark
  python3-jsonschema                                     # Kueue's CRD schemas against `charter export kueue` (tests only)
  time                                                   # GNU time: peak memory of the growth tests (tests only)
  clang libclang-rt-14-dev                               # libFuzzer and sanitizer runtimes
  lld                                                    # the linker (faster than GNU ld for the large test programs)
  nodejs npm                                             # the Cedar oracle (tests only)
  tmux                                                   # drives the REPL on a terminal (tests only)
  neovim                                                 # a real LSP client for `charter lsp` (tests only)
  graphviz                                               # renders `charter access --format dot` (tests only)
  chromium                                               # opens `charter report` in a real browser (tests only)
  lua5.1 liblua5.1-0-dev lua5.4 liblua5.4-dev            # the Lua module (5.1: Slurm's job_submit/lua)
  golang-go                                              # the Go binding (cgo, standard library only)
  slurmctld slurmd slurm-client munge                    # a real Slurm controller (tests only)
  umoci binutils                                         # `make image`: the server's OCI image (umoci, objcopy)
  python3-dev python3-pytest  # the Python module (C, over the C API) and its tests
)

check_only=0
[[ "${1:-}" == "--check" ]] && check_only=1

# Package names that installed packages provide (NodeSource's nodejs, for
# example, provides and conflicts with Debian's npm), so that a virtual package
# counts as present rather than forcing a conflicting install.
provided=" $(dpkg-query -W -f='${db:Status-Abbrev} ${Provides}\n' 2>/dev/null |
  awk '$1 == "ii" { $1 = ""; print }' | sed -E 's/\([^)]*\)//g; s/,/ /g' | tr -s ' \n' ' ') "

missing=()
for pkg in "${PACKAGES[@]}"; do
  status="$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null || true)"
  if [[ "$status" == ii* ]]; then continue; fi
  if [[ "$provided" == *" $pkg "* ]]; then continue; fi
  missing+=("$pkg")
done

if ((${#missing[@]})); then
  if ((check_only)); then
    echo "deps: missing Debian packages: ${missing[*]}" >&2
    exit 1
  fi
  if [[ "$(id -u)" != 0 ]]; then
    echo "deps: missing Debian packages: ${missing[*]}" >&2
    echo "deps: run 'make deps' as root to install them" >&2
    exit 1
  fi
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "deps: all ${#PACKAGES[@]} Debian packages present"
fi

# npm packages of the tests, exactly as the committed lock files pin them:
# the Cedar oracle (cedar-wasm), the language server's client (vscode-jsonrpc),
# and the VS Code extension (vscode-languageclient; tsc and vsce for `make vsix`;
# vscode-textmate and vscode-oniguruma for the grammar test), and Playwright's
# core package, which drives Debian's chromium over `charter report`.
for dir in tests/oracle tests/lsp tests/cli/report editors/vscode; do
  if [[ -f "$dir/package-lock.json" ]]; then
    stamp="$dir/node_modules/.package-lock.json"  # written by npm on every install
    if [[ ! -f "$stamp" || "$dir/package-lock.json" -nt "$stamp" || "$dir/package.json" -nt "$stamp" ]]; then
      if ((check_only)); then
        echo "deps: $dir/node_modules is missing or stale" >&2
        exit 1
      fi
      echo "deps: npm ci in $dir"
      (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
      touch "$stamp"
    else
      echo "deps: $dir/node_modules up to date"
    fi
  fi
done
