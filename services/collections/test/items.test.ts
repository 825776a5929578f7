import type { Item } from '@genesis/wire/collections'
import { describe, expect, it } from 'vitest'
import {
  call,
  contentHash,
  createCollection,
  createItem,
  type Identity,
  randomUUID,
  refusal,
  useHarness,
  useIdentities,
} from './helpers.js'

const h = useHarness()
const [alice, bob, carol] = useIdentities(3)

const items = async (who: Identity, collectionId: string) =>
  (await call(h.app, who, 'GET', `/v1/collections/${collectionId}/items`)).json().data as Item[]

const itemBody = (id: string, collectionId: string, fields: Partial<Record<string, unknown>> = {}) => ({
  id,
  collection_id: collectionId,
  name: 'Hat',
  type: 'wearable',
  content_hash: contentHash(),
  ...fields,
})

describe('items', () => {
  it('creates and updates items, listed in creation order', async () => {
    const collection = await createCollection(h.app, alice, { managers: [bob.address] })
    const first = await createItem(h.app, alice, collection)
    const second = await createItem(h.app, bob, collection)
    const hash = contentHash()
    const res = await call(
      h.app,
      bob,
      'PUT',
      `/v1/items/${first}`,
      itemBody(first, collection, { name: ' Cape ', type: 'emote', content_hash: hash }),
    )
    expect(res.statusCode).toBe(204)
    const list = await items(alice, collection)
    expect(list.map((i) => i.id)).toEqual([first, second])
    expect(list[0]).toMatchObject({
      id: first,
      collection_id: collection,
      name: 'Cape',
      type: 'emote',
      content_hash: hash,
      blockchain_item_id: null,
    })
  })

  it('refuses strangers (403) and hides items of unpublished collections from them (404)', async () => {
    const collection = await createCollection(h.app, alice)
    const item = await createItem(h.app, alice, collection)
    refusal(
      await call(h.app, carol, 'PUT', `/v1/items/${item}`, itemBody(item, collection)),
      403,
      'forbidden',
    )
    const fresh = randomUUID()
    refusal(
      await call(h.app, carol, 'PUT', `/v1/items/${fresh}`, itemBody(fresh, collection)),
      403,
      'forbidden',
    )
    refusal(await call(h.app, carol, 'DELETE', `/v1/items/${item}`), 403, 'forbidden')
    refusal(await call(h.app, carol, 'GET', `/v1/collections/${collection}/items`), 404, 'not_found')
    expect(await items(h.committee, collection)).toHaveLength(1)
  })

  it('is 404 for an unknown collection or item', async () => {
    const id = randomUUID()
    refusal(await call(h.app, alice, 'PUT', `/v1/items/${id}`, itemBody(id, randomUUID())), 404, 'not_found')
    refusal(await call(h.app, alice, 'DELETE', `/v1/items/${id}`), 404, 'not_found')
    refusal(await call(h.app, alice, 'GET', `/v1/collections/${randomUUID()}/items`), 404, 'not_found')
  })

  it('does not move an item to another collection (409)', async () => {
    const a = await createCollection(h.app, alice)
    const b = await createCollection(h.app, alice)
    const item = await createItem(h.app, alice, a)
    refusal(
      await call(h.app, alice, 'PUT', `/v1/items/${item}`, itemBody(item, b)),
      409,
      'item_collection_mismatch',
    )
  })

  it('deletes an item', async () => {
    const collection = await createCollection(h.app, alice)
    const item = await createItem(h.app, alice, collection)
    expect((await call(h.app, alice, 'DELETE', `/v1/items/${item}`)).statusCode).toBe(204)
    expect(await items(alice, collection)).toEqual([])
  })

  it('follows the lock (423) and publication (409) of a standard collection', async () => {
    const collection = await createCollection(h.app, alice)
    const item = await createItem(h.app, alice, collection)
    expect((await call(h.app, alice, 'POST', `/v1/collections/${collection}/lock`)).statusCode).toBe(200)
    const fresh = randomUUID()
    refusal(
      await call(h.app, alice, 'PUT', `/v1/items/${fresh}`, itemBody(fresh, collection)),
      423,
      'collection_locked',
    )
    refusal(await call(h.app, alice, 'DELETE', `/v1/items/${item}`), 423, 'collection_locked')
    await h.db.sql`update collections set is_published = true, lock = null where id = ${collection}`
    refusal(
      await call(h.app, alice, 'PUT', `/v1/items/${item}`, itemBody(item, collection)),
      409,
      'collection_published',
    )
    refusal(await call(h.app, alice, 'DELETE', `/v1/items/${item}`), 409, 'collection_published')
    // published collections show their items to anybody
    expect(await items(carol, collection)).toHaveLength(1)
  })
})
