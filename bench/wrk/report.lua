-- wrk script of the bench. Settings come from the environment (set by bench/src/wrk.ts):
--   BENCH_METHOD, BENCH_BODY, BENCH_CONTENT_TYPE   the request (default: GET, no body)
--   BENCH_ROTATE_PREFIX, BENCH_ROTATE_MAX          when set, each request asks PREFIX..n, n going over 1..MAX
-- At the end it prints one line "BENCH_RESULT {json}" with the counts and latency percentiles (microseconds).

local method = os.getenv("BENCH_METHOD")
if method and method ~= "" then wrk.method = method end
local body = os.getenv("BENCH_BODY")
if body and body ~= "" then wrk.body = body end
local contentType = os.getenv("BENCH_CONTENT_TYPE")
if contentType and contentType ~= "" then wrk.headers["Content-Type"] = contentType end
wrk.headers["Accept"] = "application/ld+json"

local prefix = os.getenv("BENCH_ROTATE_PREFIX")
if prefix and prefix ~= "" then
  local max = tonumber(os.getenv("BENCH_ROTATE_MAX"))
  local counter = 0
  request = function()
    counter = counter + 1
    -- A stride prime to MAX visits every id once per MAX requests, in a scattered order.
    return wrk.format(nil, prefix .. tostring((counter * 7919) % max + 1))
  end
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
