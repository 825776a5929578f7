import { requireRealPostgres } from '@genesis/common/testing'
import { describe, expect, it } from 'vitest'
import {
  call,
  contentHash,
  createCollection,
  createItem,
  lockWaiters,
  randomUUID,
  refusal,
  uniqueName,
  useHarness,
  useIdentities,
} from './helpers.js'

const h = useHarness()
const [alice, bob] = useIdentities(2)

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

  // removeItem checks the caller's rights on the collection it first read the item in; the item deleted and
  // created again in another's collection before the locked re-read must not be deleted on those rights.
  // A transaction holds Alice's collection so that the request waits between its two reads. Guards
  // `item.collection_id !== collection.id` → `false` (Bob's item deleted by Alice: 204).
  it("an item moved to another's collection while the delete waits is not deleted: 404", async (ctx) => {
    requireRealPostgres(ctx, h.db)
    const mine = await createCollection(h.app, alice)
    const theirs = await createCollection(h.app, bob)
    const id = await createItem(h.app, alice, mine)
    let answer: Promise<Awaited<ReturnType<typeof call>>> | undefined
    await h.db.sql.begin(async (tx) => {
      await tx`select 1 from collections where id = ${mine} for update`
      answer = call(h.app, alice, 'DELETE', `/v1/items/${id}`)
      await lockWaiters(h, 1)
      await tx`delete from items where id = ${id}`
      await tx`
        insert into items (id, collection_id, name, type, content_hash)
        values (${id}, ${theirs}, 'Bob item', 'wearable', ${contentHash()})`
    })
    const body = refusal(await answer!, 404, 'not_found')
    expect(body.error).toBe(`Item ${id} not found`)
    const rows = await h.db.sql<{ collection_id: string }[]>`select collection_id from items where id = ${id}`
    expect(rows).toEqual([{ collection_id: theirs }])
  })
})
