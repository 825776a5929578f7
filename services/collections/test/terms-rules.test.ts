import { describe, expect, it } from 'vitest'
import {
  acceptTos,
  call,
  contentHash,
  createCollection,
  createItem,
  useHarness,
  useIdentities,
} from './helpers.js'

const h = useHarness()
const [alice] = useIdentities(1)

const terms = (id: string) =>
  call(h.app, alice, 'POST', `/v1/collections/${id}/tos`, {
    email: 'alice@example.com',
    event: 'publish_collection_tos',
    hashes: [contentHash()],
  })

describe('terms of service: neither the lock nor publication stops them', () => {
  // The lock is taken to publish, and terms are part of publishing. Guards acceptTerms's
  // `allowLocked: true` and `allowPublished: true` (→ false: 423 / 409).
  it('are accepted while the collection is locked, and again once it is published', async () => {
    const id = await createCollection(h.app, alice)
    const itemIds = [await createItem(h.app, alice, id)]
    expect((await call(h.app, alice, 'POST', `/v1/collections/${id}/lock`)).statusCode).toBe(200)
    expect((await terms(id)).statusCode).toBe(204)
    await acceptTos(h.app, alice, id)
    const published = await call(h.app, alice, 'POST', `/v1/collections/${id}/publish`, { itemIds })
    expect(published.statusCode, published.body).toBe(204)
    expect((await terms(id)).statusCode).toBe(204)
    const [row] = await h.db.sql<{ n: number }[]>`
      select count(*)::int as n from tos_acceptances where collection_id = ${id}`
    expect(row?.n).toBe(3)
  })
})
