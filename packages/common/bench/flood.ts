// One address flooding invalid long chains (10 links, each a new chain, so nothing is refused from memory)
// at 64 requests in flight, while another user's signed request is timed; beside the same request with no
// flood (same run). Both behind a gateway (TRUST_PROXY=1, X-Forwarded-For), as in a deployment. Kit
// defaults: 4 verifications at once, a queue of 256, an eighth of it per caller.
import { performance } from 'node:perf_hooks'
import { createApp, ok } from '../src/index.js'
import {
  costlyInvalidHeaders,
  createIdentity,
  createTestDatabase,
  signedHeaders,
} from '../src/testing/index.js'

const IN_FLIGHT = 64
const DURATION_MS = 10_000
const db = await createTestDatabase()
const app = await createApp({ name: 'bench', version: '0', sql: db.sql, trustProxy: 1 })
app.get('/v1/things', { config: { auth: 'signed' } }, async (request) => ok(request.signer))
const base = await app.listen({ port: 0, host: '127.0.0.1' })
const alice = await createIdentity()

console.log('making the flood’s chains…')
const chains = Array.from({ length: 6000 }, (_, i) =>
  costlyInvalidHeaders('GET', '/v1/things', { timestamp: Date.now() + i }),
)

async function aliceRequests(ms: number, whileFlooding = false) {
  const times: number[] = []
  const until = performance.now() + ms
  while (performance.now() < until && !(whileFlooding && next >= chains.length)) {
    const headers = signedHeaders(alice, 'GET', '/v1/things')
    const start = performance.now()
    const res = await fetch(`${base}/v1/things`, {
      headers: { ...headers, 'x-forwarded-for': '203.0.113.7' },
    })
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`alice's request answered ${res.status}`)
    times.push(performance.now() - start)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return times.sort((a, b) => a - b)
}
const at = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

let next = 0
const baseline = await aliceRequests(3000)
let flooding = true
const answers = new Map<number, number>()
const flood = Array.from({ length: IN_FLIGHT }, async () => {
  while (flooding && next < chains.length) {
    const res = await fetch(`${base}/v1/things`, {
      headers: { ...chains[next++]!, 'x-forwarded-for': '203.0.113.66' },
    })
    await res.arrayBuffer()
    answers.set(res.status, (answers.get(res.status) ?? 0) + 1)
  }
})
const floodStarted = performance.now()
const flooded = await aliceRequests(DURATION_MS, true)
const floodMs = performance.now() - floodStarted
flooding = false
await Promise.all(flood)

const row = (name: string, sorted: number[]) =>
  console.log(
    `  ${name.padEnd(50)} p50 ${at(sorted, 0.5).toFixed(1).padStart(6)} ms  p95 ${at(sorted, 0.95).toFixed(1).padStart(6)} ms  (${sorted.length} requests)`,
  )
console.log("another user's signed GET, while one address floods invalid 10-link chains:")
row('baseline: no flood', baseline)
row(`${IN_FLIGHT} invalid long chains in flight from one address`, flooded)
console.log(
  `  the flood was answered (${(floodMs / 1000).toFixed(1)} s): ${[...answers].map(([s, n]) => `${n} × ${s}`).join(', ')}`,
)
console.log('  target: p95 under 200 ms with the flood')
await app.close()
await db.drop()
