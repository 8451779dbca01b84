-- Runs the Lua examples of docs/embedding.md: each ```lua block whose first
-- line is `-- example: NAME`, with `print` captured, its output compared
-- with the ```output block that follows it.
--   docs.lua DOCS_EMBEDDING_MD   (LUA_CPATH naming the build's module)
local f = assert(io.open(arg[1], "rb"))
local text = f:read("*a")
f:close()

local load_chunk = loadstring or load
local failed, ran = 0, 0
local pos = 1
while true do
  local s, e, code = text:find("\n```lua\n(.-)\n```\n", pos)
  if not s then break end
  pos = e
  local name = code:match("^%-%- example: ([%w_]+)\n")
  if name then
    -- The block ends at e (its closing fence's newline); a blank line, then the output.
    local expected = text:match("^\n```output\n(.-)```\n", e + 1)
    local out = {}
    local real_print = print
    print = function(...)
      local parts = {}
      for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
      out[#out + 1] = table.concat(parts, "\t") .. "\n"
    end
    local chunk, err = load_chunk(code, "=" .. name)
    local ok = chunk ~= nil
    if ok then ok, err = pcall(chunk) end
    print = real_print
    ran = ran + 1
    local got = table.concat(out)
    if not ok then
      failed = failed + 1
      io.stderr:write("FAIL ", name, ": ", tostring(err), "\n")
    elseif expected ~= nil and got ~= expected then
      failed = failed + 1
      io.stderr:write("FAIL ", name, ": output differs\n--- expected\n", expected, "--- got\n", got)
    else
      print("ok " .. name)
    end
  end
end
if ran == 0 then
  io.stderr:write("no Lua examples found in ", arg[1], "\n")
  os.exit(1)
end
print(string.format("%s: %d examples, %d failed", _VERSION, ran, failed))
os.exit(failed == 0 and 0 or 1)
