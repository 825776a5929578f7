import type { Item } from '@genesis/wire/collections'
import { describe, expect, it } from 'vitest'
import {
  acceptTos,
  call,
  createCollection,
  createItem,
  refusal,
  useHarness,
  useIdentities,
} from './helpers.js'

// Item ids in a publication are compared lower-case: an upper-case spelling is the same item.

const h = useHarness()
const [alice] = useIdentities(1)

const publish = (id: string, itemIds: string[]) =>
  call(h.app, alice, 'POST', `/v1/collections/${id}/publish`, { itemIds })

describe('publishing a standard collection by item ids', () => {
  it('refuses items listed twice in two spellings, naming each once (400 invalid_items)', async () => {
    const id = await createCollection(h.app, alice)
    const a = await createItem(h.app, alice, id)
    const b = await createItem(h.app, alice, id)
    await acceptTos(h.app, alice, id)
    // Guards checkDistinct: its lower-casing, its `indexOf(id) !== i`, and the de-duplicated list it answers.
    const twice = refusal(
      await publish(id, [a, b, a.toUpperCase(), b.toUpperCase(), a]),
      400,
      'invalid_items',
    )
    expect(twice.data).toEqual({ duplicates: [a, b] })
    expect(twice.error).toBe(`itemIds lists some items more than once: ${a}, ${b}`)
  })

  it('says why a list that is not exactly the items is refused (400 invalid_items)', async () => {
    const id = await createCollection(h.app, alice)
    const a = await createItem(h.app, alice, id)
    const b = await createItem(h.app, alice, id)
    await acceptTos(h.app, alice, id)
    const body = refusal(await publish(id, [a]), 400, 'invalid_items')
    expect(body.error).toBe('itemIds must be exactly the items of the collection')
    expect(body.data).toEqual({ missing: [b], unknown: [] })
  })

  it('publishes with upper-case ids, numbering the items it stores lower-case', async () => {
    const id = await createCollection(h.app, alice)
    const a = await createItem(h.app, alice, id)
    const b = await createItem(h.app, alice, id)
    await acceptTos(h.app, alice, id)
    const res = await publish(id, [b.toUpperCase(), a.toUpperCase()])
    expect(res.statusCode, res.body).toBe(204)
    const items = (await call(h.app, alice, 'GET', `/v1/collections/${id}/items`)).json().data as Item[]
    expect(items.map((i) => [i.id, i.blockchain_item_id])).toEqual([
      [a, '0'],
      [b, '1'],
    ])
  })
})
