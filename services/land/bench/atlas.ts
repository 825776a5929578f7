/**
 * Figures of the atlas-compatible surface (/v2):
 * - GET /v2/tiles, whole grid, cached, br: req/s against a bare Fastify route answering the same br bytes
 *   (target ≥ 0.8×);
 * - GET /v2/tiles?x1..y2 for a 40 × 40 rectangle never asked before (no cache): ms per request;
 * - when the grid changes, the time to prepare the next whole answer (tiles built and serialised, then
 *   compressed with br and gzip), measured in this process on the same grid;
 * - a client polling /v2/tiles/info once a second: how long its first poll after a change takes (the
 *   service builds the new atlas as soon as the grid changes, so the poll should not wait for it).
 *
 * `runAtlasBench` measures a service that is already listening (bench/run.ts calls it after its own runs;
 * skip with --no-atlas).
 */
import { get } from 'node:http'
import type { Sql } from '@genesis/common'
import { median } from '@genesis/common/testing'
import autocannon from 'autocannon'
import Fastify from 'fastify'
import { AtlasView } from '../src/atlas/atlas-view.js'
import type { GridIndex } from '../src/grid/grid-index.js'

export interface AtlasBenchOptions {
  baseUrl: string
  /** A grid index over the same data as the service (for the preparation figures). */
  grid: GridIndex
  /** The service's database: the polling figure changes a parcel's name in it. */
  sql: Sql
  rounds?: number
  durationS?: number
}

export interface AtlasBenchResult {
  wholeBytes: number
  brBytes: number
  service: number[]
  bare: number[]
  ratios: number[]
  rectangleMs: number[]
  prepareMs: number[]
  /** The first /v2/tiles/info a second after each change has reached the service's grid. */
  pollAfterChangeMs: number[]
  brMs: number[]
  gzipMs: number[]
}

async function rps(url: string, durationS: number): Promise<number> {
  const result = await autocannon({
    url,
    duration: durationS,
    connections: 10,
    headers: { 'accept-encoding': 'br' },
    workers: 1,
  })
  if (result.errors + result.non2xx > 0)
    throw new Error(`${url}: ${result.errors + result.non2xx} failed requests`)
  return result.requests.average
}

export async function runAtlasBench(options: AtlasBenchOptions): Promise<AtlasBenchResult> {
  const { baseUrl, grid } = options
  const rounds = options.rounds ?? 5
  const durationS = options.durationS ?? 3

  // The service's own br answer (the first request prepares it), served again by a bare Fastify.
  const whole = await fetch(`${baseUrl}/v2/tiles`, { headers: { 'accept-encoding': 'identity' } })
  const wholeBytes = (await whole.arrayBuffer()).byteLength
  const raw = await new Promise<Buffer>((resolve, reject) => {
    // fetch() would decode it: node:http hands over the bytes as sent.
    get(`${baseUrl}/v2/tiles`, { headers: { 'accept-encoding': 'br' } }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => resolve(Buffer.concat(chunks)))
      response.on('error', reject)
    }).on('error', reject)
  })
  const bare = Fastify({ logger: false })
  bare.get('/v2/tiles', (_request, reply) => {
    reply.type('application/json; charset=utf-8').header('content-encoding', 'br').send(raw)
  })
  const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 })

  const result: AtlasBenchResult = {
    wholeBytes,
    brBytes: raw.length,
    service: [],
    bare: [],
    ratios: [],
    rectangleMs: [],
    prepareMs: [],
    pollAfterChangeMs: [],
    brMs: [],
    gzipMs: [],
  }
  try {
    for (let round = 0; round < rounds; round++) {
      // Alternating order: on a shared machine, neighbouring runs see about the same load.
      const pair =
        round % 2 === 0
          ? [await rps(`${baseUrl}/v2/tiles`, durationS), await rps(`${bareUrl}/v2/tiles`, durationS)]
          : [
              await rps(`${bareUrl}/v2/tiles`, durationS),
              await rps(`${baseUrl}/v2/tiles`, durationS),
            ].reverse()
      result.service.push(pair[0]!)
      result.bare.push(pair[1]!)
      result.ratios.push(pair[0]! / pair[1]!)
    }
  } finally {
    await bare.close()
  }

  // Rectangles nobody asked for before: each is built, serialised and sent.
  for (let i = 0; i < 60; i++) {
    const x = -150 + ((i * 37) % 261)
    const y = -150 + ((i * 53) % 261)
    const started = performance.now()
    const response = await fetch(
      `${baseUrl}/v2/tiles?x1=${x}&y1=${y}&x2=${x + 39}&y2=${y + 39}&include=x,y,type,owner,price,top,left,topLeft`,
    )
    await response.arrayBuffer()
    result.rectangleMs.push(performance.now() - started)
  }

  // A poller of /v2/tiles/info, once a second, while the grid changes (one parcel renamed each time).
  const timedGet = async (path: string) => {
    const started = performance.now()
    const response = await fetch(`${baseUrl}${path}`)
    const body = await response.text()
    return { ms: performance.now() - started, body }
  }
  await timedGet('/v2/tiles/info')
  for (let i = 0; i < 5; i++) {
    const name = `renamed ${Date.now()}`
    await options.sql`update parcels set name = ${name} where x = 10 and y = -10`
    for (const deadline = Date.now() + 30_000; ; ) {
      if ((await timedGet('/parcels/10/-10')).body.includes(name)) break
      if (Date.now() > deadline) throw new Error('the service never showed the renamed parcel')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await new Promise((resolve) => setTimeout(resolve, 1000))
    result.pollAfterChangeMs.push((await timedGet('/v2/tiles/info')).ms)
  }

  const view = grid.current()
  for (let i = 0; i < 5; i++) {
    const started = performance.now()
    const atlas = await AtlasView.build(view, undefined)
    result.prepareMs.push(performance.now() - started)
    const body = await atlas.body('v2', {})
    let t = performance.now()
    await body.encoded('br')
    result.brMs.push(performance.now() - t)
    t = performance.now()
    await body.encoded('gzip')
    result.gzipMs.push(performance.now() - t)
  }
  return result
}

export function formatAtlasBench(r: AtlasBenchResult): string {
  const ratio = median(r.ratios)
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`
  return [
    '| Atlas surface | Measured | Baseline | Ratio | Target |',
    '|---|---|---|---|---|',
    `| GET /v2/tiles whole, cached, br (${mib(r.brBytes)}; ${mib(r.wholeBytes)} identity), req/s | ${median(r.service).toFixed(1)} | bare Fastify, same bytes: ${median(r.bare).toFixed(1)} | ${ratio.toFixed(2)}× (rounds: ${r.ratios.map((v) => v.toFixed(2)).join(', ')}) | ≥ 0.8× ${ratio >= 0.8 ? 'pass' : '**FAIL**'} |`,
    `| GET /v2/tiles 40 × 40, uncached, ms per request (median of ${r.rectangleMs.length}) | ${median(r.rectangleMs).toFixed(1)} | | | |`,
    `| Grid changed: prepare the whole answer (tiles, JSON, version), ms | ${median(r.prepareMs).toFixed(0)} | | | |`,
    `| then compress it once: br, gzip, ms | ${median(r.brMs).toFixed(0)}, ${median(r.gzipMs).toFixed(0)} | | | |`,
    `| Polling /v2/tiles/info once a second: the first poll after a change, ms (median of ${r.pollAfterChangeMs.length}) | ${median(r.pollAfterChangeMs).toFixed(1)} | without building ahead: the preparation above | | |`,
  ].join('\n')
}
