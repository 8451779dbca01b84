-- job_submit.lua: Slurm's job_submit/lua plugin deciding every submission and
-- modification with Charter, over the governance model (examples/governance).
--
-- slurmctld loads this file from the directory of its slurm.conf when
-- JobSubmitPlugins=lua. The bundle and the entities are loaded ONCE, when the
-- script is loaded (at slurmctld start and `scontrol reconfigure`), never per
-- job. Each job becomes a Governance::Task in the namespace
-- "<cluster>/<account>", asked for with Governance::Action::"submitTask" by
-- Governance::Member::"<user>":
--
--   sbatch -A nlp-eval -p gpu --gres=gpu:2 --comment "workload=evaluation data=internal"
--
-- A refused job gets the determining policy's id as the message sbatch prints
-- (slurm.log_user). Everything that goes wrong fails closed: a missing or
-- corrupt bundle, an unreadable entity file, the Charter module missing, an
-- evaluation error; each refuses the job with a reason logged to slurmctld's
-- log, and none stops slurmctld.
--
-- Configuration: the environment of slurmctld (for systemd, an override of
-- slurmctld.service with Environment=...), or edit the defaults below.
--   CHARTER_SLURM_BUNDLE    the bundle (`charter build`), default /etc/slurm/charter/policies.bundle
--   CHARTER_SLURM_ENTITIES  the entities (Cedar JSON), default /etc/slurm/charter/entities.json
--   CHARTER_SLURM_CLUSTER   the cluster's name in the entities, default slurm-west
--   CHARTER_SLURM_CPATH     where charter.so is (a package.cpath pattern list), prepended
--   CHARTER_SLURM_NOW       pin the time the policies see (an RFC 3339 datetime,
--                           "2025-11-03T09:00:00Z"); unset, the real clock (the default)

local config = {
  bundle = os.getenv("CHARTER_SLURM_BUNDLE") or "/etc/slurm/charter/policies.bundle",
  entities = os.getenv("CHARTER_SLURM_ENTITIES") or "/etc/slurm/charter/entities.json",
  cluster = os.getenv("CHARTER_SLURM_CLUSTER") or "slurm-west",
  cpath = os.getenv("CHARTER_SLURM_CPATH"),
  now = os.getenv("CHARTER_SLURM_NOW"),
  -- Distinct job shapes whose entity stores are kept (see task_entities).
  cache_size = 256,
}

local NO_VAL = 0xfffffffe    -- Slurm's "not set" for 32-bit fields
local SUBMIT = { type = "Governance::Action", id = "submitTask" }
local SLURM_JOB = { type = "Governance::Task", id = "slurm-job" }
local NO_VAL64 = 0xfffffffffffffffe

-- ---- loading, once ----------------------------------------------------------------

-- `state.failure` is set when anything needed could not be loaded; every job
-- is then refused with it.
local state = { engine = nil, entities_json = nil, base = nil, cache = {}, cached = 0 }

local function read_file(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local text = f:read("*a")
  f:close()
  if not text then return nil, path .. ": unreadable" end
  return text
end

local function load()
  if config.cpath then package.cpath = config.cpath .. ";" .. package.cpath end
  local ok, charter = pcall(require, "charter")
  if not ok then return "cannot load the charter Lua module: " .. tostring(charter) end
  local engine, err = charter.load_bundle(config.bundle)
  if not engine then return "cannot load the bundle " .. config.bundle .. ": " .. err end
  local json
  json, err = read_file(config.entities)
  if not json then return "cannot read the entities " .. config.entities .. ": " .. err end
  local base
  base, err = charter.entities(json)
  if not base then return "cannot read the entities " .. config.entities .. ": " .. err end
  -- The base array without its closing bracket, to which a job's task is appended.
  local body = json:match("^%s*(%[.-)%]%s*$")
  if not body then return config.entities .. ": not a JSON array of entities" end
  state.charter = charter
  state.engine = engine
  state.base = base
  state.entities_prefix = body:match("^%[%s*$") and "[" or (body .. ",")
  return nil
end

state.failure = load()
if state.failure then
  slurm.log_error("charter: %s; every job will be refused", state.failure)
else
  slurm.log_info("charter: loaded %s and %s for cluster %s", config.bundle, config.entities,
                 config.cluster)
end

-- ---- from a job to a request ------------------------------------------------------

local function json_string(s)
  if not s:find('[%c"\\]') then return '"' .. s .. '"' end
  return '"' .. s:gsub('[%c"\\]', function(c)
    if c == '"' then return '\\"' end
    if c == "\\" then return "\\\\" end
    return string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function entity_json(type_name, id)
  return '{"__entity": {"type": ' .. json_string(type_name) .. ', "id": ' .. json_string(id) .. '}}'
end

local function set(value, unset)
  if value == nil or value == unset then return nil end
  return value
end

-- The GPUs a TRES/GRES string asks for: "gres:gpu:2", "gres/gpu:2",
-- "gres:gpu:a100:2", "gpu:2", comma-separated lists of them; a gpu entry
-- without a count is one.
local function count_gpus(spec)
  if spec == nil or spec == "" then return 0 end
  local total = 0
  for item in tostring(spec):gmatch("[^,]+") do
    local rest = item:gsub("^gres[:/]", "")
    local name, tail = rest:match("^([^:]+)(.*)$")
    if name == "gpu" then
      local count = tail:match(":(%d+)$")
      total = total + (count and tonumber(count) or 1)
    end
  end
  return total
end

-- "workload=training data=internal" (also with commas or semicolons between).
local function declared(comment)
  local out = {}
  if comment then
    for key, value in tostring(comment):gmatch("([%w_]+)%s*=%s*([^%s,;]+)") do out[key] = value end
  end
  return out
end

-- The fields of the job that the policies read, or nil and what is missing.
-- `job` reads a field (for a modification: the new value, else the old one).
local function describe(job)
  local d = {}
  d.user = job("user_name")
  if not d.user then return nil, "the job has no user name" end
  d.account = job("account")
  if not d.account or d.account == "" then
    return nil, "name your Slurm account with -A (your team's slurm-west namespace)"
  end
  d.partitions = {}
  local partition = job("partition")
  if not partition or partition == "" then partition = job("default_partition") end
  if not partition then return nil, "name a partition with -p" end
  for p in tostring(partition):gmatch("[^,]+") do d.partitions[#d.partitions + 1] = p end
  d.qos = job("qos")
  if not d.qos or d.qos == "" then d.qos = "normal" end
  local nodes = tonumber(job("min_nodes")) or 1
  if nodes < 1 or nodes >= NO_VAL then nodes = 1 end
  d.gpus = count_gpus(job("tres_per_node")) * nodes + count_gpus(job("tres_per_job"))
         + count_gpus(job("tres_per_task")) * math.max(tonumber(job("num_tasks")) or 1, 1)
  local cpus = tonumber(job("min_cpus"))
  if not cpus or cpus >= NO_VAL or cpus < 1 then cpus = 1 end
  d.cpu_millis = cpus * 1000
  local mem = tonumber(job("pn_min_memory"))
  if not mem or mem >= NO_VAL64 or mem < 0 then mem = 0 end
  -- Slurm marks memory per CPU with the top bit; either way, MiB.
  if mem >= 0x8000000000000000 then mem = (mem - 0x8000000000000000) * cpus end
  d.memory_mib = math.floor(mem)
  d.time_limit = set(tonumber(job("time_limit")), NO_VAL)
  local decl = declared(job("comment"))
  d.workload = decl.workload
  d.data = decl.data
  if not d.workload or not d.data then
    return nil, 'declare the workload type and data classification in --comment, ' ..
                'e.g. --comment "workload=training data=internal"'
  end
  return d
end

-- The task entity for one partition of the job, as Cedar JSON.
local function task_json(d, partition)
  local c = config.cluster .. "/"
  local ns = entity_json("Governance::Namespace", c .. d.account)
  return '{"uid": {"type": "Governance::Task", "id": "slurm-job"}, "attrs": {' ..
    '"namespace": ' .. ns ..
    ', "owner": ' .. entity_json("Governance::Member", d.user) ..
    ', "workloadType": ' .. entity_json("Governance::WorkloadType", d.workload) ..
    ', "dataClassification": ' .. entity_json("Governance::DataClassification", d.data) ..
    ', "priorityClass": ' .. entity_json("Governance::PriorityClass", c .. d.qos) ..
    ', "partition": ' .. entity_json("Governance::Partition", c .. partition) ..
    ', "requests": {"gpus": ' .. string.format("%d", d.gpus) ..
    ', "cpuMillis": ' .. string.format("%d", d.cpu_millis) ..
    ', "memoryMiB": ' .. string.format("%d", d.memory_mib) .. '}}, ' ..
    '"parents": [{"type": "Governance::Namespace", "id": ' .. json_string(c .. d.account) .. '}]}'
end

-- The store the decision reads: the base entities and the job's task. The
-- store is immutable, so a task needs a store of its own; the stores of the
-- last `cache_size` distinct job shapes are kept, so that a user's repeated
-- submissions do not rebuild one. A shape is what task_json writes.
local key_parts = {}
local function task_key(d, partition)
  key_parts[1], key_parts[2], key_parts[3], key_parts[4] = d.user, d.account, partition, d.qos
  key_parts[5], key_parts[6], key_parts[7] = d.workload, d.data, d.gpus
  key_parts[8], key_parts[9] = d.cpu_millis, d.memory_mib
  return table.concat(key_parts, "\0")
end

local function task_entities(d, partition)
  local key = task_key(d, partition)
  local cached = state.cache[key]
  if cached then return cached end
  local task = task_json(d, partition)
  local store, err
  if state.base.with then
    store, err = state.base:with("[" .. task .. "]")
  else
    store, err = state.charter.entities(state.entities_prefix .. task .. "]")
  end
  if not store then return nil, err end
  if state.cached >= config.cache_size then
    state.cache, state.cached = {}, 0
  end
  state.cache[key] = store
  state.cached = state.cached + 1
  return store
end

local last_second, last_now
local function now()
  if config.now then return config.now end
  local t = os.time()
  if t ~= last_second then last_second, last_now = t, os.date("!%Y-%m-%dT%H:%M:%SZ", t) end
  return last_now
end

-- What a refusal returns: a job the policies deny gets "Access/permission
-- denied" (ESLURM_ACCESS_DENIED), which sbatch and scontrol print; anything
-- else that refuses it (no policy loaded, a job that cannot be described)
-- gets slurm.ERROR ("Unspecified error"). Slurm 22.05 shows the message of
-- slurm.log_user for a submission only, not for a modification, so the code
-- is all `scontrol update` can tell its user (the policy is in slurmctld's log).
local DENIED = slurm.ESLURM_ACCESS_DENIED or slurm.ERROR

-- Decides the job; returns slurm.SUCCESS, or DENIED or slurm.ERROR (after
-- telling the user why and logging it).
local function decide(job, what)
  local function refuse(msg, code)
    slurm.log_user("charter: %s refused: %s", what, msg)
    slurm.log_info("charter: %s refused: %s", what, msg)
    return code or slurm.ERROR
  end
  if state.failure then
    slurm.log_error("charter: %s refused: %s", what, state.failure)
    return refuse("the submission policy is not loaded; ask the cluster's administrators")
  end
  local d, missing = describe(job)
  if not d then return refuse(missing) end
  local context = { now = { __extn = { fn = "datetime", arg = now() } } }
  if d.time_limit then context.timeLimitMinutes = d.time_limit end
  for _, partition in ipairs(d.partitions) do
    local entities, err = task_entities(d, partition)
    if not entities then
      slurm.log_error("charter: %s: cannot build the task entity: %s", what, err)
      return refuse("the job could not be described to the policy: " .. err)
    end
    local ok, decision = pcall(state.engine.authorize, state.engine, {
      -- All three as tables: the module hands them over without parsing.
      principal = { type = "Governance::Member", id = d.user },
      action = SUBMIT,
      resource = SLURM_JOB,
      context = context,
      entities = entities,
    })
    if not ok then
      slurm.log_error("charter: %s: evaluation failed: %s", what, tostring(decision))
      return refuse("the policy could not be evaluated")
    end
    for _, e in ipairs(decision.errors) do
      slurm.log_error("charter: %s: policy %s erred: %s", what, e.policy, e.message)
    end
    if decision.decision ~= "allow" then
      local subject = string.format("user %s, account %s, partition %s", d.user, d.account, partition)
      if #decision.reasons > 0 then
        return refuse(string.format("%s: denied by policy %s", subject,
                                    table.concat(decision.reasons, ", ")), DENIED)
      elseif #decision.errors > 0 then
        return refuse(string.format("%s: no policy could allow it (policy %s erred: %s)", subject,
                                    decision.errors[1].policy, decision.errors[1].message), DENIED)
      end
      return refuse(string.format("%s: no policy allows it", subject), DENIED)
    end
  end
  slurm.log_info("charter: %s allowed for %s (account %s, partition %s, %d GPUs)", what, d.user,
                 d.account, table.concat(d.partitions, ","), d.gpus)
  return slurm.SUCCESS
end

local function default_partition(part_list)
  if type(part_list) ~= "table" then return nil end
  for name, part in pairs(part_list) do
    if type(part) == "table" and (part.flag_default == 1 or part.flag_default == true) then
      return part.name or name
    end
  end
  return nil
end

function slurm_job_submit(job_desc, part_list, submit_uid)
  local function job(field)
    if field == "default_partition" then return default_partition(part_list) end
    return job_desc[field]
  end
  return decide(job, "submission")
end

-- A modification is decided as the job it makes: each field the update sets,
-- else the job's current value.
function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
  local function job(field)
    if field == "default_partition" then return nil end
    local v = job_desc[field]
    if v ~= nil and v ~= NO_VAL and v ~= NO_VAL64 and v ~= "" then return v end
    return job_rec[field]
  end
  return decide(job, "modification")
end

return slurm.SUCCESS
