#!/usr/bin/env bash
# `charter lsp` in Neovim's built-in client, configured as docs/editors.md
# says for Neovim 0.7 (Debian 12's): the page's second `lua` block is the
# init.lua, with the binary under test for `charter` and the test schema for
# the governance one. Neovim runs without a screen, opens a policy file
# with a fault, and writes what its client got: the diagnostic (at its
# place), the formatting edits and the outline.
#
#   tests/lsp/neovim_test.sh CHARTER_BINARY NVIM SOURCE_DIR
set -euo pipefail

charter="$(realpath "$1")"
nvim="$2"
source_dir="$(realpath "$3")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The configuration, as the page writes it.
awk '/^```lua$/ { n++; inside = (n == 2); next } /^```$/ { inside = 0 } inside' \
  "$source_dir/docs/editors.md" > "$work/init.lua"
grep -q "vim.lsp.start_client" "$work/init.lua" || { echo "no Neovim 0.7 block in docs/editors.md" >&2; exit 1; }
sed -i "s|'charter', 'lsp'|'$charter', 'lsp'|; s|'stdlib/governance.cedarschema'|'model.cedarschema'|" "$work/init.lua"

cp "$source_dir/tests/lsp/fixtures/model.cedarschema" "$work/"
cat > "$work/p.cedar" <<'CEDAR'
permit (principal, action == Org::Action::"view", resource)
when { principal.levle > 2 };
CEDAR
# What the client got, written to out.txt; every wait bounded (generously,
# for the sanitizer build).
cat > "$work/check.lua" <<'LUA'
local out = {}
if not vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 50) then
  table.insert(out, 'no diagnostics')
end
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out, string.format('diagnostic %d:%d-%d:%d %s %s', d.lnum, d.col, d.end_lnum, d.end_col,
    d.code or '', d.message))
end
local formatted = vim.lsp.buf_request_sync(0, 'textDocument/formatting', vim.lsp.util.make_formatting_params({}), 60000)
for _, r in pairs(formatted or {}) do
  table.insert(out, r.error and ('formatting error ' .. r.error.message) or ('formatting edits ' .. #(r.result or {})))
end
local symbols = vim.lsp.buf_request_sync(0, 'textDocument/documentSymbol',
  { textDocument = vim.lsp.util.make_text_document_params() }, 60000)
for _, r in pairs(symbols or {}) do
  for _, s in ipairs(r.result or {}) do table.insert(out, 'symbol ' .. s.name) end
end
vim.fn.writefile(out, 'out.txt')
vim.cmd('qa!')
LUA

cd "$work"
timeout 240 "$nvim" --headless -u init.lua p.cedar -c 'luafile check.lua' </dev/null
expected='diagnostic 1:7-1:22 CH0512 `Org::User` has no attribute `levle`
formatting edits 1
symbol policy0'
if [[ "$(cat out.txt)" != "$expected" ]]; then
  echo "neovim_test: Neovim's client got:" >&2
  cat out.txt >&2
  echo "expected:" >&2
  echo "$expected" >&2
  exit 1
fi
echo "neovim_test: ok"
