-- The Lua module `charter` (bindings/lua/charter_lua.c), under Lua 5.1 and
-- 5.4: `lua5.X charter_test.lua` with LUA_CPATH naming the build's module.
-- Each check that fails is printed; the exit status is the number failed.
local charter = require("charter")

local failed, passed = 0, 0
local function check(name, ok, detail)
  if ok then
    passed = passed + 1
  else
    failed = failed + 1
    io.stderr:write("FAIL ", name, detail and (": " .. tostring(detail)) or "", "\n")
  end
end

local policies = [[
@id("ml-submit")
permit (principal in Team::"ml", action == Action::"submit", resource) when { context.gpus <= 8 };
@id("suspended")
forbid (principal, action, resource) when { principal has suspended && principal.suspended };
@id("errs")
permit (principal, action == Action::"view", resource) when { principal.missing == 1 };
@id("tags")
permit (principal, action == Action::"label", resource) when { context.labels.contains("gpu") && context.owner == User::"alice" };
]]
local entities_json = [=[[
  {"uid": {"type": "User", "id": "alice"}, "attrs": {}, "parents": [{"type": "Team", "id": "ml"}]},
  {"uid": {"type": "User", "id": "bob"}, "attrs": {"suspended": true}, "parents": [{"type": "Team", "id": "ml"}]}
]]=]

check("version", type(charter.version()) == "string" and charter.version() == charter._VERSION)

local engine, err = charter.compile(policies)
check("compile", engine ~= nil, err)
local entities
entities, err = charter.entities(entities_json)
check("entities", entities ~= nil, err)
check("policy_count", engine:policy_count() == 4)
local ids = engine:policy_ids()
check("policy_ids", #ids == 4 and ids[1] == "ml-submit" and ids[2] == "suspended" and ids[3] == "errs" and
  ids[4] == "tags", table.concat(ids, ","))
check("size", entities:size() == 2)
check("tostring", tostring(engine) == "charter.Engine (4 policies)", tostring(engine))

local function submit(who, gpus, e)
  return engine:authorize{principal = 'User::"' .. who .. '"', action = {type = "Action", id = "submit"},
                          resource = 'Task::"t1"', context = {gpus = gpus}, entities = e or entities}
end

local d = submit("alice", 4)
check("allow", d.decision == "allow" and #d.reasons == 1 and d.reasons[1] == "ml-submit" and #d.errors == 0)
d = submit("alice", 16)
check("deny by default", d.decision == "deny" and #d.reasons == 0)
d = submit("bob", 1)
check("forbid", d.decision == "deny" and d.reasons[1] == "suspended")
d = engine:authorize{principal = {type = "User", id = "alice"}, action = 'Action::"view"', resource = 'Task::"t"',
                     entities = entities}
check("erring policy", d.decision == "deny" and #d.errors == 1 and d.errors[1].policy == "errs"
      and d.errors[1].message:find("missing", 1, true) ~= nil, d.errors[1] and d.errors[1].message)
d = engine:authorize{principal = 'User::"x"', action = 'Action::"label"', resource = 'Task::"t"',
                     context = {labels = {"cpu", "gpu"}, owner = {__entity = {type = "User", id = "alice"}}}}
check("sets and entities in the context", d.decision == "allow" and d.reasons[1] == "tags")
d = submit("alice", 4, nil)
check("no entities", d.decision == "allow")
local no_store = engine:authorize{principal = 'User::"alice"', action = 'Action::"submit"', resource = 'Task::"t1"',
                                  context = {gpus = 1}}
check("empty store", no_store.decision == "deny")
-- An id that needs escaping in Cedar's text form.
d = engine:authorize{principal = {type = "User", id = 'a"b\\c\n'}, action = 'Action::"submit"', resource = 'Task::"t"',
                     context = {gpus = 1}, entities = entities}
check("escaped ids", d.decision == "deny")

-- Charter refuses: nil and a message with its place.
local bad, msg = charter.compile("permit (principal, action, resource)\nwhen { 1 + };")
check("policy error", bad == nil and msg:find("^policies.cedar:2:") ~= nil, msg)
bad, msg = charter.entities('[\n {"uid": 3}]')
check("entities error", bad == nil and msg:find("^entities.json:2:") ~= nil, msg)
bad, msg = charter.load_bundle("/nonexistent/charter.bundle")
check("missing bundle", bad == nil and msg:find("/nonexistent/charter.bundle", 1, true) ~= nil, msg)
bad, msg = engine:authorize{principal = "alice", action = 'Action::"submit"', resource = 'Task::"t"'}
check("bad reference", bad == nil and msg:find("the principal `alice` is not an entity reference", 1, true) ~= nil, msg)

-- Lua type errors raise, naming the field.
local ok, e = pcall(engine.authorize, engine, {principal = 3, action = 'Action::"a"', resource = 'T::"r"'})
check("wrong type raises", not ok and tostring(e):find("field 'principal'", 1, true) ~= nil, e)
ok, e = pcall(engine.authorize, engine, {action = 'Action::"a"', resource = 'T::"r"'})
check("missing field raises", not ok and tostring(e):find("principal", 1, true) ~= nil, e)
ok, e = pcall(engine.authorize, engine, {principal = 'U::"a"', action = 'Action::"a"', resource = 'T::"r"',
                                        context = {x = 1.5}})
check("float raises", not ok and tostring(e):find("context.x", 1, true) ~= nil, e)
ok, e = pcall(engine.authorize, engine, {principal = 'U::"a"', action = 'Action::"a"', resource = 'T::"r"',
                                        context = {f = print}})
check("function raises", not ok and tostring(e):find("cannot be a Cedar value", 1, true) ~= nil, e)
ok, e = pcall(engine.authorize, engine, {principal = 'U::"a"', action = 'Action::"a"', resource = 'T::"r"',
                                        entities = "nope"})
check("entities of the wrong type raise", not ok and tostring(e):find("field 'entities'", 1, true) ~= nil, e)
ok, e = pcall(engine.authorize, entities, {})
check("a store is not an engine", not ok, e)
ok, e = pcall(charter.compile, 42)
check("compile(42)", ok, e)  -- Lua converts numbers to strings: a policy error
ok, e = pcall(charter.compile, {})
check("compile({}) raises", not ok, e)
local deep = {}
local t = deep
for _ = 1, 100 do t.x = {}; t = t.x end
ok, e = pcall(engine.authorize, engine, {principal = 'U::"a"', action = 'Action::"a"', resource = 'T::"r"', context = deep})
check("deep context raises", not ok and tostring(e):find("nested too deeply", 1, true) ~= nil, e)

-- with(): a store for one request.
local more
more, err = entities:with('[{"uid": {"type": "User", "id": "carol"}, "attrs": {}, "parents": [{"type": "Team", "id": "ml"}]}]')
check("with", more ~= nil and more:size() == 3, err)
check("with decides", submit("carol", 1, more).decision == "allow" and submit("carol", 1).decision == "deny")
bad, msg = entities:with('[{"uid": {"type": "User", "id": "alice"}, "attrs": {"x": 1}, "parents": []}]')
check("with a duplicate", bad == nil and type(msg) == "string", msg)

-- Contexts go to the C API as values (charter_value), not JSON text: every
-- kind, mixed sets, bounds, and the faults.
local vengine = assert(charter.compile([[
@id("every") permit (principal, action == Action::"every", resource)
when { context.n == 4 && context.s == "x" && context.b && context.e == Team::"ml" &&
       context.set.contains(2) && context.rec.zone == "eu" && context.now < datetime("2026-01-01") &&
       context.src.isInRange(ip("10.0.0.0/8")) && context.budget.lessThan(decimal("100.0")) &&
       context.limit < duration("2h") };
]]))
local function every(context)
  return vengine:authorize{principal = 'User::"alice"', action = 'Action::"every"', resource = 'Task::"t1"',
                           context = context}
end
local function full()
  return {n = 4, s = "x", b = true, e = {__entity = {type = "Team", id = "ml"}}, set = {1, 2, "mixed", true},
          rec = {zone = "eu"}, now = {__extn = {fn = "datetime", arg = "2025-11-03T09:00:00Z"}},
          src = {__extn = {fn = "ip", arg = "10.1.2.3"}}, budget = {__extn = {fn = "decimal", arg = "12.50"}},
          limit = {__extn = {fn = "duration", arg = "1h30m"}}}
end
d = every(full())
check("every kind of context value", d and d.decision == "allow", d and d.decision)
for key, arg in pairs({now = "2026-06-01", src = "192.168.0.1", budget = "200.0", limit = "3h"}) do
  local c = full()
  c[key].__extn.arg = arg
  d = every(c)
  check("extension " .. key .. " decides", d and d.decision == "deny", d and d.decision)
end
local c = full()
c.n = 4.0  -- an integral float is the Long 4, as before
d = every(c)
check("4.0 is a Long", d and d.decision == "allow")
c = full()
c.big, c.small = math.maxinteger or 2^53, math.mininteger or -2^53
d = every(c)
check("integer bounds", d and d.decision == "allow")
c = full()
c.now.__extn.arg = "yesterday"
local bad, msg = every(c)
check("a bad datetime is nil, message", bad == nil and tostring(msg):find("context: context: attribute `now`", 1, true),
      msg)
c = full()
c.x = {__extn = {fn = "nope", arg = "1"}}
bad, msg = every(c)
check("an unknown function is nil, message", bad == nil and tostring(msg):find("unknown extension function", 1, true),
      msg)
c = full()
c.x = {__entity = {type = "Team"}}
ok, e = pcall(every, c)
check("an entity without id raises", not ok and tostring(e):find("context.x.__entity.id", 1, true), e)
c = full()
c.x = {{y = {1.5}}}
ok, e = pcall(every, c)
check("a float deep in a context raises with its path", not ok and tostring(e):find("context.x.[].y.[]", 1, true), e)
-- A Lua error in the middle of a context leaks nothing, and the next call works.
for _ = 1, 100 do pcall(every, c) end
d = every(full())
check("after errors", d and d.decision == "allow")

-- close(): later use raises, a second close does nothing.
more:close()
more:close()
ok, e = pcall(submit, "carol", 1, more)
check("closed entities raise", not ok and tostring(e):find("closed", 1, true) ~= nil, e)
local e2 = charter.compile('@id("p") permit (principal, action, resource);')
e2:close()
ok, e = pcall(e2.authorize, e2, {principal = 'U::"a"', action = 'A::"b"', resource = 'T::"c"'})
check("closed engine raises", not ok and tostring(e):find("closed", 1, true) ~= nil, e)
collectgarbage()

print(string.format("%s: %d passed, %d failed", _VERSION, passed, failed))
os.exit(failed == 0 and 0 or 1)
