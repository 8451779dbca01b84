-- Queries through the Lua module: engine:list_allowed and engine:residual on
-- the governance example, compared with `charter query`, paging, and bad
-- input giving nil and a precise message (or a Lua error naming the field).
--   query.lua CHARTER SOURCE_DIR
local charter = require("charter")
local cli, src = arg[1], arg[2]
local ex = src .. "/examples/governance/"
local schema_path = src .. "/stdlib/governance.cedarschema"
local function read(path)
  local f = assert(io.open(path, "rb"))
  local text = f:read("*a")
  f:close()
  return text
end
local failures = 0
local function check(ok, what)
  if not ok then
    failures = failures + 1
    io.stderr:write("FAIL: " .. what .. "\n")
  end
end
local function json_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    if c == '"' then return '\\"' end
    if c == "\\" then return "\\\\" end
    if c == "\n" then return "\\n" end
    return string.format("\\u%04x", c:byte())
  end) .. '"'
end
-- The matches as the "allowed" array of `charter query --format json`.
local function allowed_json(matches)
  local out = {}
  for i, m in ipairs(matches) do
    local reasons, errors = {}, {}
    for k, id in ipairs(m.reasons) do reasons[k] = json_string(id) end
    for k, e in ipairs(m.errors) do
      errors[k] = '{"policy":' .. json_string(e.policy) .. ',"message":' .. json_string(e.message) .. '}'
    end
    local uid = '{"type":' .. json_string(m.uid.type) .. ',"id":' .. json_string(m.uid.id) .. '}'
    out[i] = '{"uid":' .. uid .. ',"reasons":[' .. table.concat(reasons, ",") .. '],"errors":[' ..
             table.concat(errors, ",") .. ']}'
  end
  return "[" .. table.concat(out, ",") .. "]"
end
local function run(flags)
  local p = assert(io.popen("'" .. cli .. "' query --policies " .. ex .. "policies.cedar --schema " .. schema_path ..
                            " --entities " .. ex .. "entities.json " .. flags))
  local out = p:read("*a")
  p:close()
  return out
end

local schema = read(schema_path)
local engine = assert(charter.compile(read(ex .. "policies.cedar"), schema))
local entities = assert(charter.entities(read(ex .. "entities.json"), schema))
local alice, view = 'Governance::Member::"alice"', 'Governance::Action::"viewTask"'

local cases = {
  {{principal = alice, action = view, resource_type = "Governance::Task"},
   "--principal '" .. alice .. "' --action '" .. view .. "' --resource-type Governance::Task"},
  {{resource = {type = "Governance::Task", id = "vision-train-17"}, action = view, principal_type = "Governance::Member"},
   "--resource 'Governance::Task::\"vision-train-17\"' --action '" .. view .. "' --principal-type Governance::Member"},
}
for _, c in ipairs(cases) do
  local q, flags = c[1], c[2]
  q.entities = entities
  local matches, nxt = engine:list_allowed(q)
  check(matches and #matches > 0 and nxt == nil, "a listing for " .. flags)
  local want = run(flags .. " --format json"):match('"allowed":(%[.*%])}')
  check(allowed_json(matches) == want, "listing differs from charter query " .. flags .. "\n got " ..
        allowed_json(matches) .. "\nwant " .. tostring(want))
  -- Pages of 1, 2 and 1000 give the same list.
  for _, limit in ipairs({1, 2, 1000}) do
    local paged, cursor, pages = {}, 0, 0
    repeat
      q.start, q.limit = cursor, limit
      local page, next_cursor = assert(engine:list_allowed(q))
      check(#page <= limit, "a page of " .. limit .. " has " .. #page)
      for _, m in ipairs(page) do paged[#paged + 1] = m end
      pages = pages + 1
      cursor = next_cursor
    until cursor == nil
    check(allowed_json(paged) == allowed_json(matches), "pages of " .. limit)
    check(limit ~= 1000 or pages == 1, "one page of 1000")
  end
  q.start, q.limit = nil, nil
end
local all = engine:list_allowed{principal = alice, action = view, resource_type = "Governance::Task", entities = entities}
check(#all == 7 and all[1].uid.id == "vision-train-17" and all[1].reasons[1] == "teams-view-their-tasks",
      "alice views the seven vision tasks")

-- The residual, as `charter query --residual`.
local r = assert(engine:residual{principal = alice, action = view, resource_type = "Governance::Task",
                                 entities = entities})
check(r.outcome == "depends" and r.exact == false and r.label_selector == nil, "the residual's outcome")
check(r.condition:sub(1, 52) == 'Governance::Member::"alice" in resource.namespace.te', "the condition: " .. r.condition)
check(r.condition_json:sub(1, 6) == '{"&&":', "the condition's JSON")
local flags = "--principal '" .. alice .. "' --action '" .. view .. "' --resource-type Governance::Task --residual"
check(r.json .. "\n" == run(flags .. " --format json"), "the residual's JSON differs from charter query")
check(r.text == run(flags), "the residual's text differs from charter query")

-- Bad input: nil and Charter's message ...
local function refused(q, message)
  q.entities = q.entities or entities
  local got, msg = engine:list_allowed(q)
  check(got == nil and msg == message, "want nil, " .. message .. "; got " .. tostring(got) .. ", " .. tostring(msg))
end
refused({principal = alice, action = view, resource_type = "Governance::Tsk"},
        "the schema declares no entity type `Governance::Tsk`")
refused({principal = 'Governance::Member::"alyce"', action = view, resource_type = "Governance::Task"},
        'the principal `Governance::Member::"alyce"` is not in the entities; did you mean `Governance::Member::"alice"`?')
refused({principal = "Governance::Member::alice", action = view, resource_type = "Governance::Task"},
        "the principal `Governance::Member::alice` is not an entity reference `Type::\"id\"`: expected `::` after the entity type")
local got, msg = engine:residual{principal = 'Governance::Team::"vision"', action = view,
                                 resource_type = "Governance::Task", entities = entities}
check(got == nil and msg:find("does not apply to principals of type `Governance::Team`", 1, true),
      "a residual the schema refuses: " .. tostring(msg))
-- ... and a Lua value of the wrong kind raises, naming the field.
local function raises(q, message)
  local ok, err = pcall(engine.list_allowed, engine, q)
  check(not ok and tostring(err):find(message, 1, true), "want an error with " .. message .. ", got " .. tostring(err))
end
raises({action = view, resource_type = "T"}, "field 'principal': missing")
raises({principal = alice, action = view, resource_type = 3}, "field 'resource_type': expected a string, got number")
raises({principal = alice, action = view}, "field 'resource_type': give resource_type (with principal) or principal_type")
raises({principal = alice, action = view, resource_type = "T", limit = 0}, "field 'limit': expected an integer of at least 1")
raises({principal = alice, action = view, resource_type = "T", start = -1}, "field 'start': expected an integer of at least 0")
raises({principal = alice, action = view, resource_type = "T", entities = 5}, "entities")

-- An engine from a bundle lists, but has no text for a residual.
local dir = os.tmpname()
os.remove(dir)
local policies = dir .. ".cedar"
local f = assert(io.open(policies, "w"))
f:write('permit (principal, action == Action::"a", resource);')
f:close()
assert(os.execute("'" .. cli .. "' build --policies " .. policies .. " -o " .. dir .. ".chb > /dev/null"))
local bundled = assert(charter.load_bundle(dir .. ".chb"))
local store = assert(charter.entities('[{"uid": {"type": "User", "id": "u"}, "attrs": {}, "parents": []},' ..
                                      ' {"uid": {"type": "Task", "id": "t"}, "attrs": {}, "parents": []}]'))
local q = {principal = 'User::"u"', action = 'Action::"a"', resource_type = "Task", entities = store}
local listed = bundled:list_allowed(q)
check(listed and #listed == 1 and listed[1].uid.id == "t", "a bundle's listing")
local none, why = bundled:residual(q)
check(none == nil and why:find("a residual needs the policy text", 1, true), "a bundle's residual: " .. tostring(why))
os.remove(policies)
os.remove(dir .. ".chb")

if failures > 0 then
  io.stderr:write(failures .. " failures\n")
  os.exit(1)
end
print("query.lua: listings, pages and residuals as charter query gives them; bad input refused")
