-- wrk's totals as one JSON line on stdout, read by bench/rounds.ts.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"bytes":%d,"socketErrors":%d,"httpErrors":%d,"p50Us":%d}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect + e.read + e.write + e.timeout, e.status, latency:percentile(50)))
end
