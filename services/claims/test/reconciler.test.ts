import { randomBytes } from 'node:crypto'
import { createIdentity, type Identity, signedInject } from '@genesis/common/testing'
import type { JsonRpcProvider } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProviders, createReconciler, type Reconciler } from '../src/jobs/reconciler.js'
import { admin, CONTRACT, claimOf, createClaim, expire, grant, setUp, type TestContext } from './helpers.js'
import { startJsonRpcServer } from './json-rpc-server.js'

let t: TestContext
let alice: Identity
let rpc: Awaited<ReturnType<typeof startJsonRpcServer>>
let providers: Map<string, JsonRpcProvider>
let reconciler: Reconciler
const warnings: string[] = []
const logger = { info: () => {}, warn: (_obj: object, msg: string) => warnings.push(msg) }

beforeAll(async () => {
  t = await setUp()
  alice = await createIdentity()
  rpc = await startJsonRpcServer(137)
  // a real ethers JsonRpcProvider per RPC_URL_<chain_id>, pointed at the loopback node
  providers = createProviders(new Map([['137', rpc.url]]))
  reconciler = createReconciler({ sql: t.db.sql, providers, logger, graceS: 600 })
})
afterAll(async () => {
  for (const provider of providers.values()) provider.destroy()
  await rpc.close()
  await t.close()
})

const txHash = () => `0x${randomBytes(32).toString('hex')}`

/** A claim on `chainId` whose owner reported `hash`: pending. */
async function pendingClaim(hash: string, chainId = '137') {
  const [reward] = await grant(t.app, alice.address, [{ chain_id: chainId }])
  const claim = claimOf((await createClaim(t.app, alice, [reward!.id])).body)
  const patched = await signedInject(t.app, alice, {
    method: 'PATCH',
    url: `/api/claim-transactions/${claim.id}`,
    payload: { transaction_hash: hash },
  })
  expect(patched.json().data.status).toBe('pending')
  return { id: claim.id, rewardId: reward!.id }
}

const statusOf = async (id: string) =>
  (await signedInject(t.app, alice, { method: 'GET', url: `/api/claim-transactions/${id}` })).json().data
    .status

describe('reconciler (ethers JsonRpcProvider against a loopback JSON-RPC node)', () => {
  it('moves pending claims from their receipts: status 1 → successful, 0 → failed, none → pending', async () => {
    const mined = txHash()
    const reverted = txHash()
    const unmined = txHash()
    const a = await pendingClaim(mined)
    const b = await pendingClaim(reverted)
    const c = await pendingClaim(unmined)
    rpc.setReceipt(mined, { to: CONTRACT, status: 1 })
    rpc.setReceipt(reverted, { to: CONTRACT, status: 0 })

    const report = await reconciler.tick()
    expect(report).toEqual({ checked: 3, successful: 1, failed: 1, errors: 0 })
    expect(rpc.calls).toContain('eth_getTransactionReceipt')
    expect(rpc.calls).not.toContain('eth_chainId') // staticNetwork: no network probing
    expect(await statusOf(a.id)).toBe('successful')
    expect(await statusOf(b.id)).toBe('failed')
    expect(await statusOf(c.id)).toBe('pending')

    // a reverted claim frees its reward; a successful one keeps it
    expect((await createClaim(t.app, alice, [b.rewardId])).status).toBe(201)
    expect((await createClaim(t.app, alice, [a.rewardId])).body).toMatchObject({
      code: 'reward_already_claimed',
    })

    // the next tick sees only what is still pending, and the operator can no longer move settled claims
    rpc.setReceipt(unmined, { to: CONTRACT, status: 1 })
    expect(await reconciler.tick()).toEqual({ checked: 1, successful: 1, failed: 0, errors: 0 })
    const refused = await t.app.inject({
      method: 'PATCH',
      url: `/api/claim-transactions/${a.id}`,
      headers: admin,
      payload: { status: 'failed' },
    })
    expect(refused.statusCode).toBe(409)
  })

  it('a receipt of a call to another contract is not this claim: it stays pending', async () => {
    const hash = txHash()
    const claim = await pendingClaim(hash)
    rpc.setReceipt(hash, { to: '0x9999999999999999999999999999999999999999', status: 1 })
    expect(await reconciler.tick()).toMatchObject({ successful: 0, failed: 0 })
    expect(await statusOf(claim.id)).toBe('pending')
    expect(warnings.some((w) => w.includes('not a call to the claim contract'))).toBe(true)
  })

  it('a pending claim with no receipt long after its expiry fails', async () => {
    const claim = await pendingClaim(txHash())
    await expire(t.db, claim.id)
    expect(await reconciler.tick()).toMatchObject({ failed: 0 }) // within the grace period
    await t.db
      .sql`update claim_transactions set expires_at = now() - interval '11 minutes' where id = ${claim.id}`
    expect(await reconciler.tick()).toMatchObject({ failed: 1 })
    expect(await statusOf(claim.id)).toBe('failed')
  })

  it('an RPC error leaves claims pending, to be retried next tick', async () => {
    const hash = txHash()
    const claim = await pendingClaim(hash)
    rpc.setReceipt(hash, { to: CONTRACT, status: 1 })
    rpc.setFailing(true)
    try {
      const report = await reconciler.tick()
      expect(report.errors).toBeGreaterThanOrEqual(1)
      expect(await statusOf(claim.id)).toBe('pending')
    } finally {
      rpc.setFailing(false)
    }
    expect(await reconciler.tick()).toMatchObject({ successful: 1 })
    expect(await statusOf(claim.id)).toBe('successful')
  })

  it('leaves chains without an RPC_URL alone', async () => {
    const hash = txHash()
    const claim = await pendingClaim(hash, '1')
    rpc.setReceipt(hash, { to: CONTRACT, status: 1 })
    await reconciler.tick()
    expect(await statusOf(claim.id)).toBe('pending')
  })
})
