/**
 * `pnpm bench` (from services/land): the land service's speed figures against the seeded Genesis City
 * set, each beside a baseline measured in the same run, against the speed targets:
 * - every cached read (bench/answers.ts: a parcel, the districts, the cached PNGs, the explorers' images, …)
 *   req/s vs a bare Fastify route answering the same bytes (≥ 0.85×), with the shared kit's own ceiling
 *   (createApp + a trivial route, same bytes) to show who costs what;
 * - GET /map over the whole grid vs JSON.stringify of the same objects, and its br/gzip answers;
 * - the service's RSS with the full index (and with its caches warm);
 * - the PNG figures of bench/png.ts (land-png), when that file is there (skip with --no-png);
 * - the /v2 figures of bench/atlas.ts (skip with --no-atlas);
 * - with LAND_BENCH_BASELINE=<another checkout, built>, every read against that build's service on the
 *   same database (bench/against.ts);
 * - the service's memory on the embedded default, first start and later, before and after PNG runs
 *   (bench/embedded.ts; skip with --no-embedded).
 * The service (dist/server.js when built, else src/server.ts through tsx) and the baselines
 * (bench/bare-server.ts, bench/kit-server.ts) each run in a process of their own on loopback; wrk is the
 * client, autocannon where wrk is not installed (bench/rounds.ts of @genesis/common). Results are printed and written to bench/results.md;
 * with BENCH_RUNS_JSON=<file>, every server's run of every round is written to that file as JSON.
 */
import type { ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { migrate } from '@genesis/common'
import { createTestDatabase } from '@genesis/common/testing'
import { GridIndex } from '../src/grid/grid-index.js'
import { migrationsDir, packageRoot } from '../src/paths.js'
import { seed } from '../src/seed.js'
import { cachedReads, recordAnswers } from './answers.js'
import {
  announced,
  CONNECTIONS,
  DURATION_S,
  freePort,
  LOAD_CLIENT_DESCRIPTION,
  load,
  NODE_FLAGS,
  pinning,
  rounds,
  roundsOverReads,
  SERVER_CORE,
  start,
  type Target,
  WARMUP_S,
  waitFor,
} from './harness.js'

// Knobs for a longer run on a quiet machine: BENCH_ROUNDS, BENCH_DURATION_S (seconds per run).
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9)
const RUN_S = Number(process.env.BENCH_DURATION_S ?? DURATION_S)
const TARGET = 0.85
const benchDir = fileURLToPath(new URL('.', import.meta.url))

async function timed(url: string, headers: Record<string, string> = {}) {
  const started = performance.now()
  const response = await fetch(url, { headers })
  await response.arrayBuffer()
  return performance.now() - started
}

async function memory(serviceUrl: string) {
  const text = await (await fetch(`${serviceUrl}/metrics`)).text()
  const metric = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN)
  return { rss: metric('process_resident_memory_bytes'), heap: metric('nodejs_heap_size_used_bytes') }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`
const n0 = (n: number) => n.toFixed(0)
const x2 = (n: number) => `${n.toFixed(2)}×`
const us = (n: number) => `${n.toFixed(1)} µs`
const pct = (n: number) => `${(n * 100).toFixed(0)} %`
const list = (values: number[]) => values.map((v) => v.toFixed(2)).join(', ')
const verdict = (pass: boolean) => (pass ? 'pass' : '**FAIL**')

async function main() {
  const lines: string[] = []
  const out = (line = '') => {
    lines.push(line)
    console.log(line)
  }
  const cpu = cpus()
  const startLoad = loadavg().map((l) => l.toFixed(1))

  const db = await createTestDatabase()
  const tmp = mkdtempSync(join(tmpdir(), 'land-bench-'))
  const children: ChildProcess[] = []
  const grid = new GridIndex(db.sql)
  try {
    await migrate(db.sql, migrationsDir)
    let started = performance.now()
    const summary = await seed(db.sql)
    const seedMs = performance.now() - started
    started = performance.now()
    await grid.start()
    const indexMs = performance.now() - started

    const built = existsSync(join(packageRoot, 'dist/server.js'))
    const serviceArgs = [
      ...NODE_FLAGS,
      ...(built ? ['dist/server.js'] : ['--import', 'tsx', 'src/server.ts']),
    ]
    const port = await freePort()
    // Request logs at warn, on the service and the kit ceiling alike (the bare baseline has no logger).
    const env = { ...process.env, LOG_LEVEL: 'warn' }
    const service = start(serviceArgs, {
      ...env,
      DATABASE_URL: db.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LAND_AUTO_SEED: 'never',
    })
    children.push(service)
    const serviceUrl = `http://127.0.0.1:${port}`
    await waitFor(`${serviceUrl}/health/ready`)
    const ready = await memory(serviceUrl)
    // The server pre-serialises the whole grid in the background after each build; let it finish.
    await new Promise((resolve) => setTimeout(resolve, 8000))
    const prewarmed = await memory(serviceUrl)

    // The bytes the baselines answer with, taken from the service itself (bench/answers.ts).
    const reads = await cachedReads(serviceUrl)
    const answers = await recordAnswers(serviceUrl, reads, tmp)
    const wholeUrl = `${serviceUrl}/map?nw=-150,150&se=150,-150`
    const coldMapMs = await timed(wholeUrl)
    const coldBrMs = await timed(wholeUrl, { 'accept-encoding': 'br' })
    const coldGzipMs = await timed(wholeUrl, { 'accept-encoding': 'gzip' })
    const map = Buffer.from(await (await fetch(wholeUrl)).arrayBuffer())
    const parcelCount = (JSON.parse(map.toString()) as { data: { assets: { parcels: unknown[] } } }).data
      .assets.parcels.length
    writeFileSync(join(tmp, 'map.json'), map)

    const bare = start([...NODE_FLAGS, '--import', 'tsx', join(benchDir, 'bare-server.ts'), tmp], env)
    const kit = start([...NODE_FLAGS, '--import', 'tsx', join(benchDir, 'kit-server.ts'), tmp, db.url], env)
    children.push(bare, kit)
    const [bareUrl, kitUrl] = await Promise.all([announced(bare), announced(kit)])
    if (!Buffer.from(await (await fetch(`${bareUrl}/map`)).arrayBuffer()).equals(map)) {
      throw new Error('the baseline /map differs from the service answer')
    }

    const at = (child: ChildProcess, url: string): Target => ({ url, pid: child.pid ?? 0 })
    // Unmeasured load first, the same for every server: the service takes several seconds of traffic
    // before its per-request cost settles (runs measured cold rose from 0.44 to 0.79 of bare over the rounds).
    for (const { path } of reads)
      for (const [child, url] of [
        [service, serviceUrl],
        [kit, kitUrl],
        [bare, bareUrl],
      ] as const)
        await load(at(child, `${url}${path}`), { duration: WARMUP_S })
    // Every read in every round (rounds.ts, roundsOverReads): a drift over the run reaches all reads alike.
    const servers = (path: string) => ({
      service: at(service, `${serviceUrl}${path}`),
      kit: at(kit, `${kitUrl}${path}`),
      bare: at(bare, `${bareUrl}${path}`),
    })
    const byPath = await roundsOverReads(
      Object.fromEntries(answers.map(({ path }) => [path, servers(path)])),
      ROUNDS,
      { duration: RUN_S },
    )
    const readRuns = answers.map((answer) => ({ ...answer, runs: byPath[answer.path]! }))
    // Every run of every round, for a look at how each server drifts over the rounds.
    if (process.env.BENCH_RUNS_JSON) {
      const raw = Object.fromEntries(readRuns.map(({ path, runs: r }) => [path, r.runs]))
      writeFileSync(process.env.BENCH_RUNS_JSON, JSON.stringify(raw, null, 1))
    }
    const mapOptions = { duration: 5, connections: 2 }
    const MAP_ROUNDS = 3
    const mapRuns = await rounds(
      { service: at(service, wholeUrl), bare: at(bare, `${bareUrl}/map`) },
      MAP_ROUNDS,
      mapOptions,
    )
    const br = await load(at(service, wholeUrl), { ...mapOptions, headers: { 'accept-encoding': 'br' } })
    const gzip = await load(at(service, wholeUrl), { ...mapOptions, headers: { 'accept-encoding': 'gzip' } })
    const warm = await memory(serviceUrl)

    out('# Land service benchmark (bench/run.ts)')
    out()
    out(`Recorded ${new Date().toISOString()} by \`pnpm bench\` (services/land).`)
    out()
    out(
      `Machine: ${cpu.length} × ${cpu[0]?.model.trim() ?? 'cpu'}, ${mb(totalmem())}, Node ${process.version}; ` +
        `load average ${startLoad.join(' / ')} when the run started (the cores are shared with other work, so figures vary from run to run).`,
    )
    out(
      `Data: the seeded Genesis City set (${summary.parcels} parcels, ${summary.districts} districts, ${summary.estates} estates, ` +
        `${summary.publications} publications, ${summary.contributions} contributions) on PostgreSQL; seed ${(seedMs / 1000).toFixed(1)} s, ` +
        `index build ${n0(indexMs)} ms.`,
    )
    out(
      `Processes: the service \`node ${serviceArgs.join(' ')}\`; the bare baseline (bench/bare-server.ts: Fastify, no plugins, no logger); ` +
        `the kit ceiling (bench/kit-server.ts: createApp of @genesis/common as the service uses it). Both route each path as the service does and answer ` +
        `with the service's answer: its body and its own headers (type, ETag, Cache-Control, Last-Modified, Vary), not the kit's (X-Request-Id, CORS). ` +
        `LOG_LEVEL=warn. ${pinning ? `Client pinned to core 0, servers to core ${SERVER_CORE} (taskset). ` : ''}Client: ${LOAD_CLIENT_DESCRIPTION}, ${CONNECTIONS} connections, ${RUN_S} s per run, ${ROUNDS} rounds, each running every small read on every server, the order rotating ` +
        `(whole-grid map: ${mapOptions.connections} connections, ${mapOptions.duration} s, ${MAP_ROUNDS} rounds). Ratios are medians of per-round ratios. ` +
        `CPU per request is the server process's user + system time (/proc) over the requests it answered: on a busy machine the client ` +
        `and other work cap req/s, while CPU per request is what sets a server's capacity.`,
    )
    out()
    out('| Figure | Service | Baseline (same run) | Ratio | Target |')
    out('|---|---|---|---|---|')
    for (const { path, runs: r, bytes } of readRuns) {
      out(
        `| cached GET ${path} (${bytes} B), req/s | ${n0(r.rps('service'))} | bare Fastify, same route and answer: ${n0(r.rps('bare'))} | ${x2(r.ratio('service', 'bare'))} | ≥ ${TARGET}× ${verdict(r.ratio('service', 'bare') >= TARGET)} |`,
      )
      out(
        `| cached GET ${path}, server CPU per request | ${us(r.cpu('service'))} | ${us(r.cpu('bare'))} | capacity ${x2(r.capacity('service', 'bare'))} | |`,
      )
    }
    const mapRatio = mapRuns.ratio('service', 'bare')
    out(
      `| GET /map, whole grid (${parcelCount} parcels, ${mb(map.length)}), req/s | ${mapRuns.rps('service').toFixed(1)} (p50 ${mapRuns.p50('service')} ms) | JSON.stringify of the same objects: ${mapRuns.rps('bare').toFixed(1)} (p50 ${mapRuns.p50('bare')} ms) | ${x2(mapRatio)} | > 1× ${verdict(mapRatio > 1)} |`,
    )
    for (const [encoding, run] of [
      ['br', br],
      ['gzip', gzip],
    ] as const) {
      const smaller = map.length / run.bytesPerRequest
      out(
        `| GET /map, whole grid, Accept-Encoding: ${encoding} | ${run.rps.toFixed(1)} req/s, ${mb(run.bytesPerRequest)} | identity: ${mb(map.length)} | ${smaller.toFixed(1)}× smaller | compressed ${verdict(smaller > 2)} |`,
      )
    }
    out()
    out('Who costs what on the small reads (req/s ratios, median of rounds):')
    out()
    out(
      '| Endpoint | kit ceiling / bare | service / kit ceiling | service / bare | CPU per request: bare, kit, service | server load: bare, kit, service |',
    )
    out('|---|---|---|---|---|---|')
    for (const { path, runs: r } of readRuns) {
      out(
        `| ${path} | ${x2(r.ratio('kit', 'bare'))} | ${x2(r.ratio('service', 'kit'))} | ${x2(r.ratio('service', 'bare'))} | ${us(r.cpu('bare'))}, ${us(r.cpu('kit'))}, ${us(r.cpu('service'))} | ${pct(r.serverLoad('bare'))}, ${pct(r.serverLoad('kit'))}, ${pct(r.serverLoad('service'))} |`,
      )
    }
    out()
    out(
      "Server load: the server process's CPU time over the run's time; near 100 % the server sets the pace, well under it the client does.",
    )
    out(
      `Per-round service / bare: ${readRuns.map(({ path, runs }) => `${path} ${list(runs.ratios('service', 'bare'))}`).join('; ')}; /map ${list(mapRuns.ratios('service', 'bare'))}.`,
    )
    out(
      `First whole-grid /map requests once the background pre-serialisation is done: identity ${n0(coldMapMs)} ms, br ${n0(coldBrMs)} ms, ` +
        `gzip ${n0(coldGzipMs)} ms (one client, loopback; each encoding is made once per data version, then served from memory).`,
    )
    const failures =
      readRuns.reduce((sum, { runs }) => sum + runs.errors('service'), 0) +
      mapRuns.errors('service') +
      br.errors +
      gzip.errors
    out(`Failed or non-2xx requests to the service: ${failures}.`)
    out()
    out('| Memory of the service | RSS | V8 heap used |')
    out('|---|---|---|')
    out(`| Ready: full index built, nothing served yet | ${mb(ready.rss)} | ${mb(ready.heap)} |`)
    out(
      `| Pre-serialised: every parcel's JSON and the whole-grid /map (identity, gzip, br) cached | ${mb(prewarmed.rss)} | ${mb(prewarmed.heap)} |`,
    )
    out(`| After the runs | ${mb(warm.rss)} | ${mb(warm.heap)} |`)

    if (existsSync(join(benchDir, 'png.ts')) && !process.argv.includes('--no-png')) {
      const png = await import('./png.js')
      out()
      out('## PNG maps (bench/png.ts, against the same running service)')
      out()
      out(png.formatPngBench(await png.runPngBench({ baseUrl: serviceUrl, grid, bareUrl })))
      const afterPng = await memory(serviceUrl)
      out()
      out(`Service RSS after the PNG runs: ${mb(afterPng.rss)} (V8 heap used ${mb(afterPng.heap)}).`)
    }
    if (!process.argv.includes('--no-atlas')) {
      const atlas = await import('./atlas.js')
      out()
      out('## Atlas surface (bench/atlas.ts, against the same running service)')
      out()
      out(atlas.formatAtlasBench(await atlas.runAtlasBench({ baseUrl: serviceUrl, grid, sql: db.sql })))
    }
    // LAND_BENCH_BASELINE=<another checkout, built>: every read of this code against that build's, both
    // started anew on the same database (bench/against.ts).
    const baselineRoot = process.env.LAND_BENCH_BASELINE
    if (baselineRoot) {
      const against = await import('./against.js')
      const result = await against.compareWith(baselineRoot, db.url)
      out()
      out(`## Against ${result.baseline} (bench/against.ts, the same database)`)
      out()
      out(against.formatAgainstBaseline(result))
    }
    if (!process.argv.includes('--no-embedded')) {
      const embedded = await import('./embedded.js')
      out()
      out('## Memory on the embedded default (bench/embedded.ts)')
      out()
      out(embedded.formatEmbeddedMemory(await embedded.runEmbeddedMemory(serviceArgs, packageRoot)))
    }
    writeFileSync(join(benchDir, 'results.md'), `${lines.join('\n')}\n`)
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM')
    await grid.close()
    await db.drop()
    rmSync(tmp, { recursive: true, force: true })
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err)
    process.exit(1)
  },
)
