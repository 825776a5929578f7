/**
 * PNG map figures, against the speed targets:
 * - uncached GET /map.png (default 500×500) against drawing + encoding the same images with
 *   @napi-rs/canvas in this process (the same tile loop, no server): target ≤ 1.5×;
 * - cached GET /map.png requests/s against a bare Fastify route answering the same PNG bytes: target ≥ 0.85×.
 *
 * `runPngBench` measures a service that is already listening. Run alone (`node --import tsx bench/png.ts`),
 * this file seeds a throw-away database, starts the service on a loopback ephemeral port and records the
 * figures in bench/png-results.md; `--synthetic` uses a generated grid instead (no database needed).
 */
import { writeFileSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'
import { fileURLToPath } from 'node:url'
import { median } from '@genesis/common/testing'
import { IMAGE_DEFAULTS } from '@genesis/wire/land'
import autocannon from 'autocannon'
import Fastify from 'fastify'
import { cellIndex, GRID_MAX, GRID_MIN, GRID_SIZE } from '../src/domain/geometry.js'
import { TILE_DISTRICT, TILE_OWNED, TILE_PLAZA, TILE_ROAD, TILE_UNOWNED } from '../src/domain/tiles.js'
import { renderMapPng } from '../src/render/draw.js'
import type { MapSnapshot, MapSource } from '../src/render/types.js'

export interface PngBenchOptions {
  /** Where the service listens, e.g. http://127.0.0.1:40123 (routes at /map.png). */
  baseUrl: string
  /** The grid that service draws from. */
  grid: MapSource
  /** Uncached images rendered each way (default 40). */
  samples?: number
  /** Seconds of each autocannon run (default 3). */
  durationS?: number
  /** Alternating service/baseline pairs of autocannon runs (default 5). */
  rounds?: number
  connections?: number
  /**
   * A bare Fastify answering the same PNG bytes at `/map.png`, in a process of its own like the service
   * (bench/bare-server.ts); without it, one is started in this process, beside the load generator.
   */
  bareUrl?: string
}

export interface Timing {
  medianMs: number
  meanMs: number
  p90Ms: number
}

export interface PngBenchResult {
  uncached: {
    samples: number
    service: Timing
    bare: Timing
    /** service median / bare median; the target is ≤ 1.5. */
    ratio: number
    pass: boolean
    /** The HTTP round trip alone: sequential GETs of an image the service already holds. */
    cachedRoundTrip: Timing
  }
  cached: {
    pngBytes: number
    rounds: number
    /** Median requests/s over the rounds. */
    serviceRps: number
    bareRps: number
    /** Median of the per-round ratios service / bare (each pair measured back to back); the target is ≥ 0.85. */
    ratio: number
    /** Every round's ratio, for the record. */
    roundRatios: number[]
    pass: boolean
    serviceErrors: number
  }
}

const UNCACHED_TARGET = 1.5
const CACHED_TARGET = 0.85

function timing(ms: number[]): Timing {
  const sorted = [...ms].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
  return { medianMs: at(0.5), meanMs: ms.reduce((a, b) => a + b, 0) / ms.length, p90Ms: at(0.9) }
}

/** Distinct centres, never asked before in this process, so every service request misses the image cache. */
let centreSeed = Date.now() % 90_601
function freshCentres(n: number): Array<{ x: number; y: number }> {
  return Array.from({ length: n }, () => {
    centreSeed = (centreSeed + 7919) % (GRID_SIZE * GRID_SIZE)
    return { x: (centreSeed % GRID_SIZE) + GRID_MIN, y: Math.floor(centreSeed / GRID_SIZE) + GRID_MIN }
  })
}

async function fetchPng(url: string): Promise<Buffer> {
  const res = await fetch(url)
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${await res.text()}`)
  return Buffer.from(await res.arrayBuffer())
}

async function requestsPerSecond(url: string, durationS: number, connections: number) {
  // In a worker thread, so that the load generator does not share the service's event loop.
  const result = await autocannon({ url, connections, duration: durationS, pipelining: 1, workers: 1 })
  return { rps: result.requests.average, errors: result.errors + result.non2xx }
}

export async function runPngBench(options: PngBenchOptions): Promise<PngBenchResult> {
  const { baseUrl, grid } = options
  const samples = options.samples ?? 40
  const durationS = options.durationS ?? 3
  const rounds = options.rounds ?? 5
  const connections = options.connections ?? 10
  const defaults = {
    width: IMAGE_DEFAULTS.width,
    height: IMAGE_DEFAULTS.height,
    size: IMAGE_DEFAULTS.size,
    publications: false,
    selected: [],
  }

  // Warm both paths (JIT, canvas, sockets) before timing.
  for (const center of freshCentres(5)) {
    await renderMapPng(grid.snapshot(), { ...defaults, center })
    await fetchPng(`${baseUrl}/map.png?center=${center.x},${center.y}`)
  }

  // Interleaved, so that load from anything else on the machine falls on both sides alike, and in
  // alternating order, since whichever runs second pays for the garbage of the first.
  const serviceMs: number[] = []
  const bareMs: number[] = []
  const timed = async (into: number[], work: () => Promise<unknown>) => {
    const started = performance.now()
    await work()
    into.push(performance.now() - started)
  }
  for (const [i, center] of freshCentres(samples).entries()) {
    const renderBare = () => timed(bareMs, () => renderMapPng(grid.snapshot(), { ...defaults, center }))
    const askService = () =>
      timed(serviceMs, () => fetchPng(`${baseUrl}/map.png?center=${center.x},${center.y}`))
    if (i % 2 === 0) {
      await renderBare()
      await askService()
    } else {
      await askService()
      await renderBare()
    }
  }
  const service = timing(serviceMs)
  const bare = timing(bareMs)
  const uncachedRatio = service.medianMs / bare.medianMs

  // Cached: the default image, asked once so that the service holds it, then served from memory.
  const png = await fetchPng(`${baseUrl}/map.png`)
  const roundTripMs: number[] = []
  for (let i = 0; i < samples; i++) {
    const started = performance.now()
    await fetchPng(`${baseUrl}/map.png`)
    roundTripMs.push(performance.now() - started)
  }
  const ceiling = options.bareUrl === undefined ? Fastify({ logger: false }) : undefined
  ceiling?.get('/map.png', (_request, reply) => reply.type('image/png').send(png))
  const ceilingUrl = options.bareUrl ?? (await ceiling?.listen({ port: 0, host: '127.0.0.1' }))
  if (!(await fetchPng(`${ceilingUrl}/map.png`)).equals(png)) {
    throw new Error('the baseline /map.png differs from the service answer')
  }
  try {
    // Short alternating pairs (the order flipping every round): on a shared machine the load changes
    // from second to second, and a pair measured back to back sees about the same load.
    const serviceRps: number[] = []
    const bareRps: number[] = []
    const roundRatios: number[] = []
    let serviceErrors = 0
    for (let round = 0; round < rounds; round++) {
      const runService = () => requestsPerSecond(`${baseUrl}/map.png`, durationS, connections)
      const runBare = () => requestsPerSecond(`${ceilingUrl}/map.png`, durationS, connections)
      const serviceFirst = round % 2 === 0
      const first = await (serviceFirst ? runService() : runBare())
      const second = await (serviceFirst ? runBare() : runService())
      const [serviceRun, bareRun] = serviceFirst ? [first, second] : [second, first]
      serviceRps.push(serviceRun.rps)
      bareRps.push(bareRun.rps)
      roundRatios.push(serviceRun.rps / bareRun.rps)
      serviceErrors += serviceRun.errors
    }
    const cachedRatio = median(roundRatios)
    return {
      uncached: {
        samples,
        service,
        bare,
        ratio: uncachedRatio,
        pass: uncachedRatio <= UNCACHED_TARGET,
        cachedRoundTrip: timing(roundTripMs),
      },
      cached: {
        pngBytes: png.length,
        rounds,
        serviceRps: median(serviceRps),
        bareRps: median(bareRps),
        ratio: cachedRatio,
        roundRatios,
        pass: cachedRatio >= CACHED_TARGET,
        serviceErrors,
      },
    }
  } finally {
    await ceiling?.close()
  }
}

const ms = (n: number) => `${n.toFixed(2)} ms`

/** The figures as a Markdown table, for BENCHMARKS.md and png-results.md. */
export function formatPngBench(result: PngBenchResult): string {
  const { uncached, cached } = result
  const verdict = (pass: boolean) => (pass ? 'pass' : '**FAIL**')
  return [
    '| Figure | Service | Baseline (same run) | Ratio | Target |',
    '|---|---|---|---|---|',
    `| GET /map.png uncached, 500×500, median of ${uncached.samples} (mean, p90) | ${ms(uncached.service.medianMs)} (${ms(uncached.service.meanMs)}, ${ms(uncached.service.p90Ms)}) | draw + encode in-process: ${ms(uncached.bare.medianMs)} (${ms(uncached.bare.meanMs)}, ${ms(uncached.bare.p90Ms)}) | ${uncached.ratio.toFixed(2)}× | ≤ ${UNCACHED_TARGET}× ${verdict(uncached.pass)} |`,
    `| GET /map.png cached, 500×500 (${cached.pngBytes} bytes), req/s, median of ${cached.rounds} alternating rounds | ${cached.serviceRps.toFixed(0)} | bare Fastify, same bytes: ${cached.bareRps.toFixed(0)} | ${cached.ratio.toFixed(2)}× | ≥ ${CACHED_TARGET}× ${verdict(cached.pass)} |`,
    '',
    `For scale: the HTTP round trip alone (GET of the cached image, same client) takes ${ms(uncached.cachedRoundTrip.medianMs)} (median).`,
    `Cached ratio of each round (service / bare, measured back to back): ${cached.roundRatios.map((r) => r.toFixed(2)).join(', ')}.`,
    `Non-2xx or failed requests during the service runs: ${cached.serviceErrors}.`,
  ].join('\n')
}

/**
 * A deterministic stand-in for Genesis City when no seeded data is at hand: roads every 12 parcels,
 * a central plaza, a few dozen districts, a few hundred estates, ~5% unowned, some parcels on sale.
 */
export function syntheticGrid(): MapSource {
  let seed = 42
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
  const cells = GRID_SIZE * GRID_SIZE
  const kind = new Uint8Array(cells)
  const group = new Int32Array(cells)
  const onSale = new Uint8Array(cells)
  const estates = new Map<string, Array<{ x: number; y: number }>>()
  const each = (
    x0: number,
    y0: number,
    w: number,
    h: number,
    f: (i: number, x: number, y: number) => void,
  ) => {
    for (let y = y0; y < y0 + h && y <= GRID_MAX; y++)
      for (let x = x0; x < x0 + w && x <= GRID_MAX; x++) f(cellIndex(x, y), x, y)
  }
  each(GRID_MIN, GRID_MIN, GRID_SIZE, GRID_SIZE, (i, x, y) => {
    if (x % 12 === 0 || y % 12 === 0) {
      kind[i] = TILE_ROAD
      group[i] = 1
    } else {
      kind[i] = random() < 0.05 ? TILE_UNOWNED : TILE_OWNED
      onSale[i] = kind[i] === TILE_OWNED && random() < 0.04 ? 1 : 0
    }
  })
  each(-9, -9, 19, 19, (i) => {
    kind[i] = TILE_PLAZA
    group[i] = 2
    onSale[i] = 0
  })
  for (let d = 0; d < 30; d++) {
    const x0 = Math.floor(random() * 280) - 140
    const y0 = Math.floor(random() * 280) - 140
    each(x0, y0, 5 + Math.floor(random() * 12), 5 + Math.floor(random() * 12), (i) => {
      if (kind[i] === TILE_ROAD || kind[i] === TILE_PLAZA) return
      kind[i] = TILE_DISTRICT
      group[i] = 100 + d
      onSale[i] = 0
    })
  }
  for (let e = 0; e < 400; e++) {
    const parcels: Array<{ x: number; y: number }> = []
    const sale = random() < 0.15 ? 1 : 0
    const x0 = Math.floor(random() * 290) - 145
    const y0 = Math.floor(random() * 290) - 145
    each(x0, y0, 1 + Math.floor(random() * 6), 1 + Math.floor(random() * 6), (i, x, y) => {
      if (kind[i] === TILE_ROAD || kind[i] === TILE_PLAZA || kind[i] === TILE_DISTRICT || group[i] !== 0)
        return
      kind[i] = TILE_OWNED
      group[i] = 1000 + e
      onSale[i] = sale
      parcels.push({ x, y })
    })
    if (parcels.length > 0) estates.set(String(e + 1), parcels)
  }
  const snapshot: MapSnapshot = { version: 'synthetic-1', kind, group, onSale }
  return { snapshot: () => snapshot, estateParcels: (id) => estates.get(id) }
}

interface BenchTarget {
  baseUrl: string
  grid: MapSource
  /** What the grid is, for the record. */
  data: string
  close(): Promise<void>
}

/**
 * The land service as it runs (buildApp: the kit, every land route, the grid index) over the seeded
 * Genesis City demo set, in a throw-away database on the real PostgreSQL.
 */
async function startSeededService(): Promise<BenchTarget> {
  const { migrate } = await import('@genesis/common')
  const { createTestDatabase } = await import('@genesis/common/testing')
  const { buildApp } = await import('../src/app.js')
  const { loadConfig } = await import('../src/config.js')
  const { GridIndex } = await import('../src/grid/grid-index.js')
  const { migrationsDir } = await import('../src/paths.js')
  const { seed } = await import('../src/seed.js')
  const db = await createTestDatabase()
  try {
    await migrate(db.sql, migrationsDir)
    const summary = await seed(db.sql)
    const grid = new GridIndex(db.sql)
    await grid.refresh()
    const app = await buildApp({ sql: db.sql, config: loadConfig({}), context: { grid } })
    const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
    return {
      baseUrl,
      grid,
      data:
        `the seeded Genesis City demo set (src/seed.ts: ${summary.parcels} parcels, ${summary.districts} districts, ` +
        `${summary.estates} estates, ${summary.publications} publications) served by buildApp with its grid index, ` +
        `${db.embedded ? 'on an embedded PGlite' : 'on PostgreSQL'}`,
      close: async () => {
        await app.close()
        await grid.close()
        await db.drop()
      },
    }
  } catch (error) {
    await db.drop()
    throw error
  }
}

/** The PNG routes on the kit's app (the same plugins as the service), over the synthetic grid. */
async function startSyntheticService(): Promise<BenchTarget> {
  const { createApp, createSql } = await import('@genesis/common')
  const { mapImageRoutes } = await import('../src/routes/map-images.js')
  const { DEFAULT_IMAGE_CACHE_BYTES, MapImageRenderer } = await import('../src/render/image-renderer.js')
  // The kit wants a database client for /health; nothing here queries it, so it never connects.
  const sql = createSql(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', { max: 1 })
  const grid = syntheticGrid()
  const app = await createApp({ name: 'land-png-bench', version: '0.0.0', sql })
  await app.register(mapImageRoutes, {
    ctx: { map: grid, images: new MapImageRenderer(DEFAULT_IMAGE_CACHE_BYTES) },
  })
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
  return {
    baseUrl,
    grid,
    data: 'the synthetic grid of bench/png.ts (roads every 12 parcels, a central plaza, 30 districts, ~400 estates, ~5% unowned, ~4% on sale) on the kit app with only the PNG routes',
    close: async () => {
      await app.close()
      await sql.end({ timeout: 1 })
    },
  }
}

/** `node --import tsx bench/png.ts [--synthetic]`: the seeded data set by default. */
async function main() {
  const synthetic = process.argv.includes('--synthetic')
  const loadAtStart = loadavg()
  const target = await (synthetic ? startSyntheticService() : startSeededService())
  try {
    const result = await runPngBench({ baseUrl: target.baseUrl, grid: target.grid })
    const table = formatPngBench(result)
    const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`
    const report = [
      '# PNG map benchmark',
      '',
      `Command: \`node --import tsx bench/png.ts${synthetic ? ' --synthetic' : ''}\` (from services/land). Recorded ${new Date().toISOString()}.`,
      '',
      `Machine: ${machine}; load average ${loadAtStart
        .map((n) => n.toFixed(1))
        .join(
          ' / ',
        )} when the run started (the cores are shared with other work, so figures vary from run to run).`,
      'Uncached times are sequential requests from `fetch` in the same process; req/s come from autocannon (10 connections, in a worker thread).',
      '',
      `Data: ${target.data}.`,
      '',
      table,
      '',
    ].join('\n')
    console.log(report)
    writeFileSync(new URL('./png-results.md', import.meta.url), report)
  } finally {
    await target.close()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error)
    process.exit(1)
  })
}
