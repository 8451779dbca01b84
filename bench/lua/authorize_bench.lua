-- Decisions per second through the Lua module, entities loaded once: the
-- governance example's alice submitting vision-train-17 (allowed by
-- teams-submit-to-their-namespaces; a context with the time), and viewing it
-- (allowed; no context). Bounded: N decisions (default 200000).
--   LUA_CPATH=BUILD/bindings/lua/5.1/?.so lua5.1 bench/lua/authorize_bench.lua [SOURCE_DIR] [N]
local charter = require("charter")
local root = arg[1] or "."
local n = tonumber(arg[2]) or 200000
local function read(path)
  local f = assert(io.open(root .. "/" .. path, "rb"))
  local text = f:read("*a")
  f:close()
  return text
end
local schema = read("stdlib/governance.cedarschema")
local engine = assert(charter.compile(read("examples/governance/policies.cedar"), schema))
local entities = assert(charter.entities(read("examples/governance/entities.json"), schema))
local request = {
  principal = {type = "Governance::Member", id = "alice"},
  action = 'Governance::Action::"submitTask"',
  resource = 'Governance::Task::"vision-train-17"',
  context = {now = {__extn = {fn = "datetime", arg = "2025-11-03T09:00:00Z"}}},
  entities = entities,
}
local bare = {principal = 'Governance::Member::"alice"', action = 'Governance::Action::"viewTask"',
              resource = 'Governance::Task::"vision-train-17"', entities = entities}
local tables = {principal = {type = "Governance::Member", id = "alice"},
                action = {type = "Governance::Action", id = "viewTask"},
                resource = {type = "Governance::Task", id = "vision-train-17"}, entities = entities}
for _, case in ipairs({{"with a context", request}, {"without a context", bare}, {"uids as tables", tables}}) do
  local name, r = case[1], case[2]
  local d = assert(engine:authorize(r))
  for _ = 1, 1000 do engine:authorize(r) end
  local start = os.clock()
  for _ = 1, n do engine:authorize(r) end
  local seconds = os.clock() - start
  print(string.format("%s %-18s %8.0f ns a decision (%s, %d decisions)", _VERSION, name, seconds / n * 1e9,
                      d.decision, n))
end
