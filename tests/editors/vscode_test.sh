#!/usr/bin/env bash
# The VS Code extension as `make vsix` builds it: editors/vscode/package.sh
# (the recipe of `make vsix`) packages it into OUT, the .vsix must be a valid
# zip with the extension in it, and extension_test.js runs the packaged
# extension, extracted, against the real `charter lsp`.
#
#   vscode_test.sh CHARTER_BINARY OUT PROJECT_VERSION   (from the repository's root)
set -euo pipefail

charter="$1" out="$2" version="$3"
here="$(cd "$(dirname "$0")" && pwd)"

vsix="$(bash editors/vscode/package.sh "$out" 2>"$out.log")" || { cat "$out.log" >&2; exit 1; }
echo "make vsix's recipe wrote $vsix"
[[ "$vsix" == "$out/charter-$version.vsix" ]] || { echo "expected $out/charter-$version.vsix" >&2; exit 1; }

# A zip whose every member's CRC holds, extracted with Python's zipfile.
rm -rf "$out/extracted"
python3 - "$vsix" "$out/extracted" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    bad = z.testzip()
    if bad is not None:
        sys.exit(f"{sys.argv[1]}: {bad} is corrupt")
    names = set(z.namelist())
    for need in ("extension.vsixmanifest", "[Content_Types].xml", "extension/package.json", "extension/out/extension.js"):
        if need not in names:
            sys.exit(f"{sys.argv[1]}: no {need} in it")
    z.extractall(sys.argv[2])
    print(f"{sys.argv[1]}: a valid zip of {len(names)} files")
PY

node "$here/extension_test.js" "$out/extracted/extension" "$charter" "$version"
