import { randomBytes } from 'node:crypto'
import { signedInject } from '@genesis/common/testing'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { ADMIN_TOKEN, admin, claimOf, createClaim, grantMany, useIdentities, useService } from './helpers.js'

// The transitions' retries and the operator's path on a watched chain whose node is unreachable: what
// needs no proof from the chain must not wait for it.
// chain 137 watched, through an RPC URL nobody answers (a closed port)
const t = useService({ env: { RPC_URL_137: 'http://127.0.0.1:1', CLAIMS_CONFIRMATIONS: '0' } })
const [alice] = useIdentities(1)

const txHash = () => `0x${randomBytes(32).toString('hex')}`

async function newClaim() {
  const [reward] = await grantMany(t.app, alice.address, 1, {
    item_id: String(Math.floor(Math.random() * 1e9)),
  })
  return claimOf((await createClaim(t.app, alice, [reward!.id])).body)
}
const ownerPatch = (id: string, payload: object) =>
  signedInject(t.app, alice, { method: 'PATCH', url: `/api/claim-transactions/${id}`, payload })
const adminPatch = (app: typeof t.app, id: string, payload: object) =>
  app.inject({ method: 'PATCH', url: `/api/claim-transactions/${id}`, headers: admin, payload })

describe('claim transitions', () => {
  // Mutations guarded: `if (isNoOp(claim, …)) return claim` → `if (false)`, and in isNoOp
  // `transactionHash === claim.transaction_hash` → `false` (domain/transitions.ts) → a
  // retried report writes the claim again and moves its updated_at, from which the reconciler counts the
  // grace period of a hash the node does not know yet: retries would keep an unknown hash pending forever.
  it('a retried report changes nothing, not even updated_at', async () => {
    const claim = await newClaim()
    const hash = txHash()
    const reported = (await ownerPatch(claim.id, { transaction_hash: hash })).json().data
    expect(reported).toMatchObject({ status: 'pending', transaction_hash: hash })
    await new Promise((resolve) => setTimeout(resolve, 10))
    const retried = await ownerPatch(claim.id, { transaction_hash: hash.toUpperCase().replace('0X', '0x') })
    expect(retried.statusCode).toBe(200)
    expect(retried.json().data).toEqual(reported)
  })

  // Mutation guarded: `if (target !== 'failed' && target !== 'successful') return` → `if (false)` in
  // refuseWithoutProof → the operator's `pending` (which ends nothing) waits for the chain: 503 while
  // the node is down.
  it("the operator's pending needs no proof: accepted while the watched chain's node is down", async () => {
    const claim = await newClaim()
    const hash = txHash()
    const answer = await adminPatch(t.app, claim.id, { status: 'pending', transaction_hash: hash })
    expect(answer.statusCode).toBe(200)
    expect(answer.json().data).toMatchObject({ status: 'pending', transaction_hash: hash })
  })

  // Mutation guarded: `if (claim.status === 'successful' || claim.status === 'failed') return` → `if (false)`
  // in refuseWithoutProof → a move out of a final status asks the chain first: 503 while the node is down
  // instead of the 409 invalid_transition that no chain can change.
  it('a final claim is refused as invalid_transition without asking the chain', async () => {
    const claim = await newClaim()
    // the same database served without the chain's RPC URL, whose operator settles on their word
    const unwatched = await buildApp({
      sql: t.db.sql,
      config: loadConfig({
        CLAIMS_SIGNER_PRIVATE_KEY: t.signerWallet.privateKey,
        CLAIMS_ADMIN_TOKEN: ADMIN_TOKEN,
      }),
      context: { chains: new Map() },
    })
    try {
      expect((await adminPatch(unwatched, claim.id, { status: 'successful' })).statusCode).toBe(200)
    } finally {
      await unwatched.close()
    }
    const refused = await adminPatch(t.app, claim.id, { status: 'failed' })
    expect(refused.statusCode).toBe(409)
    expect(refused.json()).toMatchObject({
      ok: false,
      code: 'invalid_transition',
      data: { from: 'successful', to: 'failed' },
    })
  })
})
