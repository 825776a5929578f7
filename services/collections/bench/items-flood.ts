/**
 * `pnpm bench:items-flood`: a collection at its bound (5,000 items) listed by 40 callers at once, every page
 * in turn, for 15 s, while /health/live is probed: the process's memory (RSS, sampled) and the probe's
 * latency, beside the same figures with nobody listing (same run). Kubernetes gives a replica 512 MiB.
 */
import { randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { createIdentity, signedHeaders } from '@genesis/common/testing'
import { MAX_ITEMS_PAGE, MAX_ITEMS_PER_COLLECTION } from '@genesis/wire/collections'
import { startBenchService } from './service.js'

const CALLERS = 40
const DURATION_MS = 15_000
const MiB = 1024 * 1024

const service = await startBenchService()
const { db } = service
const base = service.url

const owner = await createIdentity()
const id = crypto.randomUUID()
const headers = (method: 'PUT' | 'GET', path: string) =>
  signedHeaders(owner, method, path, { metadata: { nonce: randomBytes(8).toString('hex') } })
const put = `/v1/collections/${id}`
await fetch(`${base}${put}`, {
  method: 'PUT',
  headers: { ...headers('PUT', put), 'content-type': 'application/json' },
  body: JSON.stringify({ id, name: `Flood ${randomBytes(4).toString('hex')}` }),
})
await db.sql`
  insert into items (id, collection_id, name, type, content_hash)
  select gen_random_uuid(), ${id}, 'Item number ' || i, 'wearable', 'bafkrei' || repeat('a', 52)
  from generate_series(1, ${MAX_ITEMS_PER_COLLECTION}) as i`
const pages = Math.ceil(MAX_ITEMS_PER_COLLECTION / MAX_ITEMS_PAGE)

async function probe(ms: number, load: () => Promise<void>) {
  const running = load()
  const latencies: number[] = []
  let rssPeak = 0
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss)
  }, 20)
  const until = performance.now() + ms
  while (performance.now() < until) {
    const start = performance.now()
    await (await fetch(`${base}/health/live`)).arrayBuffer()
    latencies.push(performance.now() - start)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  clearInterval(sampler)
  await running
  latencies.sort((a, b) => a - b)
  return { max: latencies.at(-1)!, p95: latencies[Math.floor(latencies.length * 0.95)]!, rssPeak }
}

const idle = await probe(3000, async () => {})
let listing = true
const answers = new Map<number, number>()
let listed = 0
const flooded = await probe(DURATION_MS, async () => {
  setTimeout(() => {
    listing = false
  }, DURATION_MS)
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      for (let page = 1; listing; page = (page % pages) + 1) {
        const path = `/v1/collections/${id}/items`
        const res = await fetch(`${base}${path}?page=${page}`, { headers: headers('GET', path) })
        await res.arrayBuffer()
        answers.set(res.status, (answers.get(res.status) ?? 0) + 1)
        if (res.status === 200) listed++
      }
    }),
  )
})

const row = (name: string, r: Awaited<ReturnType<typeof probe>>) =>
  console.log(
    `  ${name.padEnd(46)} RSS peak ${(r.rssPeak / MiB).toFixed(0).padStart(4)} MiB   /health/live p95 ${r.p95.toFixed(1).padStart(6)} ms, max ${r.max.toFixed(1).padStart(6)} ms`,
  )
console.log(
  `a collection at its bound (${MAX_ITEMS_PER_COLLECTION} items, ${pages} pages of ${MAX_ITEMS_PAGE}), the service and the callers in one process:`,
)
row('baseline: nobody listing', idle)
row(`${CALLERS} callers listing every page`, flooded)
console.log(
  `  pages answered: ${[...answers].map(([s, n]) => `${n} × ${s}`).join(', ')} (${listed} pages of items)`,
)
console.log('  target: RSS inside the manifest limit (512 MiB) with room, liveness under 1 s')
await service.close()
