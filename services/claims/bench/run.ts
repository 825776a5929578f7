/**
 * pnpm bench: creating claims at 50 concurrent signed clients, against a baseline measured in the same run
 * (a bare Fastify route doing one INSERT transaction through the same postgres client), both over real HTTP
 * on loopback against a PostgreSQL database created for the bench; then zero double claims checked in SQL,
 * and microbenchmarks of what a create costs in signature verification and voucher signing.
 */
import { type ChildProcess, fork } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { createSql, migrate, type Sql, verifySignedFetch } from '@genesis/common'
import { createIdentity, type Identity, imageRuntime, signedHeaders } from '@genesis/common/testing'
import autocannon from 'autocannon'
import { keccak256, Wallet } from 'ethers'
import { claimInterface, createVoucherSigner, VOUCHER_TYPES, voucherDomain } from '../src/chain/voucher.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { createBatches } from '../src/domain/create-batches.js'
import { createClaim } from '../src/domain/create-claim.js'
import { migrationsDir } from '../src/paths.js'

const CONNECTIONS = 50
const CLAIMS = Number(process.env.BENCH_CLAIMS ?? 10_000)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1500)
const BASELINE_REQUESTS = Number(process.env.BENCH_BASELINE ?? 15_000)
const CORE_CLAIMS = Number(process.env.BENCH_CORE ?? 4000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const TARGET_RATIO = 0.75
const ADMIN_TOKEN = randomBytes(24).toString('hex')
const SIGNER_KEY = Wallet.createRandom().privateKey
const CONTRACT = '0x1111111111111111111111111111111111111111'
const image = imageRuntime()
const PATH = '/api/claim-transactions'
const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

const log = (message: string) => process.stdout.write(`${message}\n`)

async function createBenchDatabase() {
  const name = `claims_bench_${Date.now().toString(36)}`
  const admin = createSql(serverUrl, { max: 1 })
  await admin.unsafe(`create database "${name}"`)
  const parsed = new URL(serverUrl)
  parsed.pathname = `/${name}`
  const url = parsed.toString()
  return {
    url,
    drop: async () => {
      await admin.unsafe(`drop database if exists "${name}" with (force)`)
      await admin.end({ timeout: 5 })
    },
  }
}

function serve(
  mode: 'claims' | 'baseline',
  databaseUrl: string,
): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(fileURLToPath(new URL('./serve.ts', import.meta.url)), [mode], {
    // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each server process there
    // Both servers as the image runs the service (infra/docker/Dockerfile: CMD's flags, the allocator's ENV).
    execArgv: [
      ...image.nodeFlags,
      '--import',
      'tsx',
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ],
    env: {
      ...process.env,
      ...image.env,
      DATABASE_URL: databaseUrl,
      CLAIMS_SIGNER_PRIVATE_KEY: SIGNER_KEY,
      CLAIMS_ADMIN_TOKEN: ADMIN_TOKEN,
    },
  })
  return new Promise((resolve, reject) => {
    child.once('message', (message) =>
      resolve({ child, url: `http://127.0.0.1:${(message as { port: number }).port}` }),
    )
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)))
  })
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })

interface CpuSample {
  server: number
  baseline: number
  /** CPU seconds so far of each PostgreSQL process of the bench: its database's backends, the WAL writer. */
  postgres: Map<number, number>
}

/** CPU seconds (user + system) so far of a process, from /proc (Linux; 0 elsewhere). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

interface CpuDelta {
  server: number
  baseline: number
  postgres: number
}

const zeroCpu = (): CpuDelta => ({ server: 0, baseline: 0, postgres: 0 })

/**
 * PostgreSQL's CPU over a window: the backends of the bench's database (the servers' pools, autovacuum on
 * its tables) and the server-wide WAL writer, checkpointer and background writer, whose work is the
 * commits'. Other databases on the same server (other test runs on a shared machine) are left out; a
 * backend that exits within the window takes its CPU with it (the servers' pools stay connected).
 */
function addCpu(sum: CpuDelta, from: CpuSample, to: CpuSample) {
  sum.server += to.server - from.server
  sum.baseline += to.baseline - from.baseline
  for (const [pid, seconds] of to.postgres) sum.postgres += seconds - (from.postgres.get(pid) ?? 0)
}

async function cpuOf(sql: Sql, server: number, baseline: number): Promise<CpuSample> {
  const pids = await sql<{ pid: number }[]>`
    select pid from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid()
      or backend_type in ('walwriter', 'checkpointer', 'background writer')`
  const postgres = new Map(pids.map(({ pid }) => [pid, cpuSeconds(pid)]))
  return { server: cpuSeconds(server), baseline: cpuSeconds(baseline), postgres }
}

/** Resident set size of a process in MiB, from /proc (Linux; 0 elsewhere). */
function rssMiB(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)
    return line ? Number(line[1]) / 1024 : 0
  } catch {
    return 0
  }
}

interface SignedCreate {
  headers: Record<string, string>
  body: string
}

/** Grants `count` rewards spread over the clients, through the operator API, one request per 1000. */
async function grantRewards(
  url: string,
  clients: Identity[],
  count: number,
): Promise<{ user: Identity; id: string }[]> {
  const rewards = Array.from({ length: count }, (_, i) => ({
    user: clients[i % clients.length]!,
    id: randomUUID(),
  }))
  for (let i = 0; i < rewards.length; i += 1000) {
    const batch = rewards.slice(i, i + 1000).map((r, j) => ({
      id: r.id,
      user: r.user.address,
      chain_id: '137',
      contract: CONTRACT,
      item_id: String(i + j),
    }))
    const response = await fetch(`${url}/api/rewards`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ rewards: batch }),
    })
    if (response.status !== 201) throw new Error(`grant failed: ${response.status} ${await response.text()}`)
  }
  return rewards
}

/** One signed request per reward, signed ahead so that the clients' signing is not measured. */
const presign = (rewards: { user: Identity; id: string }[]): SignedCreate[] =>
  rewards.map((reward) => ({
    headers: {
      'content-type': 'application/json',
      ...signedHeaders(reward.user, 'POST', PATH, { metadata: { nonce: randomUUID() } }),
    },
    body: JSON.stringify({ rewards: [reward.id] }),
  }))

interface Fired {
  result: autocannon.Result
  /** From the start to the last response. autocannon's own `duration` is only known to the second. */
  seconds: number
}

async function fire(url: string, path: string, amount: number, next: () => SignedCreate): Promise<Fired> {
  const started = performance.now()
  let last = started
  const options: autocannon.Options = {
    url,
    connections: CONNECTIONS,
    amount,
    requests: [
      {
        method: 'POST',
        path,
        setupRequest: (request) => {
          const signed = next()
          return { ...request, headers: signed.headers, body: signed.body }
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
  return { result, seconds: (last - started) / 1000 }
}

function summarise(name: string, { result, seconds }: Fired) {
  const ok = result['2xx']
  const perSecond = ok / seconds
  log(
    `${name.padEnd(9)} ${ok} × 2xx, ${result.non2xx} non-2xx, ${result.errors} errors in ${seconds.toFixed(2)} s` +
      ` → ${perSecond.toFixed(0)} req/s (latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms)`,
  )
  return { perSecond, ok, non2xx: result.non2xx + result.errors }
}

function timeEach(iterations: number, task: (i: number) => unknown): number {
  for (let i = 0; i < Math.min(50, iterations); i++) task(i)
  const started = performance.now()
  for (let i = 0; i < iterations; i++) task(i)
  return (performance.now() - started) / iterations
}

async function timeEachAsync(iterations: number, task: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(20, iterations); i++) await task(i)
  const started = performance.now()
  for (let i = 0; i < iterations; i++) await task(i)
  return (performance.now() - started) / iterations
}

async function microbenchmarks(clients: Identity[]) {
  const signed = Array.from({ length: 200 }, (_, i) =>
    signedHeaders(clients[i % clients.length]!, 'POST', PATH, { metadata: { nonce: randomUUID() } }),
  )
  const verify = await timeEachAsync(400, (i) =>
    verifySignedFetch({ method: 'POST', path: PATH, headers: signed[i % signed.length]! }, { maxAgeS: 300 }),
  )
  const signer = createVoucherSigner(SIGNER_KEY)
  const request = (i: number) => ({
    claimId: randomUUID(),
    beneficiary: clients[0]!.address,
    itemIds: [String(i)],
    expiresAt: 1_900_000_000,
    chainId: '137',
    contract: CONTRACT,
  })
  const voucher = timeEach(2000, (i) => signer.sign(request(i)))
  const wallet = new Wallet(SIGNER_KEY)
  const naive = await timeEachAsync(500, async (i) => {
    const r = request(i)
    const v = {
      claimId: `0x${'0'.repeat(32)}${r.claimId.replaceAll('-', '')}`,
      beneficiary: r.beneficiary,
      itemIds: r.itemIds,
      expiresAt: r.expiresAt,
    }
    const signature = await wallet.signTypedData(voucherDomain(r.chainId, r.contract), VOUCHER_TYPES, v)
    return keccak256(claimInterface.encodeFunctionData('claim', [v, signature]))
  })
  return { verify, voucher, naive }
}

/**
 * The create itself (read, voucher, one write statement, shared by concurrent creates as in the service)
 * without HTTP and signed fetch: `CONNECTIONS` workers calling createClaim in this process, to show where
 * a request's time goes.
 */
async function measureCore(databaseUrl: string, rewards: { user: Identity; id: string }[], probe: Sql) {
  const sql = createSql(databaseUrl, { settings: CLAIMS_DB_SETTINGS })
  const context = {
    sql,
    signer: createVoucherSigner(SIGNER_KEY),
    ttlS: 3600,
    watches: () => false,
    batches: createBatches(sql),
  }
  let next = 0
  await sql`select 1` // connect before the CPU sample: a backend's CPU is lost with its process
  const cpuBefore = await cpuOf(probe, process.pid, process.pid)
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      for (let reward = rewards[next++]; reward; reward = rewards[next++]) {
        await createClaim(context, { user: reward.user.address, rewardIds: [reward.id] })
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  const cpuAfter = await cpuOf(probe, process.pid, process.pid)
  await sql.end({ timeout: 5 })
  const cpu = zeroCpu()
  addCpu(cpu, cpuBefore, cpuAfter)
  const perSecond = rewards.length / seconds
  const micros = (seconds: number) => ((seconds * 1e6) / rewards.length).toFixed(0)
  log(
    `core      ${rewards.length} createClaim() in ${seconds.toFixed(2)} s → ${perSecond.toFixed(0)} claims/s (in-process: no HTTP, no signed fetch)`,
  )
  log(`cpu per core create: in-process ${micros(cpu.server)} µs, PostgreSQL ${micros(cpu.postgres)} µs`)
  return perSecond
}

async function main() {
  log(
    `claims bench: ${CONNECTIONS} connections, ${CLAIMS} creates, Node ${process.version}, ` +
      `${cpus().length} × ${cpus()[0]?.model}, load average ${loadavg()[0]!.toFixed(1)} before start`,
  )
  const db = await createBenchDatabase()
  const sql = createSql(db.url, { max: 2, settings: { application_name: 'genesis-bench' } })
  const children: ChildProcess[] = []
  try {
    await migrate(sql, migrationsDir)
    await sql`create table bench_baseline (id uuid primary key, body jsonb not null, created_at timestamptz not null default now())`

    const claims = await serve('claims', db.url)
    children.push(claims.child)
    const clients = await Promise.all(Array.from({ length: CONNECTIONS }, () => createIdentity()))
    const rewards = await grantRewards(claims.url, clients, WARMUP + CLAIMS + CORE_CLAIMS)
    const coreRewards = rewards.splice(WARMUP + CLAIMS)
    const pool = presign(rewards)
    let taken = 0
    const nextCreate = () => {
      const signed = pool[taken++]
      if (!signed) throw new Error('the pool of pre-signed creates ran out')
      return signed
    }

    const baseline = await serve('baseline', db.url)
    children.push(baseline.child)
    const baselineBody = () => ({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rewards: [randomUUID()] }),
    })

    // warm both (JIT, pools), then measure
    await fire(claims.url, PATH, WARMUP, nextCreate)
    await fire(baseline.url, '/baseline', WARMUP, baselineBody)
    // Interleaved rounds, each claims run right after its own baseline run: this machine's speed drifts
    // by a third within a minute, so a ratio is only meaningful between runs of the same moment.
    const ratios: number[] = []
    const totals = {
      claims: 0,
      claimsSeconds: 0,
      baseline: 0,
      claimsCpu: zeroCpu(),
      baselineCpu: zeroCpu(),
      non2xx: 0,
    }
    for (let round = 1; round <= ROUNDS; round++) {
      const cpu0 = await cpuOf(sql, claims.child.pid!, baseline.child.pid!)
      const bare = summarise(
        `baseline ${round}`,
        await fire(baseline.url, '/baseline', BASELINE_REQUESTS / ROUNDS, baselineBody),
      )
      const cpu1 = await cpuOf(sql, claims.child.pid!, baseline.child.pid!)
      const service = summarise(`claims ${round}`, await fire(claims.url, PATH, CLAIMS / ROUNDS, nextCreate))
      const cpu2 = await cpuOf(sql, claims.child.pid!, baseline.child.pid!)
      ratios.push(service.perSecond / bare.perSecond)
      totals.claims += service.ok
      totals.claimsSeconds += service.ok / service.perSecond
      totals.baseline += bare.ok
      totals.non2xx += service.non2xx
      addCpu(totals.baselineCpu, cpu0, cpu1)
      addCpu(totals.claimsCpu, cpu1, cpu2)
      log(`ratio ${round}   ${(service.perSecond / bare.perSecond).toFixed(2)}`)
    }
    const perRequest = (cpu: CpuDelta, n: number) =>
      `server ${((cpu.server * 1e6) / n).toFixed(0)} µs, baseline server ${((cpu.baseline * 1e6) / n).toFixed(0)} µs, PostgreSQL ${((cpu.postgres * 1e6) / n).toFixed(0)} µs`
    log(`cpu per claim:    ${perRequest(totals.claimsCpu, totals.claims)}`)
    log(`cpu per baseline: ${perRequest(totals.baselineCpu, totals.baseline)}`)
    const sorted = [...ratios].sort((a, b) => a - b)
    const median = sorted[Math.floor(sorted.length / 2)]!
    const rss = rssMiB(claims.child.pid!)
    log(
      `claims create, ${CONNECTIONS} signed clients: ratio ${median.toFixed(2)} [${sorted[0]!.toFixed(2)}–${sorted.at(-1)!.toFixed(2)}]` +
        ` (median [range] of ${ROUNDS} rounds; target ≥ ${TARGET_RATIO}: ${median >= TARGET_RATIO ? 'met' : 'NOT met'});` +
        ` load average ${loadavg()[0]!.toFixed(1)}; service RSS ${rss.toFixed(0)} MiB after the run`,
    )
    const service = {
      ok: totals.claims,
      non2xx: totals.non2xx,
      perSecond: totals.claims / totals.claimsSeconds,
    }
    await Promise.all(children.map(stop))
    children.length = 0
    // the servers' backends gone (and reaped) first, so that their CPU is not counted as the core run's
    while (
      (
        await sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = 'genesis'`
      )[0]!.n > 0
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
    const core = await measureCore(db.url, coreRewards, sql)
    log(`          core ${core.toFixed(0)} claims/s (the baseline's rounds above are the comparison)`)

    const [doubles] = await sql<{ n: number }[]>`
      select count(*)::int as n from (
        select reward from claim_transactions, unnest(rewards) as reward group by reward having count(*) > 1
      ) as d`
    const [stored] = await sql<{ claims: number; pointed: number }[]>`
      select (select count(*)::int from claim_transactions) as claims,
        (select count(*)::int from rewards where claim_transaction_id is not null) as pointed`
    log(
      `integrity ${doubles!.n} rewards in more than one claim; ${stored!.claims} claims stored for ` +
        `${service.ok + WARMUP} × 201 (warm-up included) + ${coreRewards.length} core creates; ` +
        `${stored!.pointed} rewards point at a claim`,
    )
    log(`load average ${loadavg()[0]!.toFixed(1)} after the HTTP runs`)
    const micro = await microbenchmarks(clients)
    const budget = 1000 / service.perSecond
    log(`per request: signed-fetch verification ${micro.verify.toFixed(3)} ms (ADR-44 chain, 2 ecrecover)`)
    log(
      `per request: voucher signing + calldata + keccak256 ${micro.voucher.toFixed(3)} ms (naive Wallet.signTypedData path: ${micro.naive.toFixed(3)} ms)`,
    )
    log(
      `           = ${(((micro.verify + micro.voucher) / budget) * 100).toFixed(0)}% of the ${budget.toFixed(2)} ms` +
        ' of wall time per create at the measured rate',
    )
    const expected = service.ok + WARMUP + coreRewards.length
    if (doubles!.n !== 0 || service.non2xx !== 0 || stored!.claims !== expected) process.exitCode = 1
  } finally {
    await Promise.all(children.map(stop))
    await sql.end({ timeout: 5 })
    await db.drop()
  }
}

await main()
