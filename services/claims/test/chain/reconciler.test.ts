import { randomBytes } from 'node:crypto'
import { createIdentity, type Identity } from '@genesis/common/testing'
import { type Anvil, chainTestsSkipReason, type Deployment, deployAll, startAnvil } from '@genesis/contracts'
import { type JsonRpcProvider, Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProviders, createReconciler, type Reconciler } from '../../src/jobs/reconciler.js'
import type { ClaimTransaction } from '../../src/schemas/index.js'
import { type RunningClaims, signedRequest, startClaimsService } from './service.js'

const skip = chainTestsSkipReason()

// The reconciler's edge cases, against the receipts of a real node (anvil) through the ethers providers that
// server.ts builds from RPC_URL_<chain_id>.
describe.skipIf(skip)('reconciler on a real node', () => {
  let anvil: Anvil
  let provider: JsonRpcProvider
  let d: Deployment
  let svc: RunningClaims
  let providers: Map<string, JsonRpcProvider>
  let reconciler: Reconciler
  let alice: Identity
  const warnings: string[] = []
  const logger = { info: () => {}, warn: (_obj: object, msg: string) => warnings.push(msg) }

  beforeAll(async () => {
    anvil = await startAnvil()
    provider = anvil.provider()
    const voucherKey = Wallet.createRandom()
    const deployer = anvil.devWallet(0, provider)
    d = await deployAll(deployer, { voucherSigner: voucherKey.address, committee: deployer.address })
    svc = await startClaimsService({ signerPrivateKey: voucherKey.privateKey })
    providers = createProviders(new Map([[String(anvil.chainId), anvil.url]]))
    reconciler = createReconciler({ sql: svc.db.sql, providers, logger, graceS: 600 })
    const wallet = Wallet.createRandom().connect(provider) as unknown as Wallet
    await (
      await anvil.devWallet(1, provider).sendTransaction({ to: wallet.address, value: 10n ** 18n })
    ).wait()
    alice = await createIdentity(wallet)
  })
  afterAll(async () => {
    for (const p of providers?.values() ?? []) p.destroy()
    provider?.destroy()
    await svc?.close()
    await anvil?.close()
  })

  async function claim(
    chainId = String(anvil.chainId),
  ): Promise<{ claim: ClaimTransaction; rewardId: string }> {
    const reward = {
      id: crypto.randomUUID(),
      user: alice.address,
      chain_id: chainId,
      contract: d.rewardsDispenser,
      item_id: BigInt(`0x${randomBytes(6).toString('hex')}`).toString(),
    }
    expect(
      (await signedRequest(svc.url, 'admin', 'POST', '/api/rewards', { rewards: [reward] })).status,
    ).toBe(201)
    const created = await signedRequest<ClaimTransaction>(svc.url, alice, 'POST', '/api/claim-transactions', {
      rewards: [reward.id],
    })
    expect(created.status).toBe(201)
    return { claim: created.body.data, rewardId: reward.id }
  }

  /** Sends the claim's payload from alice's wallet; a fixed gas limit lets a doomed send be mined (reverted). */
  async function redeem(c: ClaimTransaction): Promise<string> {
    const tx = await alice.wallet.sendTransaction({
      to: c.contract,
      data: c.transaction_payload,
      gasLimit: 500_000n,
    })
    await provider.waitForTransaction(tx.hash)
    return tx.hash
  }

  async function reportHash(c: ClaimTransaction, hash: string) {
    const res = await signedRequest<ClaimTransaction>(
      svc.url,
      alice,
      'PATCH',
      `/api/claim-transactions/${c.id}`,
      {
        transaction_hash: hash,
      },
    )
    expect(res.body.data.status).toBe('pending')
  }
  const statusOf = async (c: ClaimTransaction) =>
    (await signedRequest<ClaimTransaction>(svc.url, alice, 'GET', `/api/claim-transactions/${c.id}`)).body
      .data.status
  const unknownHash = () => `0x${randomBytes(32).toString('hex')}`

  it('moves pending claims from their receipts: status 1 → successful, 0 → failed, none → pending', async () => {
    const a = await claim()
    const b = await claim()
    const c = await claim()
    await reportHash(a.claim, await redeem(a.claim))
    const used = await redeem(b.claim)
    await reportHash(b.claim, await redeem(b.claim)) // the second send of b's voucher reverts
    expect((await provider.getTransactionReceipt(used))?.status).toBe(1)
    await reportHash(c.claim, unknownHash())

    expect(await reconciler.tick()).toEqual({ checked: 3, successful: 1, failed: 1, errors: 0 })
    expect(await statusOf(a.claim)).toBe('successful')
    expect(await statusOf(b.claim)).toBe('failed')
    expect(await statusOf(c.claim)).toBe('pending')

    // a failed claim frees its reward; a successful one keeps it
    const again = (rewardId: string) =>
      signedRequest(svc.url, alice, 'POST', '/api/claim-transactions', { rewards: [rewardId] })
    expect((await again(b.rewardId)).status).toBe(201)
    expect((await again(a.rewardId)).body.code).toBe('reward_already_claimed')

    // the next tick sees only what is still pending; settled claims are out of the operator's reach
    expect(await reconciler.tick()).toEqual({ checked: 1, successful: 0, failed: 0, errors: 0 })
    const refused = await signedRequest(svc.url, 'admin', 'PATCH', `/api/claim-transactions/${a.claim.id}`, {
      status: 'failed',
    })
    expect(refused.status).toBe(409)
  })

  it('a receipt of a transaction to another address is not this claim: it stays pending', async () => {
    const c = await claim()
    const transfer = await alice.wallet.sendTransaction({ to: Wallet.createRandom().address, value: 1n })
    await transfer.wait()
    await reportHash(c.claim, transfer.hash)
    expect(await reconciler.tick()).toMatchObject({ successful: 0, failed: 0 })
    expect(await statusOf(c.claim)).toBe('pending')
    expect(warnings.some((w) => w.includes('not a call to the claim contract'))).toBe(true)
  })

  it('a pending claim whose transaction the node never saw fails once past expiry and grace', async () => {
    const c = await claim()
    await reportHash(c.claim, unknownHash())
    await svc.db
      .sql`update claim_transactions set expires_at = now() - interval '1 second' where id = ${c.claim.id}`
    const settledNow = async () => (await reconciler.tick()).failed
    expect(await settledNow()).toBe(0) // within the grace period
    await svc.db
      .sql`update claim_transactions set expires_at = now() - interval '11 minutes' where id = ${c.claim.id}`
    expect(await settledNow()).toBe(1)
    expect(await statusOf(c.claim)).toBe('failed')
  })

  it('leaves chains without an RPC_URL alone, even for a hash the configured node knows', async () => {
    const onAnvil = await claim()
    const hash = await redeem(onAnvil.claim)
    const elsewhere = await claim('1')
    await reportHash(elsewhere.claim, hash)
    await reconciler.tick()
    expect(await statusOf(elsewhere.claim)).toBe('pending')
  })
})
