// A collection holds at most 5,000 items (what one publication takes), and its list is answered a page at a
// time: a stranger cannot make a collection whose list costs the service more than that.

import { MAX_ITEMS_PAGE, MAX_ITEMS_PER_COLLECTION } from '@genesis/wire/collections'
import { describe, expect, it } from 'vitest'
import {
  call,
  contentHash,
  createCollection,
  randomUUID,
  refusal,
  useHarness,
  useIdentities,
} from './helpers.js'

const h = useHarness()
const [alice] = useIdentities(1)

/** Fills the collection to `n` items straight in the database (writing them one by one is tested elsewhere). */
const fill = (collectionId: string, n: number) =>
  h.db.sql`
    insert into items (id, collection_id, name, type, content_hash, created_at)
    select gen_random_uuid(), ${collectionId}, 'Item ' || i, 'wearable', ${contentHash()},
           now() - interval '1 hour' + i * interval '1 millisecond'
    from generate_series(1, ${n}) as i`

const putItem = (collectionId: string) => {
  const id = randomUUID()
  return call(h.app, alice, 'PUT', `/v1/items/${id}`, {
    id,
    collection_id: collectionId,
    name: 'One more',
    type: 'wearable',
    content_hash: contentHash(),
  })
}

describe('the items of a collection', () => {
  it('are refused past the bound, even when sent together: exactly one takes the last place', async () => {
    const collection = await createCollection(h.app, alice)
    await fill(collection, MAX_ITEMS_PER_COLLECTION - 1)
    const answers = await Promise.all(Array.from({ length: 4 }, () => putItem(collection)))
    expect(answers.map((a) => a.statusCode).sort()).toEqual([204, 409, 409, 409])
    const refused = refusal(answers.find((a) => a.statusCode === 409)!, 409, 'collection_full')
    expect(refused.data).toEqual({ max_items: MAX_ITEMS_PER_COLLECTION })
    expect(refused.error).toMatch(/already has 5,000 items, the most one publication takes/)
    const [count] = await h.db.sql<
      { n: number }[]
    >`select count(*)::int as n from items where collection_id = ${collection}`
    expect(count?.n).toBe(MAX_ITEMS_PER_COLLECTION)
    // an existing item is still edited at the bound
    const [first] = await h.db.sql<
      { id: string }[]
    >`select id from items where collection_id = ${collection} limit 1`
    const edit = await call(h.app, alice, 'PUT', `/v1/items/${first!.id}`, {
      id: first!.id,
      collection_id: collection,
      name: 'Renamed',
      type: 'emote',
      content_hash: contentHash(),
    })
    expect(edit.statusCode, edit.body).toBe(204)
  })

  it('are listed a page at a time, in creation order, every item once', async () => {
    const collection = await createCollection(h.app, alice)
    await fill(collection, 2500)
    const first = (await call(h.app, alice, 'GET', `/v1/collections/${collection}/items`)).json()
    expect(first.data).toHaveLength(MAX_ITEMS_PAGE)
    expect(first.pagination).toEqual({ page: 1, limit: MAX_ITEMS_PAGE, total: 2500, pages: 3 })
    const seen: string[] = []
    for (let page = 1; page <= 3; page++) {
      const answer = (
        await call(h.app, alice, 'GET', `/v1/collections/${collection}/items?page=${page}`)
      ).json()
      seen.push(...answer.data.map((item: { name: string }) => item.name))
    }
    expect(seen).toEqual(Array.from({ length: 2500 }, (_, i) => `Item ${i + 1}`))
    const small = (
      await call(h.app, alice, 'GET', `/v1/collections/${collection}/items?limit=7&page=2`)
    ).json()
    expect(small.data.map((item: { name: string }) => item.name)).toEqual(
      Array.from({ length: 7 }, (_, i) => `Item ${i + 8}`),
    )
    refusal(
      await call(h.app, alice, 'GET', `/v1/collections/${collection}/items?limit=${MAX_ITEMS_PAGE + 1}`),
      400,
      'bad_request',
    )
  })
})
