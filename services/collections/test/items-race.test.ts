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
  setup,
  uniqueName,
} from './helpers.js'

let h: Harness
let alice: Identity
beforeAll(async () => {
  h = await setup()
  alice = await createIdentity()
})
afterAll(() => h.close())

describe('items under concurrent requests', () => {
  // Each request locks only its own collection, so several can find the id free and insert it; the losers
  // meet the primary key. Guards writeItem's catch (`items_pkey` → 409 item_collection_mismatch): without
  // it, they are a 500.
  it('one new item id sent to several collections at once: created in exactly one; the others are 409 item_collection_mismatch, never a 500', async () => {
    const collections = await Promise.all(Array.from({ length: 8 }, () => createCollection(h.app, alice)))
    for (let round = 0; round < 3; round++) {
      const id = randomUUID()
      const results = await Promise.all(
        collections.map((collection_id) =>
          call(h.app, alice, 'PUT', `/v1/items/${id}`, {
            id,
            collection_id,
            name: uniqueName('Item'),
            type: 'wearable',
            content_hash: contentHash(),
          }),
        ),
      )
      const statuses = results.map((r) => r.statusCode)
      expect(
        statuses.filter((s) => s === 204),
        statuses.join(),
      ).toHaveLength(1)
      const refused = results.filter((r) => r.statusCode !== 204)
      expect(refused.map((r) => [r.statusCode, r.json().code])).toEqual(
        refused.map(() => [409, 'item_collection_mismatch']),
      )
      const winner = collections[statuses.indexOf(204)]
      const rows = await h.db.sql<
        { collection_id: string }[]
      >`select collection_id from items where id = ${id}`
      expect(rows).toEqual([{ collection_id: winner }])
    }
  })

  // removeItem reads the item, then takes the collection's lock and reads it again: the requests that read
  // it before the first one deleted it find it gone. Guards that second read (`!item` → false: every
  // request answers 204, as if each had deleted it).
  it('deleted by several requests at once: one 204, the others 404', async () => {
    const collection = await createCollection(h.app, alice)
    for (let round = 0; round < 3; round++) {
      const id = await createItem(h.app, alice, collection)
      const results = await Promise.all(
        Array.from({ length: 6 }, () => call(h.app, alice, 'DELETE', `/v1/items/${id}`)),
      )
      const statuses = results.map((r) => r.statusCode)
      expect(
        statuses.filter((s) => s === 204),
        statuses.join(),
      ).toHaveLength(1)
      expect(
        statuses.filter((s) => s === 404),
        statuses.join(),
      ).toHaveLength(5)
    }
  })
})
