/**
 * pnpm bench:reconciler — one reconciler tick over BENCH_LIVE_CLAIMS (10,000) live claims of a watched
 * chain on a real anvil node, on a fresh PostgreSQL database: RPC requests (HTTP round trips; a JSON-RPC
 * batch counts once) and milliseconds per tick. Ten of the claims are real vouchers redeemed on chain
 * and never reported (found by the log scan); then a thousand are made to look expired to the service, to
 * measure the claimed() batches.
 */
import { randomUUID } from 'node:crypto'
import { loadavg } from 'node:os'
import { migrate } from '@genesis/common'
import { createTestDatabase } from '@genesis/common/testing'
import { deployAll, devPrivateKey, startAnvil } from '@genesis/contracts'
import { toQuantity, Wallet } from 'ethers'
import { createDispenserChain } from '../src/chain/dispenser.js'
import { createVoucherSigner } from '../src/chain/voucher.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { createClaim } from '../src/domain/create-claim.js'
import { grantRewards } from '../src/domain/grant-rewards.js'
import { createReconciler } from '../src/jobs/reconciler.js'
import { migrationsDir } from '../src/paths.js'

const LIVE = Number(process.env.BENCH_LIVE_CLAIMS ?? 10_000)
const REDEEMED = 10
const EXPIRED = Math.min(1_000, LIVE)
const CONFIRMATIONS = 12
const STEADY_TICKS = 5
const log = (message: string) => process.stdout.write(`${message}\n`)

const anvil = await startAnvil()
const db = await createTestDatabase({ settings: CLAIMS_DB_SETTINGS })
const { sql } = db
const chainId = String(anvil.chainId)
const chain = createDispenserChain(chainId, anvil.url, { confirmations: CONFIRMATIONS })
try {
  await migrate(sql, migrationsDir)
  const provider = anvil.provider()
  const voucherKey = Wallet.createRandom()
  const deployer = anvil.devWallet(0, provider)
  const d = await deployAll(deployer, { voucherSigner: voucherKey.address, committee: deployer.address })
  const contract = d.rewardsDispenser.toLowerCase()

  // the redeemed ones: real rewards, real vouchers, sent by a funded development account
  const user = new Wallet(devPrivateKey(3), provider)
  const granted = await grantRewards(
    sql,
    Array.from({ length: REDEEMED }, (_, i) => ({
      user: user.address,
      chain_id: chainId as '80002',
      contract,
      item_id: String(1_000 + i),
    })),
    { chainAccepted: () => true }, // the bench's own chain, watched below
  )
  const context = { sql, signer: createVoucherSigner(voucherKey.privateKey), ttlS: 3600, watches: () => true }
  for (const reward of granted) {
    const { claim } = await createClaim(context, { user: user.address.toLowerCase(), rewardIds: [reward.id] })
    const tx = await user.sendTransaction({ to: contract, data: claim.transaction_payload })
    await tx.wait()
  }

  // the rest: live claims nobody redeemed, written straight into the table (their payloads are never sent)
  const filler = LIVE - REDEEMED
  for (let done = 0; done < filler; done += 1_000) {
    const n = Math.min(1_000, filler - done)
    const ids = Array.from({ length: n }, () => randomUUID())
    await sql`
      insert into claim_transactions
        (id, "user", chain_id, contract, transaction_payload, transaction_payload_hash, rewards, expires_at, watched)
      select id, ${user.address.toLowerCase()}, ${chainId}, ${contract}, '0x00', ${`0x${'00'.repeat(32)}`},
        array[gen_random_uuid()], now() + interval '1 hour', true
      from unnest(${ids}::uuid[]) as id`
  }
  await provider.send('anvil_mine', [toQuantity(CONFIRMATIONS)])
  provider.destroy()

  const reconciler = createReconciler({
    sql,
    chains: new Map([[chainId, chain]]),
    logger: { info: () => {}, warn: () => {} },
    graceS: 600,
  })
  const measure = async (label: string) => {
    const before = chain.requests()
    const started = performance.now()
    const report = await reconciler.tick()
    const ms = performance.now() - started
    log(
      `${label.padEnd(44)} ${String(chain.requests() - before).padStart(3)} RPC requests  ${ms.toFixed(1).padStart(7)} ms  ${JSON.stringify(report)}`,
    )
    return { ms, requests: chain.requests() - before, report }
  }

  log(
    `reconciler tick over ${LIVE} live claims of chain ${chainId} on anvil (confirmations ${CONFIRMATIONS}); load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  )
  const first = await measure('first tick (scans from block 0, finds 10)')
  if (first.report.successful !== REDEEMED) throw new Error(`expected ${REDEEMED} redemptions found`)
  const steady = []
  for (let i = 0; i < STEADY_TICKS; i++) {
    await anvil.provider().send('anvil_mine', ['0x1'])
    steady.push(await measure(`steady tick ${i + 1} (one new block)`))
  }
  steady.sort((a, b) => a.ms - b.ms)
  log(
    `steady median: ${steady[Math.floor(STEADY_TICKS / 2)]!.ms.toFixed(1)} ms, ${steady[0]!.requests} RPC requests`,
  )

  await sql`
    update claim_transactions set expires_at = now() - interval '2 hours'
    where id in (select id from claim_transactions where status = 'claimed' limit ${EXPIRED})`
  const expired = await measure(`tick with ${EXPIRED} expired (claimed() batches)`)
  if (expired.report.failed !== EXPIRED) throw new Error(`expected ${EXPIRED} failed`)
  const [after] = await sql<{ live: number }[]>`
    select count(*)::int as live from claim_transactions where status in ('claimed', 'pending')`
  log(`after: ${after?.live} live claims`)
} finally {
  chain.destroy()
  await db.drop()
  await anvil.close()
}
