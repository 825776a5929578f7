import { randomBytes } from 'node:crypto'
import type { App } from '@genesis/common'
import {
  ACCEPTED_REQUEST_SPELLINGS,
  mutatingSignedRoutes,
  REPLAY_REFUSALS,
  respellRequest,
  signedHeaders,
} from '@genesis/common/testing'
import { expectRespelledReplaysRefused } from '@genesis/common/testing/vitest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { ADMIN_TOKEN, grantMany, useIdentities, useService } from './helpers.js'

/*
 * Defects: the used-signature store keyed on the signature's text, while verification accepts it in upper
 * case, with v as 0/1 and in its high-s form; then on the chain's payloads as sent, while @dcl/crypto
 * drops every \r of the delegation before checking the owner's signature. Each re-spelling was a new
 * request: a signed create re-spelled with another reward in its (unsigned) body answered 201 again, on
 * either replica. A replay is now refused whatever the spelling (signatures, delegation, owner, headers,
 * URL), on every mutating signed route of the service.
 */

const t = useService()
const [alice] = useIdentities(1)
let replica: App

beforeAll(async () => {
  // A second replica on the same database, as a deployment runs them.
  replica = await buildApp({
    sql: t.db.sql,
    config: loadConfig({
      CLAIMS_SIGNER_PRIVATE_KEY: t.signerWallet.privateKey,
      CLAIMS_ADMIN_TOKEN: ADMIN_TOKEN,
      CLAIM_TTL_S: '3600',
      NODE_ENV: 'production',
    }),
  })
})
afterAll(() => replica?.close())

const hash = () => `0x${randomBytes(32).toString('hex')}`

function send(app: App, method: string, url: string, headers: Record<string, string>, payload: object) {
  return app.inject({ method: method as 'POST', url, headers, payload })
}

const expectEveryRespellingRefused = (
  method: string,
  url: string,
  headers: Record<string, string>,
  payload: () => object | undefined,
) => expectRespelledReplaysRefused([t.app, replica], { method, url, headers, payload })

describe('a replay re-spelled', () => {
  it('covers every mutating route that takes a signature', () => {
    const mutating = mutatingSignedRoutes(t.app).map((route) => `${route.method} ${route.url}`)
    expect(mutating.sort()).toEqual([
      'PATCH /api/claim-transactions/:id',
      'POST /api/claim-transactions',
      'POST /api/rewards',
    ])
  })

  let claimId: string
  it('POST /api/claim-transactions: one claim, whatever reward a re-spelled replay asks for', async () => {
    const rewards = await grantMany(t.app, alice.address, 1 + Object.keys(REPLAY_REFUSALS).length)
    const url = '/api/claim-transactions'
    const headers = signedHeaders(alice, 'POST', url)
    const created = await send(t.app, 'POST', url, headers, { rewards: [rewards[0]!.id] })
    expect(created.statusCode).toBe(201)
    claimId = created.json().data.id
    let next = 1
    await expectEveryRespellingRefused('POST', url, headers, () => ({ rewards: [rewards[next++]!.id] }))
    const [claims] = await t.db.sql`select count(*)::int as n from claim_transactions`
    const [free] = await t.db.sql`select count(*)::int as n from rewards where claim_transaction_id is null`
    expect([claims!.n, free!.n]).toEqual([1, rewards.length - 1])
  })

  it('PATCH /api/claim-transactions/:id: a re-spelled replay cannot replace the reported hash', async () => {
    const url = `/api/claim-transactions/${claimId}`
    const reported = hash()
    const headers = signedHeaders(alice, 'PATCH', url)
    const first = await send(replica, 'PATCH', url, headers, { transaction_hash: reported })
    expect(first.statusCode).toBe(200)
    await expectEveryRespellingRefused('PATCH', url, headers, () => ({ transaction_hash: hash() }))
    const [claim] = await t.db.sql`select transaction_hash from claim_transactions where id = ${claimId}`
    expect(claim!.transaction_hash).toBe(reported)
  })

  it('POST /api/rewards: a signed caller is refused, and so is every re-spelling of its request', async () => {
    const url = '/api/rewards'
    const headers = signedHeaders(alice, 'POST', url)
    const first = await send(t.app, 'POST', url, headers, { rewards: [] })
    expect(first.statusCode).toBe(403)
    await expectEveryRespellingRefused('POST', url, headers, () => ({ rewards: [] }))
  })

  it('lets one create through when the spellings race on two replicas', async () => {
    const rewards = await grantMany(t.app, alice.address, ACCEPTED_REQUEST_SPELLINGS.length + 1, {
      campaign: 'race',
    })
    const url = '/api/claim-transactions'
    const headers = signedHeaders(alice, 'POST', url, { metadata: { nonce: 'race' } })
    const attempts = [
      { url, headers },
      ...ACCEPTED_REQUEST_SPELLINGS.map((spelling) => respellRequest({ url, headers }, spelling)),
    ]
    const answers = await Promise.all(
      attempts.map((a, i) =>
        send(i % 2 ? replica : t.app, 'POST', a.url, a.headers, { rewards: [rewards[i]!.id] }),
      ),
    )
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, ...attempts.slice(1).map(() => 401)])
    const [claimed] = await t.db.sql`
      select count(*)::int as n from rewards where campaign = 'race' and claim_transaction_id is not null`
    expect(claimed!.n).toBe(1)
  })
})
