import { chainTestsSkipReason } from '@genesis/contracts'
import { Wallet } from 'ethers'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { createDispenserChain } from '../../src/chain/dispenser.js'
import { loadConfig } from '../../src/config.js'
import { type ChainFixture, expiresAtOf, unknownHash, useChainFixture } from './fixture.js'
import { signedRequest } from './service.js'

const skip = chainTestsSkipReason()
const CONFIRMATIONS = 3

// A reward is minted at most once, whatever is reported or done by an operator: the service frees rewards
// only on the chain's proof, at a block CONFIRMATIONS deep. Everything here runs over HTTP against a real
// anvil node and the RewardsDispenser contract.
describe.skipIf(skip)('exactly once on chain (anvil)', () => {
  const f = useChainFixture({ confirmations: CONFIRMATIONS })

  it('a voucher redeemed, unreported, re-sent (reverts) and that reverted hash reported: never failed, never minted twice', async () => {
    const alice = await f.fundedUser()
    const { claim, rewardIds } = await f.claimFor(alice, 2)
    expect((await f.send(alice, claim)).status).toBe(1)
    const again = await f.send(alice, claim)
    expect(again.status).toBe(0)
    expect((await f.report(alice, claim, again.hash)).body.data.status).toBe('pending')

    const reconciler = f.reconciler()
    // the reverted report proves nothing: back to claimed, still holding its rewards
    expect(await reconciler.tick()).toMatchObject({ returned: 1, failed: 0, successful: 0 })
    expect(await f.read(alice, claim)).toMatchObject({ status: 'claimed', transaction_hash: null })
    expect((await f.create(alice, rewardIds)).body.code).toBe('reward_already_claimed')
    // the redemption nobody reported is found once its block is deep enough
    await f.mine(CONFIRMATIONS)
    expect(await reconciler.tick()).toMatchObject({ successful: 1 })
    expect((await f.read(alice, claim)).status).toBe('successful')
    expect(await f.mints(claim.id)).toBe(1)
  })

  it('the operator cannot fail a claim whose voucher is still valid, nor one the chain shows redeemed: 409 voucher_live', async () => {
    const bob = await f.fundedUser()
    const { claim, rewardIds } = await f.claimFor(bob)
    const early = await f.operator(claim, 'failed')
    expect(early.status).toBe(409)
    expect(early.body).toMatchObject({ ok: false, code: 'voucher_live', data: { reason: 'redeemable' } })
    expect((await f.create(bob, rewardIds)).body.code).toBe('reward_already_claimed')

    expect((await f.send(bob, claim)).status).toBe(1)
    await f.mine(CONFIRMATIONS)
    const redeemed = await f.operator(claim, 'failed')
    expect(redeemed.body).toMatchObject({ code: 'voucher_live', data: { reason: 'redeemed' } })
    expect((await f.read(bob, claim)).status).toBe('claimed')
    expect(await f.mints(claim.id)).toBe(1)
  })

  it('the operator cannot call a claim successful that the chain does not show redeemed in a final block', async () => {
    const carol = await f.fundedUser()
    const { claim } = await f.claimFor(carol)
    const refused = await f.operator(claim, 'successful')
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('voucher_not_redeemed')
    expect((await f.send(carol, claim)).status).toBe(1)
    // mined but not yet deep enough
    expect((await f.operator(claim, 'successful')).body.code).toBe('voucher_not_redeemed')
    await f.mine(CONFIRMATIONS)
    const accepted = await f.operator(claim, 'successful')
    expect(accepted.status).toBe(200)
    expect(accepted.body.data.status).toBe('successful')
  })

  it('garbage calldata sent to the dispenser and reported: the claim stays live, and the real redemption settles it', async () => {
    const dave = await f.fundedUser()
    const { claim } = await f.claimFor(dave)
    const garbage = await f.send(dave, claim, '0xdeadbeef')
    expect(garbage.status).toBe(0)
    await f.report(dave, claim, garbage.hash)
    const reconciler = f.reconciler()
    expect(await reconciler.tick()).toMatchObject({ returned: 1, failed: 0 })
    expect((await f.read(dave, claim)).status).toBe('claimed')

    const redeemed = await f.send(dave, claim)
    expect((await f.report(dave, claim, redeemed.hash)).body.data.status).toBe('pending')
    await f.mine(CONFIRMATIONS)
    expect(await reconciler.tick()).toMatchObject({ successful: 1, returned: 0 })
    expect((await f.read(dave, claim)).status).toBe('successful')
  })

  it('redeemed and reported: successful once the block is CONFIRMATIONS deep, not before', async () => {
    const erin = await f.fundedUser()
    const { claim, rewardIds } = await f.claimFor(erin)
    const redeemed = await f.send(erin, claim)
    await f.report(erin, claim, redeemed.hash)
    const reconciler = f.reconciler()
    for (let depth = 0; depth < CONFIRMATIONS; depth++) {
      expect(await reconciler.tick()).toMatchObject({ successful: 0, returned: 0, failed: 0 })
      expect((await f.read(erin, claim)).status).toBe('pending')
      await f.mine(1)
    }
    expect(await reconciler.tick()).toMatchObject({ successful: 1 })
    expect((await f.read(erin, claim)).status).toBe('successful')
    const rewards = await f.rewards(erin)
    expect(rewards.filter((r) => rewardIds.includes(r.id)).map((r) => r.claimable)).toEqual([false])
  })

  // Defect: a reported hash was unique across claims, so a user who reported another user's transaction on
  // their own claim first made the real owner's report 409 transaction_hash_in_use. Both reports land; the
  // reconciler reads from the chain which voucher the transaction redeemed.
  it("another user's transaction reported on a squatter's claim: the owner's report lands, the chain settles both", async () => {
    const frank = await f.fundedUser()
    const squatter = await f.fundedUser()
    const a = await f.claimFor(frank)
    const b = await f.claimFor(squatter)
    const redeemedA = await f.send(frank, a.claim)
    // the squatter reports frank's transaction on its own claim first
    expect((await f.report(squatter, b.claim, redeemedA.hash)).body.data.status).toBe('pending')
    const own = await f.report(frank, a.claim, redeemedA.hash)
    expect([own.status, own.body.data?.status]).toEqual([200, 'pending'])

    await f.mine(CONFIRMATIONS)
    const reconciler = f.reconciler()
    expect(await reconciler.tick()).toMatchObject({ successful: 1, returned: 1, failed: 0 })
    expect((await f.read(frank, a.claim)).status).toBe('successful')
    expect(await f.read(squatter, b.claim)).toMatchObject({ status: 'claimed', transaction_hash: null })
    // b's voucher is still valid and b still holds its reward; each voucher mints once
    expect((await f.create(squatter, b.rewardIds)).body.code).toBe('reward_already_claimed')
    expect((await f.send(squatter, b.claim)).status).toBe(1)
    expect([await f.mints(a.claim.id), await f.mints(b.claim.id)]).toEqual([1, 1])
  })

  // Mutation guarded: dropping `and transaction_hash = ${checkedHash}` from returnToClaimed
  // (db/reconciler.ts) → the owner's new hash, reported while the old one's receipt was being read, is
  // wiped and the claim sent back to claimed on the old receipt's say-so.
  it("never judges a claim by a hash that is no longer the claim's", async () => {
    const gina = await f.fundedUser()
    const { claim } = await f.claimFor(gina)
    const garbage = await f.send(gina, claim, '0x01')
    await f.report(gina, claim, garbage.hash)
    const chain = f.chains.get(f.chainId)!
    let replacement = ''
    // the real node answers; before its answer reaches the reconciler the owner reports the redeeming send
    const racing = new Map([
      [
        f.chainId,
        {
          ...chain,
          async receipt(hash: string) {
            const receipt = await chain.receipt(hash)
            if (hash === garbage.hash && !replacement) {
              replacement = (await f.send(gina, claim)).hash
              expect((await f.report(gina, claim, replacement)).body.data.transaction_hash).toBe(replacement)
            }
            return receipt
          },
        },
      ],
    ])
    expect(await f.reconciler({ chains: racing }).tick()).toMatchObject({ returned: 0 })
    expect(await f.read(gina, claim)).toMatchObject({ status: 'pending', transaction_hash: replacement })
    await f.mine(CONFIRMATIONS)
    await f.reconciler().tick()
    expect((await f.read(gina, claim)).status).toBe('successful')
  })

  it('a restart mid-way loses nothing: a new process finds the redemption from where the last one stopped', async () => {
    const hugo = await f.fundedUser()
    const { claim } = await f.claimFor(hugo)
    const redeemed = await f.send(hugo, claim)
    await f.report(hugo, claim, redeemed.hash)
    expect(await f.reconciler().tick()).toMatchObject({ successful: 0 })

    // a new app and reconciler over the same database, as after a restart (fresh memory, fresh providers)
    const config = loadConfig({
      CLAIMS_ADMIN_TOKEN: 'restart-admin-token-0123456789',
      CLAIMS_SIGNER_PRIVATE_KEY: `0x${'11'.repeat(32)}`,
      [`RPC_URL_${f.chainId}`]: f.anvil.url,
      CLAIMS_CONFIRMATIONS: String(CONFIRMATIONS),
    })
    const restarted = await buildApp({ sql: f.svc.db.sql, config })
    const chains = new Map([
      [f.chainId, createDispenserChain(f.chainId, f.anvil.url, { confirmations: CONFIRMATIONS })],
    ])
    try {
      await f.mine(CONFIRMATIONS)
      expect(await f.reconciler({ chains }).tick()).toMatchObject({ successful: 1 })
      const read = await restarted.inject({
        method: 'GET',
        url: `/api/claim-transactions/${claim.id}`,
        headers: { authorization: 'Bearer restart-admin-token-0123456789' },
      })
      expect(read.json().data.status).toBe('successful')
    } finally {
      for (const chain of chains.values()) chain.destroy()
      await restarted.close()
    }
  })

  it('two replicas reconciling the same claims at once settle each exactly once', async () => {
    const ivy = await f.fundedUser()
    const claims = []
    for (let i = 0; i < 6; i++) claims.push((await f.claimFor(ivy)).claim)
    for (const [i, claim] of claims.entries()) {
      const sent = await f.send(ivy, claim)
      if (i % 2 === 0) await f.report(ivy, claim, sent.hash)
    }
    await f.mine(CONFIRMATIONS)
    const replicaChains = () =>
      new Map([[f.chainId, createDispenserChain(f.chainId, f.anvil.url, { confirmations: CONFIRMATIONS })]])
    const [one, two] = [replicaChains(), replicaChains()]
    try {
      const reports = await Promise.all([
        f.reconciler({ chains: one }).tick(),
        f.reconciler({ chains: two }).tick(),
      ])
      expect(reports.reduce((sum, r) => sum + r.successful, 0)).toBe(6)
      for (const claim of claims) expect((await f.read(ivy, claim)).status).toBe('successful')
    } finally {
      for (const chain of [...one.values(), ...two.values()]) chain.destroy()
    }
  })

  it('the node gone: nothing freed, nothing marked, failures counted, operators answered 503; once back it settles', async () => {
    const jack = await f.fundedUser()
    const { claim } = await f.claimFor(jack)
    const redeemed = await f.send(jack, claim)
    await f.report(jack, claim, redeemed.hash)
    await f.mine(CONFIRMATIONS)
    // the back-off's clock: a failed chain is tried again once its wait (1 s after a first failure) is over
    let now = 0
    const reconciler = f.reconciler({ clock: () => now })
    const failuresBefore = await failures(f)

    await f.anvil.stop()
    try {
      expect(await reconciler.tick()).toMatchObject({ successful: 0, failed: 0, returned: 0, errors: 1 })
      expect(await failures(f)).toBe(failuresBefore + 1)
      expect((await f.read(jack, claim)).status).toBe('pending')
      const refused = await f.operator(claim, 'failed')
      expect(refused.status).toBe(503)
      expect(refused.body).toMatchObject({ ok: false, code: 'service_unavailable' })
    } finally {
      await f.anvil.start()
    }
    // backing off: not asked again before its time
    expect(await reconciler.tick()).toMatchObject({ successful: 0, errors: 0 })
    now += 1000
    expect(await reconciler.tick()).toMatchObject({ successful: 1, errors: 0 })
    expect((await f.read(jack, claim)).status).toBe('successful')
  })

  it('an RPC URL pointing at a closed port: every attempt fails and counts, nothing is written', async () => {
    const kim = await f.fundedUser()
    const { claim } = await f.claimFor(kim)
    await f.report(kim, claim, unknownHash())
    const closed = new Map([
      [f.chainId, createDispenserChain(f.chainId, 'http://127.0.0.1:1', { confirmations: 0 })],
    ])
    try {
      let now = 0
      const reconciler = f.reconciler({ chains: closed, graceS: 0, clock: () => now })
      const before = await failures(f)
      expect(await reconciler.tick()).toMatchObject({ errors: 1, returned: 0, failed: 0 })
      // within its back-off the chain is not asked: no attempt, no failure
      expect(await reconciler.tick()).toMatchObject({ errors: 0 })
      now += 1000
      expect(await reconciler.tick()).toMatchObject({ errors: 1 })
      expect(await failures(f)).toBe(before + 2)
      expect((await f.read(kim, claim)).status).toBe('pending')
    } finally {
      for (const chain of closed.values()) chain.destroy()
    }
  })

  it('a redemption a reorganisation removes before it is deep enough never counted', async () => {
    const lea = await f.fundedUser()
    const { claim, rewardIds } = await f.claimFor(lea)
    const snapshot = await f.provider.send('evm_snapshot', [])
    const redeemed = await f.send(lea, claim)
    await f.report(lea, claim, redeemed.hash)
    await f.mine(CONFIRMATIONS - 1)
    const reconciler = f.reconciler({ graceS: 0 })
    expect(await reconciler.tick()).toMatchObject({ successful: 0 })
    expect(await f.mints(claim.id)).toBe(1)

    // the branch with the redemption is replaced by a longer one without it
    expect(await f.provider.send('evm_revert', [snapshot])).toBe(true)
    await f.mine(CONFIRMATIONS + 2)
    expect(await f.mints(claim.id)).toBe(0)
    expect(await reconciler.tick()).toMatchObject({ successful: 0, failed: 0, returned: 1 })
    expect((await f.read(lea, claim)).status).toBe('claimed')
    expect((await f.create(lea, rewardIds)).body.code).toBe('reward_already_claimed')
    // the voucher is still good: redeemed on the new branch it counts, once
    expect((await f.send(lea, claim)).status).toBe(1)
    await f.mine(CONFIRMATIONS)
    expect(await reconciler.tick()).toMatchObject({ successful: 1 })
    expect(await f.mints(claim.id)).toBe(1)
  })

  it('a reported transfer to another address, or a hash the node never saw (past the grace period), proves nothing: back to claimed', async () => {
    const nina = await f.fundedUser()
    const transferred = await f.claimFor(nina)
    const transfer = await nina.wallet.sendTransaction({ to: Wallet.createRandom().address, value: 1n })
    await transfer.wait()
    await f.report(nina, transferred.claim, transfer.hash)
    const unknown = await f.claimFor(nina)
    await f.report(nina, unknown.claim, unknownHash())

    // within the grace period an unknown hash may still be on its way
    expect(await f.reconciler().tick()).toMatchObject({ returned: 1 })
    expect((await f.read(nina, transferred.claim)).status).toBe('claimed')
    expect((await f.read(nina, unknown.claim)).status).toBe('pending')
    expect(await f.reconciler({ graceS: 0 }).tick()).toMatchObject({ returned: 1 })
    expect((await f.read(nina, unknown.claim)).status).toBe('claimed')
    for (const { rewardIds } of [transferred, unknown]) {
      expect((await f.create(nina, rewardIds)).body.code).toBe('reward_already_claimed')
    }
  })

  it('leaves chains without an RPC URL alone, even for a hash the watched node knows', async () => {
    const otto = await f.fundedUser()
    const onAnvil = await f.claimFor(otto)
    const sent = await f.send(otto, onAnvil.claim)
    const reward = {
      id: crypto.randomUUID(),
      user: otto.address,
      chain_id: '1',
      contract: f.d.rewardsDispenser,
      item_id: '1',
    }
    expect(
      (await signedRequest(f.svc.url, 'admin', 'POST', '/api/rewards', { rewards: [reward] })).status,
    ).toBe(201)
    const elsewhere = (await f.create(otto, [reward.id])).body.data
    await f.report(otto, elsewhere, sent.hash)
    await f.mine(CONFIRMATIONS)
    await f.reconciler({ graceS: 0 }).tick()
    expect((await f.read(otto, elsewhere)).status).toBe('pending')
    expect((await f.read(otto, onAnvil.claim)).status).toBe('successful')
  })

  // Last: it moves the node's clock past every voucher issued so far.
  it('expiry: a claim stays live and reads claimed until a deep block past expiresAt shows it unredeemed; a redeemed one is never freed', async () => {
    const max = await f.fundedUser()
    const unused = await f.claimFor(max)
    const redeemedUnreported = await f.claimFor(max)
    expect((await f.send(max, redeemedUnreported.claim)).status).toBe(1)
    const reconciler = f.reconciler()

    await f.passTime(Math.max(expiresAtOf(unused.claim), expiresAtOf(redeemedUnreported.claim)))
    for (const { claim, rewardIds } of [unused, redeemedUnreported]) {
      expect((await f.read(max, claim)).status).toBe('claimed')
      expect((await f.create(max, rewardIds)).body.code).toBe('reward_already_claimed')
    }
    // the operator cannot fail it either before the chain has shown it dead at a final block
    expect((await f.operator(unused.claim, 'failed')).body.code).toBe('voucher_live')

    await f.mine(CONFIRMATIONS)
    const tick = await reconciler.tick()
    // other tests' claims expire with this jump too: the two here are checked by their status
    expect(tick.failed).toBeGreaterThanOrEqual(1)
    expect(tick.successful).toBeGreaterThanOrEqual(1)
    expect((await f.read(max, unused.claim)).status).toBe('failed')
    expect((await f.read(max, redeemedUnreported.claim)).status).toBe('successful')
    expect((await f.create(max, unused.rewardIds)).status).toBe(201)
    expect((await f.create(max, redeemedUnreported.rewardIds)).body.code).toBe('reward_already_claimed')
    expect(await f.mints(redeemedUnreported.claim.id)).toBe(1)
    expect(await f.mints(unused.claim.id)).toBe(0)
  })
})

async function failures(f: ChainFixture): Promise<number> {
  const metric = await f.metrics.getSingleMetric('claims_reconciler_rpc_failures_total')?.get()
  return metric?.values.find((v) => v.labels.chain_id === f.chainId)?.value ?? 0
}
