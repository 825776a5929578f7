/**
 * `pnpm --filter @genesis/claims bench:scale` (or `pnpm bench:scale` from the root): the claims service on
 * an almost empty database and on one at production volume, in the same run (BENCHMARKS.md, "Scale").
 *
 * Options (`--name=value`, or the environment variable BENCH_<NAME>):
 *   --small              a tenth of the production volume (a run of a few minutes)
 *   --owners, --rewards, --claims, --live, --keys, --replays   the full database's volume
 *   --heavy=<n>          rewards of the list user on the full database (a long history; default 10,000)
 *   --backlog=<n>        rows a job finds to do in its backlog rows (default 20,000)
 *   --duration=<s> (5), --rounds=<n> (3), --connections=<n> (20), --creates=<n> per run (2,000)
 *   --server=<url>       an existing PostgreSQL (default: a private cluster with pg_stat_statements)
 *   --reuse              keep the databases and reuse them on the next run (with --server)
 *   --only=<text>        only the rows whose name contains it
 *   --cpu-prof=<dir>     a V8 CPU profile of each service process, written in <dir> when it stops (the file
 *                        name holds its pid; the bench prints each side's)
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { pruneSignatures } from '@genesis/common'
import { createIdentity, type Identity, signedHeaders } from '@genesis/common/testing'
import autocannon from 'autocannon'
import { Wallet } from 'ethers'
import {
  type BenchDatabase,
  type BenchRequest,
  explainPlans,
  forkService,
  type HttpRow,
  type JobRow,
  loadAverage,
  log,
  machine,
  numberOption,
  openScaleServer,
  openSides,
  option,
  type Plan,
  printSummary,
  runHttpRows,
  runJobRows,
  type ScaleSides,
  volumeDivisor,
} from '../../../packages/common/bench/scale.js'
import { expiredLiveClaims, liveContracts, pendingClaims } from '../src/db/reconciler.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { adoptChain } from '../src/jobs/reconciler.js'
import { pruneKeys, sweep } from '../src/jobs/sweeper.js'
import { migrationsDir } from '../src/paths.js'
import { type ClaimsVolume, CONTRACT, seedClaims } from './scale/seed.js'

const tenth = volumeDivisor()
const FULL: ClaimsVolume = {
  owners: numberOption('owners', 500_000 / tenth),
  rewards: numberOption('rewards', 5_000_000 / tenth),
  claims: numberOption('claims', 1_000_000 / tenth),
  live: numberOption('live', 105_000 / tenth),
  idempotencyKeys: numberOption('keys', 200_000 / tenth),
  replays: numberOption('replays', 100_000 / tenth),
}
/** The "almost empty" side: the same shape, a thousand owners. */
const EMPTY: ClaimsVolume = {
  owners: 1_000,
  rewards: 10_000,
  claims: 2_000,
  live: 210,
  idempotencyKeys: 400,
  replays: 200,
}
const HEAVY = numberOption('heavy', 10_000 / tenth)
const BACKLOG = numberOption('backlog', 20_000 / tenth)
const CREATES = numberOption('creates', 2_000)
const ROUNDS = numberOption('rounds', 3)
const DURATION_S = numberOption('duration', 5)
const CONNECTIONS = numberOption('connections', 20)
const only = option('only')
const reuse = option('reuse') === 'true'
const ADMIN_TOKEN = randomBytes(24).toString('hex')
const SIGNER_KEY = Wallet.createRandom().privateKey
/** A chain no seeded claim is on, for the backlogs that adoption and the sweeper find. */
const BACKLOG_CHAIN = '11155111'
/** The chain half the seeded live claims are on: watched in the reconciler's row. */
const WATCHED_CHAIN = '80002'

interface Users {
  /** Signs the creates: a pool of rewards each. */
  creators: Identity[]
  /** A user of ten rewards and two claims on both databases. */
  typical: Identity
  /** A user of ten rewards on the empty database, `HEAVY` on the full one. */
  heavy: Identity
}

/** `count` unclaimed rewards of a user, inserted in SQL. */
const grant = (db: BenchDatabase, user: string, count: number) =>
  db.sql`
    insert into rewards (id, "user", chain_id, contract, item_id, created_at, updated_at)
    select gen_random_uuid(), ${user}, '137', ${CONTRACT}, n, now() - n * interval '1 minute', now() - n * interval '1 minute'
    from generate_series(1, ${count}::int) as n`

/** The bench's own users' rewards and claims, inserted in SQL on top of the seeded volume. */
async function seedUsers(db: BenchDatabase, users: Users, history: number, poolPerCreator: number) {
  const { sql } = db
  for (const creator of users.creators) await grant(db, creator.address, poolPerCreator)
  // history: every third reward in a settled claim of its own, as a user who claims now and then
  for (const [user, count] of [
    [users.typical.address, 10],
    [users.heavy.address, history],
  ] as const) {
    await grant(db, user, count)
    await sql`
      with picked as (
        select id, created_at, row_number() over (order by created_at) as n from rewards where "user" = ${user}
      ), claims as (
        insert into claim_transactions (id, "user", chain_id, contract, transaction_payload, transaction_payload_hash,
          status, transaction_hash, rewards, expires_at, created_at, updated_at)
        select md5(${user} || n)::uuid, ${user}, '137', ${CONTRACT}, '0x' || repeat(md5('p' || n), 28),
          '0x' || md5('h' || n) || md5('i' || n), 'successful', '0x' || md5(${user} || n) || md5('t' || n),
          array[id], created_at + interval '1 hour', created_at + interval '1 minute', created_at + interval '5 minutes'
        from picked where n % 3 = 0
        returning id, rewards[1] as reward
      )
      update rewards r set claim_transaction_id = claims.id from claims where r.id = claims.reward`
  }
  await sql`vacuum analyze rewards, claim_transactions`
}

/** The pre-signed creates of one database: each for one reward of a creator's pool. */
async function presignCreates(db: BenchDatabase, creators: Identity[]): Promise<() => BenchRequest> {
  const byUser = new Map(creators.map((c) => [c.address, c]))
  // the creators in turn, as many users' creates arrive (one user's creates would queue on its totals row)
  const rewards = await db.sql<{ id: string; user: string }[]>`
    select id, "user" from (
      select id, "user", row_number() over (partition by "user" order by created_at, id) as n from rewards
      where "user" = any(${creators.map((c) => c.address)}) and claim_transaction_id is null) as pool
    order by n, "user"`
  const path = '/api/claim-transactions'
  const pool = rewards.map((reward) => ({
    method: 'POST' as const,
    path,
    headers: {
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
      ...signedHeaders(byUser.get(reward.user)!, 'POST', path, { metadata: { nonce: randomUUID() } }),
    },
    body: JSON.stringify({ rewards: [reward.id] }),
  }))
  let next = 0
  return () => {
    const request = pool[next++]
    if (!request) throw new Error(`the ${pool.length} pre-signed creates of the ${db.label} database ran out`)
    return request
  }
}

const signedGet = (identity: Identity, path: string, query = ''): BenchRequest => ({
  method: 'GET',
  path: `${path}${query}`,
  headers: signedHeaders(identity, 'GET', path),
})

/** A claim of the user on that database (the newest). */
async function claimOf(db: BenchDatabase, user: string): Promise<string> {
  const [row] = await db.sql<{ id: string }[]>`
    select id from claim_transactions where "user" = ${user} order by created_at desc limit 1`
  return row!.id
}

/** `count` claims written as a backlog of the chain the seed leaves empty, for a job to find. */
async function insertBacklog(db: BenchDatabase, count: number, state: 'expired' | 'live') {
  await db.sql`
    insert into claim_transactions (id, "user", chain_id, contract, transaction_payload, transaction_payload_hash,
      rewards, expires_at, created_at, updated_at)
    -- time-ordered ids, as the service makes them (UUIDv7: milliseconds first)
    select (lpad(to_hex((extract(epoch from now()) * 1000)::bigint * 4096 + n), 15, '0') || '78'
            || substr(md5(n::text || random()), 1, 15))::uuid,
      '0x' || lpad(to_hex(n), 40, 'b'), ${BACKLOG_CHAIN}, ${CONTRACT},
      '0x' || repeat(md5('p' || n), 28), '0x' || md5('h' || n) || md5('i' || n), array[gen_random_uuid()],
      now() + ${state === 'expired' ? -1 : 1} * interval '1 hour' + n * interval '1 millisecond',
      now() - interval '2 hours', now() - interval '2 hours'
    from generate_series(1, ${count}::int) as n`
}

/**
 * The backlog gone, and vacuumed away: each repetition of a job row starts from the same table, rather than
 * walking the dead index entries of the repetitions before it (as many on both databases: a time added to
 * both that would bring their ratio towards 1).
 */
const dropBacklog = async (db: BenchDatabase) => {
  await db.sql`delete from claim_transactions where chain_id = ${BACKLOG_CHAIN}`
  await db.sql`vacuum claim_transactions`
}

async function main() {
  log(`claims scale bench: ${machine()}`)
  const server = await openScaleServer()
  log(`server: ${server.describe}`)
  const creators = await Promise.all(Array.from({ length: CONNECTIONS }, () => createIdentity()))
  const users: Users = { creators, typical: await createIdentity(), heavy: await createIdentity() }
  const poolPerCreator = Math.ceil(((CREATES * (ROUNDS + 1)) / creators.length) * 1.1)
  let sides: ScaleSides | undefined
  try {
    sides = await openSides(server, {
      databases: {
        empty: { name: 'claims_scale_empty', volume: EMPTY },
        full: { name: `claims_scale_full_${FULL.rewards}_${FULL.claims}`, volume: FULL },
      },
      settings: CLAIMS_DB_SETTINGS,
      reuse,
      migrationsDir,
      seed: (db, volume) => seedClaims(db.sql, volume),
      // the bench's own users are new each run (their keys are)
      // the heavy user: a full first page on both (90 rewards, 30 claims), a long history on the full one
      prepare: (db) => seedUsers(db, users, db.label === 'full' ? HEAVY : 90, poolPerCreator),
      serve: {
        script: fileURLToPath(new URL('./serve.ts', import.meta.url)),
        env: { CLAIMS_SIGNER_PRIVATE_KEY: SIGNER_KEY, CLAIMS_ADMIN_TOKEN: ADMIN_TOKEN },
        args: ['claims'],
      },
    })
    const empty = sides.empty.db
    const full = sides.full.db
    const creates = {
      empty: await presignCreates(empty, creators),
      full: await presignCreates(full, creators),
    }
    const typicalClaim = {
      empty: await claimOf(empty, users.typical.address),
      full: await claimOf(full, users.typical.address),
    }

    const target = { ratio: 0.95, p99: 1.2 }
    const allHttpRows: HttpRow[] = [
      {
        name: 'POST /api/claim-transactions (create, one reward, Idempotency-Key)',
        target,
        amount: CREATES,
        requests: (db) => creates[db.label],
        check: async (db) => {
          const [row] = await db.sql<{ n: number }[]>`
            select count(*)::int as n from (
              select reward from claim_transactions, unnest(rewards) as reward
              where "user" = any(${creators.map((c) => c.address)}) group by reward having count(*) > 1) as d`
          return row!.n > 0 ? `${row!.n} rewards in more than one claim` : undefined
        },
      },
      {
        name: 'GET /api/claim-transactions/:id (owner)',
        target,
        requests: (db) => {
          const request = signedGet(users.typical, `/api/claim-transactions/${typicalClaim[db.label]}`)
          return () => request
        },
      },
      {
        name: 'GET /api/rewards (10 rewards, first page)',
        target,
        requests: () => {
          const request = signedGet(users.typical, '/api/rewards')
          return () => request
        },
      },
      {
        name: 'GET /api/claim-transactions (3 claims, first page)',
        target,
        requests: () => {
          const request = signedGet(users.typical, '/api/claim-transactions')
          return () => request
        },
      },
      {
        name: `GET /api/rewards (first page of 90 rewards empty, of ${HEAVY.toLocaleString('en-US')} full)`,
        target,
        requests: () => {
          const request = signedGet(users.heavy, '/api/rewards')
          return () => request
        },
      },
      {
        name: `GET /api/claim-transactions (first page of 30 claims empty, of ${Math.floor(HEAVY / 3).toLocaleString('en-US')} full)`,
        target,
        requests: () => {
          const request = signedGet(users.heavy, '/api/claim-transactions')
          return () => request
        },
      },
    ]
    const httpRows = allHttpRows.filter((row) => only === undefined || row.name.includes(only))

    // the seeded keys and signatures past their time are gone before the job rows, and vacuumed away, as a
    // running service (and autovacuum) leaves them; chain 80002's live claims are adopted, as by a
    // reconciler watching it
    for (const db of [empty, full]) {
      await sweep(db.sql)
      await pruneSignatures(db.sql)
      await adoptChain(db.sql, WATCHED_CHAIN)
      await db.sql`vacuum analyze idempotency_keys, signed_fetch_replays, claim_transactions`
    }
    const allJobRows: JobRow[] = [
      { name: 'sweeper tick, nothing to do', target: 1.2, run: (db) => sweep(db.sql), repeat: 9 },
      {
        name: 'adoption of a chain given an RPC URL, nothing to adopt',
        target: 1.2,
        run: (db) => adoptChain(db.sql, BACKLOG_CHAIN),
      },
      {
        name: "reconciler tick's queries on a watched chain, nothing to do",
        target: 1.2,
        run: async (db) => {
          await adoptChain(db.sql, BACKLOG_CHAIN)
          await liveContracts(db.sql, BACKLOG_CHAIN)
          await expiredLiveClaims(db.sql, BACKLOG_CHAIN, Math.floor(Date.now() / 1000), 1000)
          await pendingClaims(db.sql, BACKLOG_CHAIN, 600, 1000)
        },
      },
      {
        name: 'idempotency-key pruning, nothing to prune',
        target: 1.2,
        run: (db) => pruneKeys(db.sql),
      },
      {
        name: 'used-signature pruning, nothing to prune',
        target: 1.2,
        run: (db) => pruneSignatures(db.sql),
      },
      {
        name: `reconciler tick's queries on a watched chain with its live claims (${WATCHED_CHAIN}), none expired`,
        target: 1.2,
        run: async (db) => {
          // (its pending claims are work, up to 1,000 a tick, each a receipt asked of the node: not timed)
          await liveContracts(db.sql, WATCHED_CHAIN)
          await expiredLiveClaims(db.sql, WATCHED_CHAIN, Math.floor(Date.now() / 1000), 1000)
        },
        repeat: 9,
      },
      {
        name: `sweeper tick, a backlog of ${BACKLOG.toLocaleString('en-US')} expired claims`,
        target: 1.2,
        // each repetition on a vacuumed table (dropBacklog), so as many as the other job rows
        repeat: 7,
        prepare: (db) => insertBacklog(db, BACKLOG, 'expired'),
        run: async (db) => {
          const report = await sweep(db.sql)
          if (report.expired !== BACKLOG)
            throw new Error(`the sweeper failed ${report.expired} of ${BACKLOG}`)
        },
        reset: dropBacklog,
      },
      {
        name: `adoption of a chain given an RPC URL, ${BACKLOG.toLocaleString('en-US')} live claims`,
        target: 1.2,
        // each repetition on a vacuumed table (dropBacklog), so as many as the other job rows
        repeat: 7,
        prepare: (db) => insertBacklog(db, BACKLOG, 'live'),
        run: async (db) => {
          const adopted = await adoptChain(db.sql, BACKLOG_CHAIN)
          if (adopted !== BACKLOG) throw new Error(`adopted ${adopted} of ${BACKLOG}`)
        },
        reset: dropBacklog,
      },
      {
        name: `idempotency-key pruning, ${BACKLOG.toLocaleString('en-US')} keys past 24 h`,
        target: 1.2,
        // each repetition on a vacuumed table, as the backlog rows above
        repeat: 7,
        reset: async (db) => {
          await db.sql`vacuum idempotency_keys`
        },
        prepare: async (db) => {
          await db.sql`
            insert into idempotency_keys ("user", key, request_hash, claim_transaction_id, created_at)
            select ${users.typical.address}, 'backlog-' || n, md5(n::text), ${typicalClaim[db.label]},
              now() - interval '25 hours' - n * interval '1 millisecond'
            from generate_series(1, ${BACKLOG}::int) as n`
        },
        run: async (db) => {
          const pruned = await pruneKeys(db.sql)
          if (pruned !== BACKLOG) throw new Error(`pruned ${pruned} of ${BACKLOG}`)
        },
      },
      {
        name: `used-signature pruning, ${BACKLOG.toLocaleString('en-US')} expired`,
        target: 1.2,
        repeat: 7,
        reset: async (db) => {
          await db.sql`vacuum signed_fetch_replays`
        },
        prepare: async (db) => {
          await db.sql`
            insert into signed_fetch_replays (signature, expires_at)
            select 'backlog-' || gen_random_uuid(), now() - n * interval '1 millisecond'
            from generate_series(1, ${BACKLOG}::int) as n`
        },
        run: async (db) => {
          const pruned = await pruneSignatures(db.sql)
          // and the seeded signatures whose time ran out meanwhile
          if (pruned < BACKLOG) throw new Error(`pruned ${pruned} of ${BACKLOG}`)
        },
      },
    ]
    const jobRows = allJobRows.filter((row) => only === undefined || row.name.includes(only))

    const settings = {
      durationS: DURATION_S,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      statements: server.statements,
    }
    const loadBefore = loadAverage()
    const results = [
      ...(await runHttpRows(httpRows, sides, settings)),
      ...(await runJobRows(jobRows, { empty, full })),
    ]
    printSummary(results, [
      `claims, ${machine()}; load average ${loadBefore} before the rows, ${loadAverage()} after.`,
      `Empty: ${JSON.stringify(EMPTY)}; full: ${JSON.stringify(FULL)}; ${server.describe}.`,
      `HTTP rows: ${ROUNDS} rounds of ${DURATION_S} s (creates: ${CREATES} a run), ${CONNECTIONS} connections; ratio = full / empty, median of the rounds.`,
    ])

    const reward = await full.sql<
      { id: string }[]
    >`select id from rewards where "user" = ${users.typical.address} limit 1`
    const plans: Plan[] = [
      {
        name: "the create's rewards read",
        text: 'select id, "user", chain_id, contract, item_id::text as item_id, claim_transaction_id from rewards where id = any($1::uuid[])',
        args: [`'{${reward[0]!.id}}'`],
      },
      {
        name: 'one claim (GET /api/claim-transactions/:id)',
        text: 'select * from claim_transactions_current where id = $1',
        args: [`'${typicalClaim.full}'`],
      },
      {
        name: "a page of the heavy user's rewards, with the kept total",
        text: `select r.*, (select rewards from user_totals where "user" = $1 and counted)::int as kept
               from rewards_current r where r."user" = $1 order by r.created_at desc, r.id desc limit $2 offset $3`,
        args: [`'${users.heavy.address}'`, '20', '0'],
      },
      {
        name: "a page of the heavy user's claims, with the kept total",
        text: `select c.*, (select claims from user_totals where "user" = $1 and counted)::int as kept
               from claim_transactions_current c where c."user" = $1 order by c.created_at desc, c.id desc limit $2 offset $3`,
        args: [`'${users.heavy.address}'`, '20', '0'],
      },
      {
        name: "a batch of the sweeper (nothing to do): each chain's expired claims, then by primary key",
        text: `update claim_transactions c set status = 'failed', updated_at = greatest(c.updated_at, c.expires_at)
               from unnest(array(
                 select x.id from unnest('{1,3,4,5,42,137,80001,80002,11155111}'::text[]) as chain (id), lateral (
                   select id, expires_at from claim_transactions
                   where chain_id = chain.id and not watched and status = 'claimed' and expires_at <= now()
                   order by expires_at limit 1000) as x
                 order by x.expires_at limit 1000)) as batch (id)
               where c.id = batch.id and c.status = 'claimed' and not c.watched and c.expires_at <= now()`,
        args: [],
        write: true,
      },
      {
        name: 'a batch of the adoption (nothing to adopt)',
        text: `update claim_transactions c set watched = true
               from unnest(array(
                 (select id from claim_transactions where chain_id = $1 and not watched and status = 'pending'
                  order by expires_at limit 1000)
                 union all
                 (select id from claim_transactions
                  where chain_id = $1 and not watched and status = 'claimed' and expires_at > now()
                  order by expires_at limit 1000)
                 limit 1000)) as adopted (id)
               where c.id = adopted.id and c.chain_id = $1 and not c.watched
                 and (c.status = 'pending' or (c.status = 'claimed' and c.expires_at > now()))`,
        args: [`'${BACKLOG_CHAIN}'`],
        write: true,
      },
    ]
    await explainPlans(full, CLAIMS_DB_SETTINGS, plans)
    if (server.statements) await printTopStatements(empty, full)
    if (only === undefined || 'kill -9'.includes(only)) await killOneReplica(full, creators)
  } finally {
    await sides?.close()
    await server.close()
  }
}

/**
 * Three replicas of the service on the full database, creates against each (every one acknowledged with its
 * claim's id recorded), one replica killed with SIGKILL a second in: no acknowledged create lost, no
 * reward in two live claims, no 5xx (the killed replica's requests fail as connection errors).
 */
async function killOneReplica(db: BenchDatabase, creators: Identity[]) {
  const replicas = await Promise.all(
    [0, 1, 2].map(() =>
      forkService(
        fileURLToPath(new URL('./serve.ts', import.meta.url)),
        { DATABASE_URL: db.url, CLAIMS_SIGNER_PRIVATE_KEY: SIGNER_KEY, CLAIMS_ADMIN_TOKEN: ADMIN_TOKEN },
        ['claims'],
      ),
    ),
  )
  try {
    for (const creator of creators) await grant(db, creator.address, Math.ceil(20_000 / creators.length))
    const next = await presignCreates(db, creators)
    const acknowledged: string[] = []
    let serverErrors = 0
    const runs = replicas.map(
      (replica) =>
        new Promise<autocannon.Result>((resolve, reject) => {
          const first = next()
          autocannon(
            {
              url: replica.url,
              connections: 10,
              duration: 4,
              requests: [
                {
                  method: first.method,
                  path: first.path,
                  setupRequest: (request) => {
                    const r = next()
                    return { ...request, headers: r.headers ?? {}, body: r.body ?? '' }
                  },
                  onResponse: (status, body) => {
                    if (status === 201)
                      acknowledged.push((JSON.parse(body) as { data: { id: string } }).data.id)
                    else if (status >= 500) serverErrors++
                  },
                },
              ],
            },
            (error, result) => (error ? reject(error) : resolve(result)),
          )
        }),
    )
    await new Promise((resolve) => setTimeout(resolve, 1000))
    process.kill(replicas[0]!.pid, 'SIGKILL')
    const results = await Promise.all(runs)
    const [stored] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from claim_transactions where id = any(${acknowledged}::uuid[])`
    const [doubles] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from (
        select reward from claim_transactions, unnest(rewards) as reward
        where claim_is_live(status, expires_at, watched) group by reward having count(*) > 1) as d`
    log()
    log(
      `kill -9 of one of three replicas under creates: ${acknowledged.length} acknowledged, ` +
        `${acknowledged.length - stored!.n} lost; ${doubles!.n} rewards in two live claims; ${serverErrors} 5xx; ` +
        `${results.reduce((n, r) => n + r.errors, 0)} connection errors (the killed replica's)`,
    )
    if (stored!.n !== acknowledged.length || doubles!.n > 0 || serverErrors > 0) process.exitCode = 1
  } finally {
    await Promise.all(replicas.map((r) => r.stop()))
  }
}

/** The statements that took PostgreSQL the most time on the full database, with their mean time on both. */
async function printTopStatements(empty: BenchDatabase, full: BenchDatabase) {
  const read = (db: BenchDatabase) =>
    db.sql<{ query: string; calls: number; mean: number; total: number }[]>`
      select s.query, s.calls::float8 as calls, s.mean_exec_time::float8 * 1000 as mean, s.total_exec_time::float8 as total
      from pg_stat_statements s join pg_database d on d.oid = s.dbid
      where d.datname = current_database() and s.query not like '%pg_stat%' and s.calls >= 100
      order by s.total_exec_time desc limit 12`
  const [onFull, onEmpty] = [await read(full), await read(empty)]
  const meanOnEmpty = new Map(onEmpty.map((s) => [s.query, s.mean]))
  log()
  log(
    '### The statements PostgreSQL spent the most time on (full database; pg_stat_statements), mean µs a call: empty → full',
  )
  for (const s of onFull) {
    const e = meanOnEmpty.get(s.query)
    log(
      `- ${e === undefined ? '–' : e.toFixed(0)} → ${s.mean.toFixed(0)} µs, ${s.calls} calls: ${s.query.replace(/\s+/g, ' ').slice(0, 220)}`,
    )
  }
}

await main()
