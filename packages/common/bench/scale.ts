/**
 * The scale bench's shared part (each service's bench/scale.ts brings its seed, rows and plans): a
 * PostgreSQL server, two databases of the same schema (an almost empty one and one at production volume),
 * the real service process on each, and per row the same requests against both in interleaved rounds.
 *
 * Per HTTP row: req/s and p99 on each database, their ratios (median of the per-round ratios), the
 * PostgreSQL CPU per request (/proc: the backends of that database and the WAL writer, checkpointer and
 * background writer) and, where pg_stat_statements is loaded, PostgreSQL's execution time per request.
 * Per job row: the job's own code, timed on each database (median of its repetitions). Then
 * EXPLAIN (ANALYZE, BUFFERS) of the hot statements on the full database, with the service's settings.
 */
import { type ChildProcess, fork } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { cpus, loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import autocannon from 'autocannon'
import { createSql, type SessionSettings, type Sql } from '../src/db/database.js'
import { migrate } from '../src/db/migrate.js'
import { imageRuntime } from '../src/testing/image.js'
import { type PrivateCluster, startPrivateCluster } from '../src/testing/private-cluster.js'
import { median } from '../src/testing/stats.js'

export const log = (line = '') => process.stdout.write(`${line}\n`)

const image = imageRuntime()

/** The bench's command line: `--name=value` or `--flag`; env `BENCH_<NAME>` gives the default. */
export function option(name: string): string | undefined {
  const prefix = `--${name}=`
  const arg = process.argv.find((a) => a === `--${name}` || a.startsWith(prefix))
  if (arg !== undefined) return arg === `--${name}` ? 'true' : arg.slice(prefix.length)
  return process.env[`BENCH_${name.toUpperCase().replaceAll('-', '_')}`]
}

export const numberOption = (name: string, fallback: number) => {
  const value = option(name)
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name}=${value}: expected a number`)
  return n
}

export const loadAverage = () => loadavg()[0]!.toFixed(1)

/** CPU seconds (user + system) so far of a process, from /proc (Linux; 0 elsewhere or once it is gone). */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

export interface ScaleServer {
  url: string
  /** pg_stat_statements is loaded (shared_preload_libraries) and can be created in the bench's databases. */
  statements: boolean
  describe: string
  close(): Promise<void>
}

/**
 * The server the bench runs on: `--server=<url>` (an existing one), else a private cluster of its own
 * (initdb; fsync on, as deployed) with pg_stat_statements preloaded, else DATABASE_URL or 127.0.0.1:5432.
 */
export async function openScaleServer(): Promise<ScaleServer> {
  const given = option('server')
  let cluster: PrivateCluster | undefined
  if (given === undefined) {
    cluster = await startPrivateCluster({
      durable: true,
      settings: {
        shared_preload_libraries: 'pg_stat_statements',
        max_connections: '200',
        // a deployment sizes it to its data (the default, 128 MB, is a tenth of the claims tables at volume)
        shared_buffers: option('shared-buffers') ?? '1GB',
        // the services' statements are prepared: without this the bench's own EXPLAINs would count too
        'pg_stat_statements.track_utility': 'off',
      },
    })
  }
  if (cluster) {
    // a bench stopped by a signal takes its cluster with it
    const stopped = cluster
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        void stopped.destroy().finally(() => process.exit(130))
      })
    }
  }
  const url =
    cluster?.url ?? given ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const probe = createSql(url, { max: 1 })
  try {
    const [row] = await probe<
      { libraries: string }[]
    >`select current_setting('shared_preload_libraries') as libraries`
    const statements = row!.libraries.split(',').some((name) => name.trim() === 'pg_stat_statements')
    const describe = cluster
      ? `a private PostgreSQL cluster of the bench's own (${url}, fsync on, shared_buffers ${option('shared-buffers') ?? '1GB'}, pg_stat_statements preloaded)`
      : `the PostgreSQL at ${url}`
    if (!statements) {
      log(
        `pg_stat_statements is not loaded on ${url} (shared_preload_libraries = '${row!.libraries}'): ` +
          "PostgreSQL's time per request comes from /proc only. To enable it: add pg_stat_statements to " +
          'shared_preload_libraries in postgresql.conf (or `alter system set shared_preload_libraries = ' +
          "'pg_stat_statements'`), restart the server; the bench creates the extension in its databases.",
      )
    }
    return {
      url,
      statements,
      describe,
      close: async () => {
        await cluster?.destroy()
      },
    }
  } finally {
    await probe.end({ timeout: 5 })
  }
}

export interface BenchDatabase {
  name: string
  label: 'empty' | 'full'
  url: string
  /** The bench's own pool (max 4), with the service's session settings. */
  sql: Sql
  drop(): Promise<void>
}

export const databaseUrl = (serverUrl: string, name: string) => {
  const parsed = new URL(serverUrl)
  parsed.pathname = `/${name}`
  return parsed.toString()
}

/**
 * A database for one side of the comparison. With `reuse`, a database of that name that exists already is
 * kept (and `seeded` says so), so that a second run on an existing server skips the seeding.
 */
export async function openDatabase(
  server: ScaleServer,
  name: string,
  label: 'empty' | 'full',
  options: { settings: SessionSettings; reuse: boolean },
): Promise<{ db: BenchDatabase; existed: boolean }> {
  const admin = createSql(server.url, { max: 1 })
  const [found] = await admin<
    { n: number }[]
  >`select count(*)::int as n from pg_database where datname = ${name}`
  const existed = options.reuse && found!.n > 0
  if (!existed) {
    await admin.unsafe(`drop database if exists "${name}" with (force)`)
    await admin.unsafe(`create database "${name}"`)
  }
  const url = databaseUrl(server.url, name)
  const sql = createSql(url, { max: 4, settings: { ...options.settings, application_name: 'genesis-bench' } })
  if (server.statements) await sql`create extension if not exists pg_stat_statements`
  return {
    existed,
    db: {
      name,
      label,
      url,
      sql,
      drop: async () => {
        await sql.end({ timeout: 5 })
        if (!options.reuse) await admin.unsafe(`drop database if exists "${name}" with (force)`)
        await admin.end({ timeout: 5 })
      },
    },
  }
}

/** A service process serving one database: `script` reports its port over IPC ({ port }). */
export interface ServiceProcess {
  url: string
  pid: number
  stop(): Promise<void>
}

/**
 * Forks `script` as the image runs a service: its Node flags and allocator settings, and with `asService`
 * (the default) the module each service's entry point imports first (keep-tick-shape). A bare baseline
 * passes `asService: false`.
 */
export function forkService(
  script: string,
  env: Record<string, string>,
  args: string[] = [],
  { asService = true }: { asService?: boolean } = {},
): Promise<ServiceProcess> {
  // --cpu-prof=<dir>: a V8 CPU profile of each service process, written when it stops
  const profiles = option('cpu-prof')
  const child: ChildProcess = fork(script, args, {
    // As the image runs it: its Node flags and allocator settings.
    execArgv: [
      ...image.nodeFlags,
      ...(asService ? ['--import', '@genesis/common/keep-tick-shape'] : []),
      '--import',
      'tsx',
      ...(profiles ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`] : []),
    ],
    env: { ...process.env, ...image.env, ...env },
  })
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
    })
  return new Promise((resolve, reject) => {
    child.once('message', (message) =>
      resolve({
        url: `http://127.0.0.1:${(message as { port: number }).port}`,
        pid: child.pid!,
        stop,
      }),
    )
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
  })
}

/** The volume option's divisor: `--small true` seeds a tenth of the production volume. */
export const volumeDivisor = () => (option('small') === 'true' ? 10 : 1)

export interface ScaleSides extends Record<'empty' | 'full', Side> {
  /** Stops the services and drops the databases (a reused one is kept). */
  close(): Promise<void>
}

/**
 * Both sides of the bench: for each, its database (migrated, seeded unless reused, vacuumed and analysed
 * as autovacuum leaves a database at rest) and the service forked on it.
 */
export async function openSides<Volume extends object>(
  server: ScaleServer,
  options: {
    /** The database of each side: its name and the volume it is seeded to. */
    databases: Record<'empty' | 'full', { name: string; volume: Volume }>
    settings: SessionSettings
    reuse: boolean
    migrationsDir: string
    /** Seeds a new database to its volume. */
    seed(db: BenchDatabase, volume: Volume): Promise<void>
    /** What each run writes afresh after the seed (the bench's own users, whose keys are new). */
    prepare?(db: BenchDatabase): Promise<void>
    /** The service's entry (it reports its port over IPC), its environment beside DATABASE_URL, its arguments. */
    serve: { script: string; env: Record<string, string>; args?: string[] }
  },
): Promise<ScaleSides> {
  const dbs: BenchDatabase[] = []
  const services: ServiceProcess[] = []
  const close = async () => {
    await Promise.all(services.map((s) => s.stop()))
    for (const db of dbs) await db.drop()
  }
  try {
    for (const label of ['empty', 'full'] as const) {
      const { name, volume } = options.databases[label]
      const { db, existed } = await openDatabase(server, name, label, options)
      dbs.push(db)
      const started = performance.now()
      await migrate(db.sql, options.migrationsDir)
      if (!existed) await options.seed(db, volume)
      await options.prepare?.(db)
      // as autovacuum leaves a database at rest (and after the migrations a reused one just took)
      await db.sql`vacuum analyze`
      log(
        `${label} database ${name}: ${existed ? 'reused' : 'seeded'} in ${((performance.now() - started) / 1000).toFixed(1)} s ` +
          `(${JSON.stringify(volume)}), load average ${loadAverage()}`,
      )
    }
    const sides = { close } as ScaleSides
    for (const db of dbs) {
      const env = { DATABASE_URL: db.url, ...options.serve.env }
      const service = await forkService(options.serve.script, env, options.serve.args)
      services.push(service)
      sides[db.label] = { db, service }
      log(`${db.label} service: pid ${service.pid}, ${service.url}`)
    }
    return sides
  } catch (error) {
    await close()
    throw error
  }
}

/** What PostgreSQL did for one database so far: CPU of its processes, and pg_stat_statements' totals. */
interface PostgresSample {
  cpu: Map<number, number>
  /** Milliseconds of execution and calls (pg_stat_statements), when loaded. */
  execMs: number
  calls: number
}

async function samplePostgres(db: BenchDatabase, statements: boolean): Promise<PostgresSample> {
  const pids = await db.sql<{ pid: number }[]>`
    select pid from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid()
      or backend_type in ('walwriter', 'checkpointer', 'background writer')`
  const cpu = new Map(pids.map(({ pid }) => [pid, cpuSeconds(pid)]))
  if (!statements) return { cpu, execMs: 0, calls: 0 }
  const [row] = await db.sql<{ ms: number; calls: number }[]>`
    select coalesce(sum(total_exec_time), 0)::float8 as ms, coalesce(sum(calls), 0)::float8 as calls
    from pg_stat_statements s join pg_database d on d.oid = s.dbid
    where d.datname = current_database() and s.query not like '%pg_stat%'`
  return { cpu, execMs: row!.ms, calls: row!.calls }
}

const cpuDelta = (from: PostgresSample, to: PostgresSample) => {
  let seconds = 0
  for (const [pid, s] of to.cpu) seconds += s - (from.cpu.get(pid) ?? 0)
  return seconds
}

/** One request of a row: its method, path, headers and body (a fresh one each time for writes). */
export interface BenchRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  path: string
  headers?: Record<string, string>
  body?: string
}

export interface HttpRow {
  name: string
  /** Least full/empty ratio of req/s, most ratio of p99. */
  target: { ratio: number; p99: number }
  /** The requests against one database: the same one again for reads, the next of a pool for writes. */
  requests: (db: BenchDatabase) => () => BenchRequest
  /** Requests per run instead of the duration (writes: each takes one of a pre-signed pool). */
  amount?: number
  /** Checked after the rounds on each database; a message says what went wrong. */
  check?: (db: BenchDatabase) => Promise<string | undefined>
}

interface Run {
  rps: number
  p50: number
  p99: number
  ok: number
  failed: number
  /** The first non-2xx answer's status and the start of its body, when one failed. */
  firstFailure: string | undefined
  serviceCpuUs: number
  postgresCpuUs: number
  /** pg_stat_statements execution per request, µs (NaN without it). */
  postgresExecUs: number
  statementsPerRequest: number
}

export interface Side {
  db: BenchDatabase
  service: ServiceProcess
}

export interface BenchSettings {
  durationS: number
  rounds: number
  connections: number
  statements: boolean
}

async function runOnce(side: Side, row: HttpRow, next: () => BenchRequest, settings: BenchSettings) {
  const before = await samplePostgres(side.db, settings.statements)
  const serviceBefore = cpuSeconds(side.service.pid)
  const started = performance.now()
  let last = started
  /** The first answer that was not 2xx, to say why a run failed. */
  let firstFailure: string | undefined
  const first = next()
  const options: autocannon.Options = {
    url: side.service.url,
    connections: settings.connections,
    ...(row.amount ? { amount: row.amount } : { duration: settings.durationS }),
    requests: [
      {
        method: first.method,
        path: first.path,
        setupRequest: (request) => {
          const r = next()
          return {
            ...request,
            method: r.method,
            path: r.path,
            headers: r.headers ?? {},
            ...(r.body !== undefined ? { body: r.body } : {}),
          }
        },
        onResponse: (status, body) => {
          if ((status < 200 || status >= 300) && firstFailure === undefined)
            firstFailure = `${status} ${body.slice(0, 300)}`
        },
      },
    ],
  }
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (error, done) => (error ? reject(error) : resolve(done)))
    instance.on('response', () => {
      last = performance.now()
    })
  })
  const seconds = (last - started) / 1000
  const serviceCpu = cpuSeconds(side.service.pid) - serviceBefore
  const after = await samplePostgres(side.db, settings.statements)
  const ok = result['2xx']
  const perRequest = (value: number) => (ok > 0 ? value / ok : Number.NaN)
  return {
    rps: ok / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok,
    failed: result.non2xx + result.errors,
    firstFailure,
    serviceCpuUs: perRequest(serviceCpu * 1e6),
    postgresCpuUs: perRequest(cpuDelta(before, after) * 1e6),
    postgresExecUs: settings.statements ? perRequest((after.execMs - before.execMs) * 1000) : Number.NaN,
    statementsPerRequest: settings.statements ? perRequest(after.calls - before.calls) : Number.NaN,
  } satisfies Run
}

export interface RowResult {
  name: string
  kind: 'http' | 'job'
  target: { ratio: number; p99: number }
  empty: { rps: number; p99: number; cpuUs: number; execUs: number; serviceUs: number; statements: number }
  full: { rps: number; p99: number; cpuUs: number; execUs: number; serviceUs: number; statements: number }
  ratio: number
  range: [number, number]
  p99Ratio: number
  failed: number
  problems: string[]
}

const fmt = (n: number, digits = 0) =>
  Number.isNaN(n)
    ? '–'
    : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

/**
 * Every HTTP row against both databases: a warm-up run on each, then `rounds` rounds, each running every
 * row on both sides one after the other (the order alternating from round to round, so that a drift of
 * the machine's speed does not favour one side).
 */
export async function runHttpRows(
  rows: readonly HttpRow[],
  sides: { empty: Side; full: Side },
  settings: BenchSettings,
): Promise<RowResult[]> {
  const results: RowResult[] = []
  for (const row of rows) {
    const next = { empty: row.requests(sides.empty.db), full: row.requests(sides.full.db) }
    const runs: { empty: Run[]; full: Run[] } = { empty: [], full: [] }
    log(`${row.name}  (load average ${loadAverage()})`)
    // a read is answered once on each side outside the runs: the two answers side by side
    const first = { empty: next.empty(), full: next.full() }
    if (first.empty.method === 'GET') log(`  ${await compareAnswers(sides, first)}`)
    const problems: string[] = []
    for (const label of ['empty', 'full'] as const) {
      const warm = await runOnce(
        sides[label],
        { ...row, amount: row.amount ? Math.ceil(row.amount / 4) : 0 },
        next[label],
        {
          ...settings,
          durationS: Math.max(1, Math.ceil(settings.durationS / 3)),
        },
      )
      if (warm.failed > 0) log(`  warm-up on ${label}: ${warm.failed} requests failed`)
      const held = await turnsHeldAtRest(sides[label])
      if (held > 0) problems.push(`${label}: ${held} turns of heavy answers held at rest after the warm-up`)
    }
    for (let round = 1; round <= settings.rounds; round++) {
      const order = round % 2 === 1 ? (['empty', 'full'] as const) : (['full', 'empty'] as const)
      for (const label of order) {
        const run = await runOnce(sides[label], row, next[label], settings)
        runs[label].push(run)
        const held = await turnsHeldAtRest(sides[label])
        if (held > 0)
          problems.push(`${label}: ${held} turns of heavy answers held at rest after round ${round}`)
        log(
          `  round ${round} ${label.padEnd(5)} ${fmt(run.rps).padStart(6)} req/s  p50 ${run.p50} ms  p99 ${run.p99} ms` +
            `  PostgreSQL ${fmt(run.postgresCpuUs)} µs CPU${settings.statements ? `, ${fmt(run.postgresExecUs)} µs exec, ${fmt(run.statementsPerRequest, 1)} statements` : ''}` +
            `  service ${fmt(run.serviceCpuUs)} µs${run.failed ? `  ${run.failed} FAILED${run.firstFailure ? ` (first: ${run.firstFailure})` : ''}` : ''}`,
        )
      }
    }
    for (const label of ['empty', 'full'] as const) {
      const problem = await row.check?.(sides[label].db)
      if (problem) problems.push(`${label}: ${problem}`)
    }
    const ratios = runs.full.map((run, i) => run.rps / runs.empty[i]!.rps)
    const p99Ratios = runs.full.map((run, i) => run.p99 / runs.empty[i]!.p99)
    const side = (list: Run[]) => ({
      rps: median(list.map((r) => r.rps)),
      p99: median(list.map((r) => r.p99)),
      cpuUs: median(list.map((r) => r.postgresCpuUs)),
      execUs: median(list.map((r) => r.postgresExecUs)),
      serviceUs: median(list.map((r) => r.serviceCpuUs)),
      statements: median(list.map((r) => r.statementsPerRequest)),
    })
    const result: RowResult = {
      name: row.name,
      kind: 'http',
      target: row.target,
      empty: side(runs.empty),
      full: side(runs.full),
      ratio: median(ratios),
      range: [Math.min(...ratios), Math.max(...ratios)],
      p99Ratio: median(p99Ratios),
      failed: [...runs.empty, ...runs.full].reduce((sum, run) => sum + run.failed, 0),
      problems,
    }
    printRow(result)
    results.push(result)
  }
  return results
}

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

/** One answer to `request`, sent as autocannon sends it (its own headers only: no Accept-Encoding). */
function answerOf(side: Side, request: BenchRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      `${side.service.url}${request.path}`,
      { method: request.method, headers: request.headers ?? {} },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () =>
          resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }),
        )
        response.on('error', reject)
      },
    )
    sent.on('error', reject)
    sent.end(request.body)
  })
}

/** Headers that differ from one answer to the next whatever the database. */
const PER_ANSWER_HEADERS = new Set(['date', 'x-request-id'])

/**
 * The same request's answer on both sides, byte for byte: statuses, sizes, the headers that differ (but the
 * date and request id), and where the bodies differ (ids, times and totals of each database's own rows).
 */
async function compareAnswers(
  sides: { empty: Side; full: Side },
  requests: Record<'empty' | 'full', BenchRequest>,
) {
  const empty = await answerOf(sides.empty, requests.empty)
  const full = await answerOf(sides.full, requests.full)
  const names = new Set([...Object.keys(empty.headers), ...Object.keys(full.headers)])
  const headers = [...names]
    .filter(
      (name) => !PER_ANSWER_HEADERS.has(name) && String(empty.headers[name]) !== String(full.headers[name]),
    )
    .map((name) => `${name} ${empty.headers[name] ?? '(none)'} → ${full.headers[name] ?? '(none)'}`)
  let differing = Math.abs(empty.body.length - full.body.length)
  let firstAt = -1
  for (let i = 0; i < Math.min(empty.body.length, full.body.length); i++) {
    if (empty.body[i] === full.body[i]) continue
    differing++
    if (firstAt < 0) firstAt = i
  }
  const around = (body: Buffer) =>
    JSON.stringify(body.subarray(Math.max(0, firstAt - 20), firstAt + 20).toString())
  return (
    `answers: ${empty.status} of ${fmt(empty.body.length)} B → ${full.status} of ${fmt(full.body.length)} B, ` +
    `${empty.headers['content-encoding'] ?? 'identity'} → ${full.headers['content-encoding'] ?? 'identity'}; ` +
    `headers (but date, x-request-id) ${headers.length ? `differ: ${headers.join('; ')}` : 'alike'}; ` +
    `${differing} body bytes differ${firstAt >= 0 ? `, the first at ${firstAt}: ${around(empty.body)} → ${around(full.body)}` : ''}`
  )
}

/**
 * Turns of the kit's heavy-answer admission the service holds once its queue drained after a run (from its
 * /metrics; 0 without the gauge): a turn held at rest is one the route can no longer use, and the two sides
 * would not serve it with the same concurrency.
 */
async function turnsHeldAtRest(side: Side): Promise<number> {
  const gauge = (metrics: string, state: string) =>
    Number(
      new RegExp(`admission\\{work="heavy_answer",state="${state}"[^}]*\\} (\\d+)`).exec(metrics)?.[1] ?? 0,
    )
  for (const deadline = performance.now() + 5000; ; ) {
    const metrics = await (await fetch(`${side.service.url}/metrics`)).text()
    if (gauge(metrics, 'waiting') === 0 || performance.now() > deadline) {
      // the last answers of the run may still be written: a moment, then the turns held
      await new Promise((resolve) => setTimeout(resolve, 100))
      return gauge(await (await fetch(`${side.service.url}/metrics`)).text(), 'running')
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export interface JobRow {
  name: string
  /** Most full/empty ratio of the time. */
  target: number
  /** Makes the state the job works on (a backlog), untimed; `undefined` when it needs none. */
  prepare?: (db: BenchDatabase) => Promise<void>
  /** The job's own code, once; the bench times it. */
  run: (db: BenchDatabase) => Promise<unknown>
  /** Undoes what the job or `prepare` left, untimed. */
  reset?: (db: BenchDatabase) => Promise<void>
  repeat?: number
}

/** Each job row `repeat` times on each database, alternating; the median times compared. */
export async function runJobRows(
  rows: readonly JobRow[],
  sides: { empty: BenchDatabase; full: BenchDatabase },
): Promise<RowResult[]> {
  const results: RowResult[] = []
  for (const row of rows) {
    const times: { empty: number[]; full: number[] } = { empty: [], full: [] }
    for (let i = 0; i < (row.repeat ?? 7); i++) {
      for (const label of i % 2 === 0 ? (['empty', 'full'] as const) : (['full', 'empty'] as const)) {
        const db = sides[label]
        await row.prepare?.(db)
        const started = performance.now()
        await row.run(db)
        times[label].push(performance.now() - started)
        await row.reset?.(db)
      }
    }
    const empty = median(times.empty)
    const full = median(times.full)
    const ratios = times.full.map((t, i) => t / times.empty[i]!)
    const nothing = { cpuUs: Number.NaN, execUs: Number.NaN, serviceUs: Number.NaN, statements: Number.NaN }
    const result: RowResult = {
      name: row.name,
      kind: 'job',
      target: { ratio: row.target, p99: Number.NaN },
      // for a job the "rate" fields hold its time in ms
      empty: { rps: empty, p99: Math.max(...times.empty), ...nothing },
      full: { rps: full, p99: Math.max(...times.full), ...nothing },
      ratio: full / empty,
      range: [Math.min(...ratios), Math.max(...ratios)],
      p99Ratio: Number.NaN,
      failed: 0,
      problems: [],
    }
    log(
      `${row.name}: empty ${fmt(empty, 1)} ms [${times.empty.map((t) => fmt(t, 1)).join(', ')}], ` +
        `full ${fmt(full, 1)} ms [${times.full.map((t) => fmt(t, 1)).join(', ')}]; ratio ${fmt(result.ratio, 2)} ` +
        `(target ≤ ${row.target}: ${result.ratio <= row.target ? 'met' : 'NOT met'})`,
    )
    results.push(result)
  }
  return results
}

const met = (ok: boolean) => (ok ? 'met' : 'NOT met')

function printRow(r: RowResult) {
  log(
    `  → req/s ${fmt(r.empty.rps)} → ${fmt(r.full.rps)}: ratio ${fmt(r.ratio, 2)} [${fmt(r.range[0], 2)}–${fmt(r.range[1], 2)}] ` +
      `(target ≥ ${r.target.ratio}: ${met(r.ratio >= r.target.ratio)}); p99 ${fmt(r.empty.p99)} → ${fmt(r.full.p99)} ms: ` +
      `ratio ${fmt(r.p99Ratio, 2)} (target ≤ ${r.target.p99}: ${met(r.p99Ratio <= r.target.p99)}); ` +
      `PostgreSQL CPU per request ${fmt(r.empty.cpuUs)} → ${fmt(r.full.cpuUs)} µs (× ${fmt(r.full.cpuUs / r.empty.cpuUs, 2)})` +
      `${Number.isNaN(r.empty.execUs) ? '' : `, execution ${fmt(r.empty.execUs)} → ${fmt(r.full.execUs)} µs`}` +
      `${r.failed ? `; ${r.failed} requests FAILED` : ''}${r.problems.length ? `; ${r.problems.join('; ')}` : ''}`,
  )
}

/** The summary: one Markdown table of every row, with its targets, ready for BENCHMARKS.md. */
export function printSummary(results: readonly RowResult[], context: string[]) {
  log()
  log('## Summary')
  for (const line of context) log(line)
  log()
  log(
    '| row | empty | full | ratio [range] (target) | p99 empty → full (ratio, target) | PostgreSQL CPU per request, empty → full | |',
  )
  log('|---|---:|---:|---|---|---|---|')
  for (const r of results) {
    if (r.kind === 'job') {
      log(
        `| ${r.name} | ${fmt(r.empty.rps, 1)} ms | ${fmt(r.full.rps, 1)} ms | ${fmt(r.ratio, 2)} [${fmt(r.range[0], 2)}–${fmt(r.range[1], 2)}] (≤ ${r.target.ratio}) | | | ${met(r.ratio <= r.target.ratio)} |`,
      )
      continue
    }
    const ok =
      r.ratio >= r.target.ratio && r.p99Ratio <= r.target.p99 && r.failed === 0 && r.problems.length === 0
    log(
      `| ${r.name} | ${fmt(r.empty.rps)} /s | ${fmt(r.full.rps)} /s | ${fmt(r.ratio, 2)} [${fmt(r.range[0], 2)}–${fmt(r.range[1], 2)}] (≥ ${r.target.ratio}) | ` +
        `${fmt(r.empty.p99)} → ${fmt(r.full.p99)} ms (${fmt(r.p99Ratio, 2)}, ≤ ${r.target.p99}) | ` +
        `${fmt(r.empty.cpuUs)} → ${fmt(r.full.cpuUs)} µs (× ${fmt(r.full.cpuUs / r.empty.cpuUs, 2)})` +
        `${Number.isNaN(r.empty.execUs) ? '' : `; exec ${fmt(r.empty.execUs)} → ${fmt(r.full.execUs)} µs`} | ${met(ok)}${r.failed ? `, ${r.failed} failed` : ''}${r.problems.length ? `, ${r.problems.join('; ')}` : ''} |`,
    )
  }
}

export interface Plan {
  name: string
  /** The statement as the service prepares it, with $1, $2 … */
  text: string
  /** EXECUTE's arguments as SQL literals, e.g. `'0xabc'` or `'{…}'::uuid[]`. */
  args: string[]
  /** A write: run in a transaction that is rolled back. */
  write?: boolean
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of each statement on a database, prepared and executed as the service does
 * (its session settings: a generic plan where it forces one), run once before to warm the cache.
 */
export async function explainPlans(db: BenchDatabase, settings: SessionSettings, plans: readonly Plan[]) {
  const reserved = await db.sql.reserve()
  try {
    for (const [name, value] of Object.entries(settings)) {
      await reserved.unsafe(`set ${name} = '${value.replaceAll("'", "''")}'`)
    }
    for (const [i, plan] of plans.entries()) {
      const statement = `bench_plan_${i}`
      await reserved.unsafe(`prepare ${statement} as ${plan.text}`)
      const execute = `execute ${statement}${plan.args.length ? `(${plan.args.join(', ')})` : ''}`
      const explain = async () => {
        if (plan.write) await reserved.unsafe('begin')
        try {
          return await reserved.unsafe<{ 'QUERY PLAN': string }[]>(`explain (analyze, buffers) ${execute}`)
        } finally {
          if (plan.write) await reserved.unsafe('rollback')
        }
      }
      await explain()
      const lines = await explain()
      log()
      log(`### ${plan.name} (${db.label} database)`)
      for (const line of lines) log(`    ${line['QUERY PLAN']}`)
      await reserved.unsafe(`deallocate ${statement}`)
    }
  } finally {
    reserved.release()
  }
}

export const machine = () =>
  `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`
