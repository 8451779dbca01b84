-- wrk script: POST the file named by the REVIEW environment variable to the
-- path named by ENDPOINT (default /v1/admission), and count non-200 answers.
local f = assert(io.open(os.getenv("REVIEW"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
wrk.path = os.getenv("ENDPOINT") or "/v1/admission"

local bad = 0
function response(status, headers, body)
  if status ~= 200 then bad = bad + 1 end
end

function done(summary, latency, requests)
  io.write(string.format("non200 %d\n", summary.errors.status))
  io.write(string.format("p50_us %d\np99_us %d\nrps %.0f\n", latency:percentile(50), latency:percentile(99),
    summary.requests / (summary.duration / 1e6)))
  io.write(string.format("socket_errors %d\n", summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
