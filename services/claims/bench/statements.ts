/**
 * pnpm bench:statements: PostgreSQL's own CPU for each statement of a create, one connection, serially,
 * against the baseline's one-insert transaction, in interleaved rounds. The backend's CPU is read from
 * /proc (Linux), so what another session does on the machine is not counted.
 */
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { createSql, migrate, recordSignature, type Sql } from '@genesis/common'
import { Wallet } from 'ethers'
import { createVoucherSigner } from '../src/chain/voucher.js'
import { insertClaim, insertClaims, type NewClaim } from '../src/db/claim-transactions.js'
import { insertRewards, rewardsToClaim, rewardsToClaimEach } from '../src/db/rewards.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'

const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 1000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const USERS = 50
/** Creates in one statement, for the batched rows (what concurrent creates share in the service). */
const BATCH = Number(process.env.BENCH_BATCH ?? 24)
const CONTRACT = '0x1111111111111111111111111111111111111111'
const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const log = (message: string) => process.stdout.write(`${message}\n`)

/** CPU seconds (user + system) of a process so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

async function main() {
  log(`statements bench: ${ROUNDS} rounds of ${PER_ROUND}, load average ${loadavg()[0]!.toFixed(1)}`)
  const name = `claims_statements_${Date.now().toString(36)}`
  const admin = createSql(serverUrl, { max: 1 })
  await admin.unsafe(`create database "${name}"`)
  const parsed = new URL(serverUrl)
  parsed.pathname = `/${name}`
  const setup = createSql(parsed.toString(), { max: 2 })
  // one connection, so that one backend does every statement measured
  const sql: Sql = createSql(parsed.toString(), { max: 1, settings: CLAIMS_DB_SETTINGS })
  try {
    await migrate(setup, migrationsDir)
    await setup.end({ timeout: 5 })
    await sql`create table bench_baseline (id uuid primary key, body jsonb not null, created_at timestamptz not null default now())`
    const users = Array.from({ length: USERS }, () => Wallet.createRandom().address.toLowerCase())
    // the writes' rewards (three one-by-one rows, one batched), then as many that only the reads see
    // (never claimed: the read's usual case)
    const written = (PER_ROUND * ROUNDS + 50) * 3 + (PER_ROUND * ROUNDS + 50 * BATCH)
    const rewards = Array.from({ length: written + PER_ROUND }, (_, i) => ({
      id: randomUUID(),
      user: users[i % USERS]!,
      chainId: '137',
      contract: CONTRACT,
      itemId: String(i),
      campaign: null,
    }))
    for (let i = 0; i < rewards.length; i += 1000) await insertRewards(sql, rewards.slice(i, i + 1000))
    await sql`vacuum analyze`
    const [backend] = await sql<{ pid: number }[]>`select pg_backend_pid() as pid`
    const pid = backend!.pid
    const signer = createVoucherSigner(Wallet.createRandom().privateKey)
    let next = 0
    let read = 0

    const steps = {
      'rewards read': async () => {
        const reward = rewards[written + (read++ % PER_ROUND)]!
        await rewardsToClaim(sql, [reward.id])
      },
      'the write (with replay record)': () => write(true),
      'the write (without replay record)': () => write(false),
      'replay record alone (unlogged)': async () => {
        await recordSignature(sql, {
          signature: `0x${randomUUID().replaceAll('-', '')}`,
          expiresAt: new Date(),
        })
      },
      [`rewards read, ${BATCH} creates' in one (per create)`]: async () => {
        const lists = Array.from({ length: BATCH }, () => [rewards[written + (read++ % PER_ROUND)]!.id])
        await rewardsToClaimEach(sql, lists)
      },
      [`the write, ${BATCH} creates in one (per create)`]: async () => {
        await insertClaims(
          sql,
          Array.from({ length: BATCH }, () => newClaim(true)),
        )
      },
      'baseline (begin, insert, commit)': async () => {
        await sql.begin(
          (tx) =>
            tx`insert into bench_baseline (id, body) values (${randomUUID()}, ${JSON.stringify({ rewards: [randomUUID()] })}) returning id`,
        )
      },
    }
    function newClaim(replay: boolean): NewClaim {
      const reward = rewards[next++]!
      const claimId = randomUUID()
      const expiresAt = Math.floor(Date.now() / 1000) + 3600
      const signed = signer.sign({
        claimId,
        beneficiary: reward.user,
        itemIds: [reward.itemId],
        expiresAt,
        chainId: '137',
        contract: CONTRACT,
      })
      return {
        id: claimId,
        user: reward.user,
        chainId: '137',
        contract: CONTRACT,
        transactionPayload: signed.transactionPayload,
        transactionPayloadHash: signed.transactionPayloadHash,
        rewards: [reward.id],
        expiresAt: new Date(expiresAt * 1000),
        usedSignature: replay
          ? { signature: `0x${randomUUID().replaceAll('-', '')}`, expiresAt: new Date() }
          : undefined,
      }
    }
    async function write(replay: boolean) {
      await insertClaim(sql, newClaim(replay))
    }
    const totals = new Map<string, number[]>()
    // a batched row does BATCH creates a call: PER_ROUND / BATCH calls a round, its CPU per create
    const creates = (label: string) => (label.includes(' in one ') ? BATCH : 1)
    for (const [label, step] of Object.entries(steps)) {
      for (let i = 0; i < 50 / creates(label); i++) await step()
    }
    // what keeping the user's claim count costs the write: the same write with its trigger disabled
    const measured: [string, () => Promise<unknown>, boolean][] = [
      ...Object.entries(steps).map(
        ([label, step]) => [label, step, false] as [string, () => Promise<unknown>, boolean],
      ),
      ['the write (replay record, no user_totals trigger)', () => write(true), true],
    ]
    for (let round = 0; round < ROUNDS; round++) {
      for (const [label, step, untriggered] of measured) {
        if (untriggered) await sql`alter table claim_transactions disable trigger user_totals_claims_insert`
        const calls = Math.round(PER_ROUND / creates(label))
        const before = cpuSeconds(pid)
        for (let i = 0; i < calls; i++) await step()
        const micros = ((cpuSeconds(pid) - before) * 1e6) / (calls * creates(label))
        if (untriggered) await sql`alter table claim_transactions enable trigger user_totals_claims_insert`
        totals.set(label, [...(totals.get(label) ?? []), micros])
      }
    }
    for (const [label, values] of totals) {
      const sorted = [...values].sort((a, b) => a - b)
      log(
        `${label.padEnd(50)} backend CPU median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} µs ` +
          `[${sorted[0]!.toFixed(0)}–${sorted.at(-1)!.toFixed(0)}]`,
      )
    }
    log(`load average ${loadavg()[0]!.toFixed(1)} at the end`)
  } finally {
    await sql.end({ timeout: 5 })
    await admin.unsafe(`drop database if exists "${name}" with (force)`)
    await admin.end({ timeout: 5 })
  }
}

await main()
