import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  call,
  contentHash,
  createCollection,
  createIdentity,
  createItem,
  type Harness,
  type Identity,
  randomUUID,
  refusal,
  setup,
} from './helpers.js'

// A refusal says who may do what: each role check's message, word for word. Guards the message arguments
// of the domain's role checks (a mutant that empties one still answers 403, with a message that names
// nobody).

let h: Harness
let alice: Identity
let bob: Identity
let carol: Identity
beforeAll(async () => {
  h = await setup()
  ;[alice, bob, carol] = await Promise.all([createIdentity(), createIdentity(), createIdentity()])
})
afterAll(() => h.close())

const ownerOrManager = 'Only the owner or a manager of the collection may'

describe('403: the message names the role and the action', () => {
  it('for every change a stranger tries on a collection and its items', async () => {
    const id = await createCollection(h.app, alice)
    const item = await createItem(h.app, alice, id)
    const tries: [string, Promise<{ json(): unknown; statusCode: number }>][] = [
      ['update it', call(h.app, carol, 'PUT', `/v1/collections/${id}`, { id, name: 'Taken over' })],
      ['delete it', call(h.app, carol, 'DELETE', `/v1/collections/${id}`)],
      ['lock it', call(h.app, carol, 'POST', `/v1/collections/${id}/lock`)],
      [
        'accept its terms of service',
        call(h.app, carol, 'POST', `/v1/collections/${id}/tos`, {
          email: 'carol@example.com',
          event: 'publish_collection_tos',
          hashes: [contentHash()],
        }),
      ],
      [
        'change its items',
        call(h.app, carol, 'PUT', `/v1/items/${item}`, {
          id: item,
          collection_id: id,
          name: 'Taken over',
          type: 'wearable',
          content_hash: contentHash(),
        }),
      ],
      ['delete its items', call(h.app, carol, 'DELETE', `/v1/items/${item}`)],
      ['ask for its review', call(h.app, carol, 'POST', `/v1/collections/${id}/curations`)],
    ]
    for (const [action, attempt] of tries) {
      const body = refusal((await attempt) as Parameters<typeof refusal>[0], 403, 'forbidden')
      expect(body.error).toBe(`${ownerOrManager} ${action}`)
    }
  })

  it('for publishing a standard collection: the owner only, a manager included', async () => {
    const id = await createCollection(h.app, alice, { managers: [bob.address] })
    const itemIds = [await createItem(h.app, alice, id)]
    const body = refusal(
      await call(h.app, bob, 'POST', `/v1/collections/${id}/publish`, { itemIds }),
      403,
      'forbidden',
    )
    expect(body.error).toBe('Only the owner of the collection may publish it')
  })
})

describe('publishing a third-party collection', () => {
  it('403 names the third party; 400 without a cheque names the field', async () => {
    const tpId = `urn:decentraland:sepolia:collections-thirdparty:tp${randomUUID().slice(0, 8)}`
    const id = await createCollection(h.app, alice, { urn: `${tpId}:summer` })
    const itemIds = [await createItem(h.app, alice, id)]
    const stranger = refusal(
      await call(h.app, carol, 'POST', `/v1/collections/${id}/publish`, { itemIds }),
      403,
      'forbidden',
    )
    expect(stranger.error).toBe(`Only a manager of the third party ${tpId} may publish its items`)
    const noCheque = refusal(
      await call(h.app, alice, 'POST', `/v1/collections/${id}/publish`, { itemIds }),
      400,
      'bad_request',
    )
    expect(noCheque.data?.errors).toEqual([
      { path: 'body.cheque', message: 'is required to publish a third-party collection' },
    ])
  })
})

describe('400: a body id that is not the path id names the field and the path', () => {
  it('for a collection and for an item', async () => {
    const id = randomUUID()
    const other = randomUUID()
    const collection = refusal(
      await call(h.app, alice, 'PUT', `/v1/collections/${id}`, { id: other, name: 'Mismatch' }),
      400,
      'bad_request',
    )
    expect(collection.error).toBe(`body.id must be the id of the path (${id})`)
    expect(collection.data?.errors).toEqual([
      { path: 'body.id', message: `must be the id of the path (${id})` },
    ])

    const owned = await createCollection(h.app, alice)
    const item = randomUUID()
    const itemRefusal = refusal(
      await call(h.app, alice, 'PUT', `/v1/items/${item}`, {
        id: other,
        collection_id: owned,
        name: 'Mismatch',
        type: 'wearable',
        content_hash: contentHash(),
      }),
      400,
      'bad_request',
    )
    expect(itemRefusal.error).toBe(`body.id must be the id of the path (${item})`)
  })
})
