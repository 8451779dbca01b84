-- The cost of examples/slurm/job_submit.lua's decision per job, outside
-- slurmctld: the script is loaded under Lua 5.1 with a `slurm` table that
-- has the functions and constants it uses (log functions that discard), and
-- slurm_job_submit is called N times (default 20000) with a job of a shape
-- it has seen (the entity store cached) and with jobs of shapes it has not
-- (each a new store: the store is rebuilt).
--   CHARTER_SLURM_BUNDLE=... CHARTER_SLURM_ENTITIES=... CHARTER_SLURM_CPATH=... \
--     lua5.1 bench/slurm/job_submit_bench.lua examples/slurm/job_submit.lua [N]
local script, n = arg[1], tonumber(arg[2]) or 20000
local last_user_message
slurm = {
  SUCCESS = 0, ERROR = -1, ESLURM_ACCESS_DENIED = 2002,
  log_info = function() end, log_error = function(...) io.stderr:write(string.format(...), "\n") end,
  log_debug = function() end, log_user = function(...) last_user_message = string.format(...) end,
}
assert(dofile(script) == slurm.SUCCESS)
local function job(gpus, cpus)
  return {user_name = "dave", account = "nlp-eval", partition = "gpu", qos = "normal",
          tres_per_node = "gres:gpu:" .. gpus, min_nodes = 1, min_cpus = cpus or 4, pn_min_memory = 1024,
          time_limit = 60, comment = "workload=evaluation data=internal", num_tasks = 1}
end
local seen = job(1)
assert(slurm_job_submit(seen, {}, 1000) == slurm.SUCCESS, last_user_message)
local refused = job(1)
refused.partition = "reserved"
assert(slurm_job_submit(refused, {}, 1000) == slurm.ESLURM_ACCESS_DENIED)
for _, case in ipairs({{"seen shape, allowed", seen}, {"seen shape, refused", refused}}) do
  local start = os.clock()
  for _ = 1, n do slurm_job_submit(case[2], {}, 1000) end
  print(string.format("job_submit.lua %-22s %8.1f us a job (%d jobs)", case[1], (os.clock() - start) / n * 1e6, n))
end
local m = math.min(n, 2000)
local start = os.clock()
-- A job of a new shape (a CPU count not seen before) each time.
for i = 1, m do slurm_job_submit(job(1, 100 + i), {}, 1000) end
print(string.format("job_submit.lua %-22s %8.1f us a job (%d jobs)", "new shape each job", (os.clock() - start) / m * 1e6, m))
