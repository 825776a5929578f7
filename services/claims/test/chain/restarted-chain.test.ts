// A development chain stopped and started again (`pnpm chain` twice): a new anvil on the same port, with the
// same contracts at the same addresses, but none of the old chain's blocks, redemptions or head. Claims must
// notice (the genesis differs), start that chain's claims over in development, and settle new claims after
// it; in production it refuses the other chain. Real anvil nodes, the service over real HTTP.
import {
  chainTestsSkipReason,
  DEPLOYER_ACCOUNT,
  deployAll,
  FUNDER_ACCOUNT,
  startAnvil,
} from '@genesis/contracts'
import { Wallet } from 'ethers'
import { describe, expect, it } from 'vitest'
import { createDispenserChain } from '../../src/chain/dispenser.js'
import { advanceCursor, readCursor } from '../../src/db/reconciler.js'
import { unknownHash, useChainFixture } from './fixture.js'

const skip = chainTestsSkipReason()

/** A logger that keeps its lines. */
function lines() {
  const kept: { level: string; msg: string; obj: Record<string, unknown> }[] = []
  return {
    kept,
    info: (obj: object, msg: string) =>
      kept.push({ level: 'info', msg, obj: obj as Record<string, unknown> }),
    warn: (obj: object, msg: string) =>
      kept.push({ level: 'warn', msg, obj: obj as Record<string, unknown> }),
  }
}

describe.skipIf(skip)('a development chain started afresh (anvil)', () => {
  const f = useChainFixture({ confirmations: 0 })

  /** The node stopped and a fresh one started on its port, with the contracts deployed as `pnpm chain` does. */
  async function restartChain() {
    await f.anvil.close()
    // anvil's genesis holds the second it started in: a node started within the same second is the same chain
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const fresh = await startAnvil({ port: f.anvil.port })
    const provider = fresh.provider()
    const d = await deployAll(fresh.devWallet(DEPLOYER_ACCOUNT, provider), {
      voucherSigner: new Wallet(f.signerPrivateKey).address,
      committee: fresh.devWallet(FUNDER_ACCOUNT, provider).address,
    })
    expect(d.rewardsDispenser).toBe(f.d.rewardsDispenser)
    return {
      /** Funds `address` on the new chain (its wallet had ETH on the old one only). */
      async fund(address: string) {
        const funder = fresh.devWallet(FUNDER_ACCOUNT, provider)
        await (await funder.sendTransaction({ to: address, value: 10n ** 18n })).wait()
      },
      async close() {
        provider.destroy()
        await fresh.close()
      },
    }
  }

  // first: the other tests replace the node
  it('says once that the chain is behind the last block scanned, and scans nothing until it is past it', async () => {
    const log = lines()
    const reconciler = f.reconciler({ logger: log })
    await reconciler.tick()
    const head = await f.provider.getBlockNumber()
    await advanceCursor(f.svc.db.sql, f.chainId, head + 100)
    for (let i = 0; i < 3; i++) expect(await reconciler.tick()).toMatchObject({ errors: 0 })
    expect(log.kept.filter((l) => l.msg.includes('is behind the last block scanned'))).toEqual([
      expect.objectContaining({ obj: { chainId: f.chainId, cursor: head + 100, finalBlock: head } }),
    ])
    expect(await readCursor(f.svc.db.sql, f.chainId)).toBe(head + 100)
    await f.svc.db.sql`update reconciler_cursors set block = ${head} where chain_id = ${f.chainId}`
  })

  it('in development: the claims the old chain decided are decided again by the new one, and new claims settle', async () => {
    const log = lines()
    const reconciler = f.reconciler({ logger: log })
    const user = await f.fundedUser()
    const settled = await f.claimFor(user)
    await f.report(user, settled.claim, (await f.send(user, settled.claim)).hash)
    const reported = await f.claimFor(user)
    await f.report(user, reported.claim, unknownHash())
    const waiting = await f.claimFor(user)
    await f.mine(40)
    expect(await reconciler.tick()).toMatchObject({ successful: 1, errors: 0 })
    expect((await f.read(user, settled.claim)).status).toBe('successful')
    const oldCursor = (await readCursor(f.svc.db.sql, f.chainId))!
    expect(oldCursor).toBeGreaterThan(40)

    const fresh = await restartChain()
    try {
      const report = await reconciler.tick()
      expect(report).toMatchObject({ successful: 0, failed: 0, errors: 0 })
      const startedOver = log.kept.filter((l) => l.msg.includes('its claims start over'))
      expect(startedOver).toHaveLength(1)
      expect(startedOver[0]!.obj).toMatchObject({ chainId: f.chainId, reopened: 2 })
      // what the old chain proved is gone: the redemption minted nothing here, the report was sent there
      expect(await f.mints(settled.claim.id)).toBe(0)
      expect(await f.read(user, settled.claim)).toMatchObject({ status: 'claimed', transaction_hash: null })
      expect(await f.read(user, reported.claim)).toMatchObject({ status: 'claimed', transaction_hash: null })
      expect((await f.read(user, waiting.claim)).status).toBe('claimed')
      // still live: its rewards are not claimable again while its voucher may be redeemed here
      expect((await f.create(user, settled.rewardIds)).body.code).toBe('reward_already_claimed')
      // the cursor starts again on the new chain, never past its head
      expect(await readCursor(f.svc.db.sql, f.chainId)).toBeLessThanOrEqual(await f.provider.getBlockNumber())

      // the old voucher sent on the new chain mints there once, and settles the claim
      await fresh.fund(user.address)
      const resent = await f.send(user, settled.claim)
      expect(resent.status).toBe(1)
      // and a claim made after the restart settles too
      const after = await f.claimFor(user)
      await f.report(user, after.claim, (await f.send(user, after.claim)).hash)
      expect(await reconciler.tick()).toMatchObject({ successful: 2, errors: 0 })
      expect((await f.read(user, settled.claim)).status).toBe('successful')
      expect((await f.read(user, after.claim)).status).toBe('successful')
      expect(await f.mints(settled.claim.id)).toBe(1)
      expect(await f.mints(after.claim.id)).toBe(1)
      // the new chain is the one remembered now: nothing starts over again
      await reconciler.tick()
      expect(log.kept.filter((l) => l.msg.includes('its claims start over'))).toHaveLength(1)

      // a database from before chains were remembered, with a cursor past the chain's head: another chain's
      await f.svc.db.sql`delete from chain_identities`
      await advanceCursor(f.svc.db.sql, f.chainId, 1_000_000)
      const legacy = lines()
      await f.reconciler({ logger: legacy }).tick()
      expect(legacy.kept.filter((l) => l.msg.includes('its claims start over'))).toHaveLength(1)
      expect(await readCursor(f.svc.db.sql, f.chainId)).toBeLessThanOrEqual(await f.provider.getBlockNumber())
      // a successful claim the new chain proves stays successful: it is decided again, and found again
      expect((await f.read(user, after.claim)).status).toBe('successful')
    } finally {
      await fresh.close()
    }
  })

  it('in production: another chain is refused, in one line, and its claims are left alone', async () => {
    const other = await startAnvil()
    const chains = new Map([[f.chainId, createDispenserChain(f.chainId, other.url, { confirmations: 0 })]])
    try {
      const log = lines()
      const reconciler = f.reconciler({ chains, logger: log, production: true })
      const before = await f.svc.db
        .sql`select id, status, transaction_hash from claim_transactions order by id`
      const refusals = await reconciler.checkChains()
      expect([...refusals.keys()]).toEqual([f.chainId])
      expect(refusals.get(f.chainId)).toMatch(
        new RegExp(
          `^claims: RPC_URL_${f.chainId} serves another chain \\(chain ${f.chainId}, genesis 0x[0-9a-f]{8}…\\) than the one its claims were decided on`,
        ),
      )
      for (let i = 0; i < 3; i++) expect(await reconciler.tick()).toMatchObject({ checked: 0, errors: 0 })
      expect(log.kept.map((l) => l.msg)).toEqual([refusals.get(f.chainId)])
      expect(
        await f.svc.db.sql`select id, status, transaction_hash from claim_transactions order by id`,
      ).toEqual(before)
    } finally {
      for (const chain of chains.values()) chain.destroy()
      await other.close()
    }
  })
})
