import { randomUUID } from 'node:crypto'
import { signedFetchFactory } from 'decentraland-crypto-fetch'
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ClaimsAdminClient,
  ClaimsClient,
  CollectionsClient,
  createIdentity,
  GenesisApiError,
  signedHeaders,
} from '../src/index.js'
import { ADMIN_TOKEN, type Running, startServices } from './services.js'

const CONTRACT = '0x1111111111111111111111111111111111111111'
/** decentraland-crypto-fetch's `signedFetch`, as its default export builds it (on the global fetch). */
const signedFetch = signedFetchFactory()
let services: Running

beforeAll(async () => {
  services = await startServices({ claims: true, collections: true })
})
afterAll(() => services?.close())

const grantOne = async (user: string) => {
  const admin = new ClaimsAdminClient({ baseUrl: services.urls.claims, adminToken: ADMIN_TOKEN })
  const [reward] = await admin.grantRewards([{ user, chain_id: '137', contract: CONTRACT, item_id: '7' }])
  return reward!
}

describe('signed fetch against the real services', () => {
  it('accepts the requests of this client', async () => {
    const identity = await createIdentity(Wallet.createRandom())
    const reward = await grantOne(identity.address)
    const claims = new ClaimsClient({ baseUrl: services.urls.claims, identity })
    const page = await claims.listRewards()
    expect(page.items.map((r) => r.id)).toEqual([reward.id])
    const { claim } = await claims.createClaim([reward.id])
    expect(claim).toMatchObject({ user: identity.address, status: 'claimed', rewards: [reward.id] })
  })

  it('accepts the requests of decentraland-crypto-fetch signed with the same kind of identity', async () => {
    const identity = await createIdentity(Wallet.createRandom())
    const reward = await grantOne(identity.address)

    const read = await signedFetch(`${services.urls.claims}/api/rewards`, {
      identity: identity.authIdentity,
    })
    expect(read.status).toBe(200)
    const listed = (await read.json()) as { data: Array<{ id: string }> }
    expect(listed.data.map((r) => r.id)).toEqual([reward.id])

    const create = await signedFetch(`${services.urls.claims}/api/claim-transactions`, {
      method: 'POST',
      identity: identity.authIdentity,
      metadata: { nonce: randomUUID() },
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rewards: [reward.id] }),
    })
    expect(create.status).toBe(201)
    const created = (await create.json()) as { data: { user: string; status: string } }
    expect(created.data).toMatchObject({ user: identity.address, status: 'claimed' })

    // and what it made is the same user's for this client
    const claims = new ClaimsClient({ baseUrl: services.urls.claims, identity })
    expect((await claims.listClaims()).items).toHaveLength(1)

    const collectionId = randomUUID()
    const put = await signedFetch(`${services.urls.collections}/v1/collections/${collectionId}`, {
      method: 'PUT',
      identity: identity.authIdentity,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: collectionId, name: `Crypto fetch ${collectionId.slice(0, 8)}` }),
    })
    expect(put.status).toBe(204)
    const collections = new CollectionsClient({ baseUrl: services.urls.collections, identity })
    expect(await collections.getCollection(collectionId)).toMatchObject({ eth_address: identity.address })
  })

  it('headers from signedHeaders work with a plain fetch, and the same write sent twice is a replay', async () => {
    const identity = await createIdentity(Wallet.createRandom())
    const id = randomUUID()
    const path = `/v1/collections/${id}`
    const init = {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...signedHeaders(identity, 'PUT', path) },
      body: JSON.stringify({ id, name: `Replay ${id.slice(0, 8)}` }),
    }
    expect((await fetch(`${services.urls.collections}${path}`, init)).status).toBe(204)
    const again = await fetch(`${services.urls.collections}${path}`, init)
    expect(again.status).toBe(401)
    expect(await again.json()).toMatchObject({
      ok: false,
      code: 'unauthorized',
      data: { reason: 'replayed' },
    })
  })

  it('a call needing a signature fails before sending without an identity; a bad one is a 401 GenesisApiError', async () => {
    const anonymous = new ClaimsClient({ baseUrl: services.urls.claims })
    await expect(anonymous.listRewards()).rejects.toThrow(/needs signed fetch/)

    // an ephemeral key that expired an hour ago
    const expired = await createIdentity(Wallet.createRandom(), { expiresInMinutes: -60 })
    const error = await new ClaimsClient({ baseUrl: services.urls.claims, identity: expired })
      .listRewards()
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GenesisApiError)
    expect(error).toMatchObject({ status: 401, code: 'unauthorized' })
    expect((error as GenesisApiError).data?.reason).toEqual(expect.any(String))
  })
})
