-- wrk script of the bench. Settings come from the environment (set by bench/src/wrk.ts):
--   BENCH_METHOD, BENCH_BODY, BENCH_CONTENT_TYPE   the request (default: GET, no body)
--   BENCH_ROTATE_PREFIX, BENCH_ROTATE_MAX          when set, each request asks PREFIX..n, n going over 1..MAX
--   BENCH_COUNT_HEADER                             when set (lower case, such as x-cache), each response's value of
--                                                  that header is counted: HIT, MISS, or none (absent or another)
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

-- Counting a response header makes wrk hand every response (headers and body) to Lua: it costs wrk some CPU per
-- response, so the bench counts on every target of a workload or on none.
local countHeader = os.getenv("BENCH_COUNT_HEADER")
local threads = {}
if countHeader and countHeader ~= "" then
  setup = function(thread)
    table.insert(threads, thread)
  end
  -- In each thread's own Lua state: its counts, read by done() through thread:get().
  hit, miss, none = 0, 0, 0
  response = function(status, headers, body)
    -- Header names come as the server wrote them (Node.js: as set, the app's `x-cache` in lower case); one lookup,
    -- so a response without the header costs wrk no more than one with it.
    local value = headers[countHeader]
    if value == "HIT" then hit = hit + 1 elseif value == "MISS" then miss = miss + 1 else none = none + 1 end
  end
end

done = function(summary, latency, requests)
  local e = summary.errors
  local hits, misses, nones = 0, 0, 0
  for _, thread in ipairs(threads) do
    hits = hits + thread:get("hit")
    misses = misses + thread:get("miss")
    nones = nones + thread:get("none")
  end
  if #threads > 0 then
    io.write(string.format('BENCH_HEADER_COUNTS {"hit":%d,"miss":%d,"none":%d}\n', hits, misses, nones))
  end
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
