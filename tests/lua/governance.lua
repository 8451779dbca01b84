-- Decides the requests of a Lua table file (governance.sh writes it) and
-- prints each decision as `charter authorize --format jsonl` does.
--   governance.lua POLICIES SCHEMA ENTITIES REQUESTS.lua
local charter = require("charter")
local function read(path)
  local f = assert(io.open(path, "rb"))
  local text = f:read("*a")
  f:close()
  return text
end
local schema = read(arg[2])
local engine = assert(charter.compile(read(arg[1]), schema))
local entities = assert(charter.entities(read(arg[3]), schema))
local requests = dofile(arg[4])

local function json_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    if c == '"' then return '\\"' end
    if c == "\\" then return "\\\\" end
    if c == "\n" then return "\\n" end
    if c == "\t" then return "\\t" end
    if c == "\r" then return "\\r" end
    return string.format("\\u%04x", c:byte())
  end) .. '"'
end

for _, r in ipairs(requests) do
  r.entities = entities
  local d = assert(engine:authorize(r))
  local reasons, errors = {}, {}
  for i, id in ipairs(d.reasons) do reasons[i] = json_string(id) end
  for i, e in ipairs(d.errors) do
    errors[i] = '{"policy":' .. json_string(e.policy) .. ',"message":' .. json_string(e.message) .. '}'
  end
  print('{"decision":"' .. d.decision .. '","reasons":[' .. table.concat(reasons, ",") .. '],"errors":[' ..
        table.concat(errors, ",") .. ']}')
end
