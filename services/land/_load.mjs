// probe: node _load.mjs <pid> <url> <secs>  -> req/s and server CPU µs per request
import autocannon from 'autocannon'
import { readFileSync } from 'node:fs'
const [pid, url, secs] = process.argv.slice(2)
const cpu = () => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10000 }
const c0 = cpu()
const r = await autocannon({ url, connections: 10, duration: Number(secs) })
const used = cpu() - c0
console.log(`${url} ${(r.requests.total / Number(secs)).toFixed(0)} req/s, ${(used / r.requests.total).toFixed(1)} µs CPU/req, non2xx ${r.non2xx}`)
