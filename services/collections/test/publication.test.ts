import { generateTree } from '@dcl/content-hash-tree'
import { signedInject } from '@genesis/common/testing'
import type { Collection, Item } from '@genesis/wire/collections'
import { MAX_CONTENT_HASH_LENGTH, MAX_PUBLISH_ITEMS, MAX_TOS_HASHES } from '@genesis/wire/collections'
import { beforeAll, describe, expect, it } from 'vitest'
import { TOS_BODY_LIMIT } from '../src/routes/publication.js'
import { signCheque } from './chequebook.js'
import {
  acceptTos,
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

const h = useHarness({ env: { LOCK_TTL_S: '60' } })
const [alice, bob, carol] = useIdentities(3)

const read = async (who: Identity, id: string) =>
  (await call(h.app, who, 'GET', `/v1/collections/${id}`)).json().data as Collection
const itemsOf = async (who: Identity, id: string) =>
  (await call(h.app, who, 'GET', `/v1/collections/${id}/items`)).json().data as Item[]
const publish = (who: Identity, id: string, body: unknown) =>
  call(h.app, who, 'POST', `/v1/collections/${id}/publish`, body)

describe('lock', () => {
  it('locks for the owner or a manager and keeps an active lock instead of renewing it', async () => {
    const id = await createCollection(h.app, alice, { managers: [bob.address] })
    const first = await call(h.app, bob, 'POST', `/v1/collections/${id}/lock`)
    expect(first.statusCode).toBe(200)
    const lock = first.json().data as string
    expect(Date.parse(lock)).toBeGreaterThan(Date.now() - 10_000)
    const again = await call(h.app, alice, 'POST', `/v1/collections/${id}/lock`)
    expect(again.json()).toEqual({ ok: true, data: lock })
    expect((await read(alice, id)).lock).toBe(lock)
    // locked: PUT and DELETE are refused with 423
    refusal(
      await call(h.app, alice, 'PUT', `/v1/collections/${id}`, { id, name: 'Changed' }),
      423,
      'collection_locked',
    )
    refusal(await call(h.app, alice, 'DELETE', `/v1/collections/${id}`), 423, 'collection_locked')
  })

  it('ends after LOCK_TTL_S: a new lock starts and changes are allowed again', async () => {
    const id = await createCollection(h.app, alice)
    await h.db.sql`update collections set lock = now() - interval '61 seconds' where id = ${id}`
    expect((await read(alice, id)).lock).toBeNull()
    expect(
      (await call(h.app, alice, 'PUT', `/v1/collections/${id}`, { id, name: `Unlocked ${id.slice(0, 8)}` }))
        .statusCode,
    ).toBe(204)
    const lock = (await call(h.app, alice, 'POST', `/v1/collections/${id}/lock`)).json().data as string
    expect(Date.parse(lock)).toBeGreaterThan(Date.now() - 10_000)
  })

  it('refuses strangers (403), unknown collections (404) and published ones (409)', async () => {
    const id = await createCollection(h.app, alice)
    refusal(await call(h.app, carol, 'POST', `/v1/collections/${id}/lock`), 403, 'forbidden')
    refusal(await call(h.app, alice, 'POST', `/v1/collections/${randomUUID()}/lock`), 404, 'not_found')
    await h.db.sql`update collections set is_published = true where id = ${id}`
    refusal(await call(h.app, alice, 'POST', `/v1/collections/${id}/lock`), 409, 'collection_published')
  })
})

describe('terms of service', () => {
  it('records the acceptance with the signer and time', async () => {
    const id = await createCollection(h.app, alice, { managers: [bob.address] })
    const hashes = [contentHash(), contentHash()]
    const res = await call(h.app, bob, 'POST', `/v1/collections/${id}/tos`, {
      email: 'bob@example.com',
      event: 'publish_collection_tos',
      hashes,
    })
    expect(res.statusCode).toBe(204)
    const [row] = await h.db
      .sql`select signer, email, event, hashes, created_at from tos_acceptances where collection_id = ${id}`
    expect(row).toMatchObject({
      signer: bob.address,
      email: 'bob@example.com',
      event: 'publish_collection_tos',
      hashes,
    })
  })

  it('takes as many hashes as one publication takes items (5,000), and refuses one more with a 400 naming the limit', async () => {
    const id = await createCollection(h.app, alice)
    const body = (n: number) => ({
      email: 'alice@example.com',
      event: 'publish_collection_tos',
      hashes: Array.from({ length: n }, () => contentHash()),
    })
    expect(MAX_TOS_HASHES).toBe(MAX_PUBLISH_ITEMS)
    const full = await call(h.app, alice, 'POST', `/v1/collections/${id}/tos`, body(MAX_TOS_HASHES))
    expect(full.statusCode, full.body).toBe(204)
    const over = refusal(
      await call(h.app, alice, 'POST', `/v1/collections/${id}/tos`, body(MAX_TOS_HASHES + 1)),
      400,
      'bad_request',
    )
    expect(over.error).toContain(`body.hashes must NOT have more than ${MAX_TOS_HASHES} items`)
    const [stored] = await h.db.sql<{ n: number; longest: number }[]>`
      select count(*)::int as n, max(cardinality(hashes))::int as longest from tos_acceptances
      where collection_id = ${id}`
    expect(stored).toEqual({ n: 1, longest: MAX_TOS_HASHES })
  })

  it('a body as large as the limit allows, with the longest hashes indented, is within the route body limit', async () => {
    const id = await createCollection(h.app, alice)
    const longest = `b${'a'.repeat(MAX_CONTENT_HASH_LENGTH - 1)}`
    const hashes = Array.from({ length: MAX_TOS_HASHES }, () => longest)
    const payload = JSON.stringify(
      { email: 'alice@example.com', event: 'publish_collection_tos', hashes },
      null,
      16,
    )
    expect(payload.length).toBeLessThanOrEqual(TOS_BODY_LIMIT)
    const res = await signedInject(h.app, alice, {
      method: 'POST',
      url: `/v1/collections/${id}/tos`,
      metadata: { nonce: randomUUID() },
      payload,
      headers: { 'content-type': 'application/json' },
    })
    expect(res.statusCode, res.body).toBe(204)
  })

  it('refuses strangers (403) and unknown collections (404)', async () => {
    const id = await createCollection(h.app, alice)
    const body = { email: 'x@example.com', event: 'publish_collection_tos', hashes: [contentHash()] }
    refusal(await call(h.app, carol, 'POST', `/v1/collections/${id}/tos`, body), 403, 'forbidden')
    refusal(await call(h.app, alice, 'POST', `/v1/collections/${randomUUID()}/tos`, body), 404, 'not_found')
  })
})

describe('publish a standard collection', () => {
  it('numbers the items in creation order, marks it published and ends the lock', async () => {
    const id = await createCollection(h.app, alice)
    const itemIds = [
      await createItem(h.app, alice, id),
      await createItem(h.app, alice, id),
      await createItem(h.app, alice, id),
    ]
    await acceptTos(h.app, alice, id)
    await call(h.app, alice, 'POST', `/v1/collections/${id}/lock`)
    const res = await publish(alice, id, { itemIds: [...itemIds].reverse() })
    expect(res.statusCode, res.body).toBe(204)
    const c = await read(alice, id)
    expect(c).toMatchObject({ is_published: true, lock: null })
    const items = await itemsOf(carol, id)
    expect(items.map((i) => [i.id, i.blockchain_item_id])).toEqual(
      itemIds.map((itemId, n) => [itemId, String(n)]),
    )
    refusal(await publish(alice, id, { itemIds }), 409, 'collection_published')
  })

  it('refuses a manager (403): only the owner publishes', async () => {
    const id = await createCollection(h.app, alice, { managers: [bob.address] })
    const itemIds = [await createItem(h.app, alice, id)]
    await acceptTos(h.app, alice, id)
    refusal(await publish(bob, id, { itemIds }), 403, 'forbidden')
  })

  it('needs the terms accepted for this collection (409 tos_not_accepted)', async () => {
    const id = await createCollection(h.app, alice)
    const other = await createCollection(h.app, alice)
    await acceptTos(h.app, alice, other)
    const itemIds = [await createItem(h.app, alice, id)]
    refusal(await publish(alice, id, { itemIds }), 409, 'tos_not_accepted')
  })

  it('needs exactly the items of the collection (400)', async () => {
    const id = await createCollection(h.app, alice)
    const a = await createItem(h.app, alice, id)
    const b = await createItem(h.app, alice, id)
    await acceptTos(h.app, alice, id)
    const missing = refusal(await publish(alice, id, { itemIds: [a] }), 400, 'invalid_items')
    expect(missing.data).toMatchObject({ missing: [b], unknown: [] })
    const stranger = randomUUID()
    const unknown = refusal(await publish(alice, id, { itemIds: [a, b, stranger] }), 400, 'invalid_items')
    expect(unknown.data).toMatchObject({ missing: [], unknown: [stranger] })
    refusal(await publish(alice, id, { itemIds: [a, b, a] }), 400, 'invalid_items')
    expect((await read(alice, id)).is_published).toBe(false)
  })

  it('is 404 for an unknown collection', async () => {
    refusal(await publish(alice, randomUUID(), { itemIds: [randomUUID()] }), 404, 'not_found')
  })
})

describe('third-party collections: publish with a cheque, then approval data', () => {
  let tpId: string
  let collection: string
  let itemIds: string[]
  let hashes: string[]
  let firstCheque: { qty: number; salt: string; signature: string }
  beforeAll(async () => {
    const name = `tp${randomUUID().slice(0, 8)}`
    tpId = `urn:decentraland:sepolia:collections-thirdparty:${name}`
    collection = await createCollection(h.app, alice, { urn: `${tpId}:summer` })
    hashes = [contentHash(), contentHash(), contentHash()]
    itemIds = []
    for (const hash of hashes) itemIds.push(await createItem(h.app, alice, collection, hash))
  })

  it('refuses approval data before anything is sent to review (409 not_published)', async () => {
    refusal(
      await call(h.app, h.committee, 'GET', `/v1/collections/${collection}/approvalData`),
      409,
      'not_published',
    )
  })

  it('refuses a publication without a cheque, with a wrong qty or signer (400), or by a non-manager (403)', async () => {
    const two = itemIds.slice(0, 2)
    refusal(await publish(alice, collection, { itemIds: two }), 400, 'bad_request')
    refusal(
      await publish(alice, collection, { itemIds: two, cheque: await signCheque(h.config, alice, tpId, 3) }),
      400,
      'invalid_cheque',
    )
    refusal(
      await publish(alice, collection, { itemIds: two, cheque: await signCheque(h.config, bob, tpId, 2) }),
      400,
      'invalid_cheque',
    )
    refusal(
      await publish(alice, collection, {
        itemIds: two,
        cheque: await signCheque(h.config, alice, `${tpId}x`, 2),
      }),
      400,
      'invalid_cheque',
    )
    refusal(
      await publish(bob, collection, { itemIds: two, cheque: await signCheque(h.config, bob, tpId, 2) }),
      403,
      'forbidden',
    )
    const stranger = randomUUID()
    refusal(
      await publish(alice, collection, {
        itemIds: [itemIds[0], stranger],
        cheque: await signCheque(h.config, alice, tpId, 2),
      }),
      400,
      'invalid_items',
    )
  })

  it('sends items to review with a valid cheque; the same items again are 409, the same cheque is 409', async () => {
    const two = itemIds.slice(0, 2)
    const cheque = await signCheque(h.config, alice, tpId, 2)
    const res = await publish(alice, collection, { itemIds: two, cheque })
    expect(res.statusCode, res.body).toBe(204)
    expect((await read(carol, collection)).is_published).toBe(true)
    refusal(
      await publish(alice, collection, { itemIds: two, cheque: await signCheque(h.config, alice, tpId, 2) }),
      409,
      'items_waiting_approval',
    )
    firstCheque = cheque
    // an item sent to review is frozen; the others can still change
    refusal(
      await call(h.app, alice, 'PUT', `/v1/items/${itemIds[0]}`, {
        id: itemIds[0],
        collection_id: collection,
        name: 'Changed',
        type: 'wearable',
        content_hash: contentHash(),
      }),
      409,
      'item_published',
    )
    refusal(await call(h.app, alice, 'DELETE', `/v1/items/${itemIds[0]}`), 409, 'item_published')
    refusal(
      await call(h.app, alice, 'PUT', `/v1/collections/${collection}`, { id: collection, name: 'Renamed' }),
      409,
      'collection_published',
    )
  })

  it('gives the committee the latest cheque, the content hashes and their Merkle root', async () => {
    const cheque = await signCheque(h.config, alice, tpId, 1)
    expect((await publish(alice, collection, { itemIds: [itemIds[2]], cheque })).statusCode).toBe(204)
    const res = await call(h.app, h.committee, 'GET', `/v1/collections/${collection}/approvalData`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      ok: true,
      data: {
        cheque,
        content_hashes: Object.fromEntries(itemIds.map((id, i) => [id, hashes[i]])),
        chequeWasConsumed: false,
        root: generateTree([...hashes]).merkleRoot,
      },
    })
  })

  it('refuses a cheque that was already used (409 cheque_used)', async () => {
    const more = [await createItem(h.app, alice, collection), await createItem(h.app, alice, collection)]
    refusal(await publish(alice, collection, { itemIds: more, cheque: firstCheque }), 409, 'cheque_used')
  })

  it('refuses approval data to anybody but the committee (403), for standard collections (409), unknown ones (404)', async () => {
    refusal(await call(h.app, alice, 'GET', `/v1/collections/${collection}/approvalData`), 403, 'forbidden')
    const standard = await createCollection(h.app, alice)
    refusal(
      await call(h.app, h.committee, 'GET', `/v1/collections/${standard}/approvalData`),
      409,
      'not_third_party',
    )
    refusal(
      await call(h.app, h.committee, 'GET', `/v1/collections/${randomUUID()}/approvalData`),
      404,
      'not_found',
    )
  })
})
