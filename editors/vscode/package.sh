#!/usr/bin/env bash
# Builds the VS Code extension's .vsix (make vsix): the extension's tracked
# files are copied to OUT/stage, compiled there with tsc, and packaged with
# vsce into OUT/charter-VERSION.vsix. Both tools come from editors/vscode's
# node_modules (npm ci from its lock file, which `make deps` runs); nothing is
# fetched, and no publisher token is needed. The source tree is not written.
#
#   editors/vscode/package.sh OUT     # prints the .vsix's path
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: package.sh OUT}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
modules="$here/node_modules"
if [[ ! -f "$modules/.package-lock.json" ]]; then
  echo "package.sh: $modules is missing: run make deps (npm ci in editors/vscode)" >&2
  exit 1
fi

stage="$out/stage"
rm -rf "$stage"
mkdir -p "$stage"
(cd "$here" && tar -cf - package.json package-lock.json README.md .vscodeignore tsconfig.json \
  language-configuration.json cedarschema.language-configuration.json syntaxes src) | tar -xf - -C "$stage"
# vsce lists the production dependencies with `npm ls` in the stage, and
# copies them from there: a copy of node_modules, hard links where the file
# system allows (the build directory is usually beside the source).
if ! cp -al "$modules" "$stage/node_modules" 2>/dev/null; then
  rm -rf "$stage/node_modules"
  cp -a "$modules" "$stage/node_modules"
fi

cd "$stage"
node node_modules/typescript/bin/tsc -p .
version="$(node -p 'require("./package.json").version')"
vsix="$out/charter-$version.vsix"
rm -f "$vsix"
node node_modules/@vscode/vsce/vsce package --out "$vsix" --skip-license --allow-missing-repository \
  --no-rewrite-relative-links >&2
echo "$vsix"
