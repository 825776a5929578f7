import { describe, expect, it } from 'vitest'
import { signCheque } from './chequebook.js'
import {
  call,
  contentHash,
  createCollection,
  createItem,
  randomUUID,
  refusal,
  useHarness,
  useIdentities,
} from './helpers.js'
import { askReview, decide, openReview, publishedCollection, sendItems } from './review-helpers.js'

// A refusal says who may do what: each role check's message, word for word. Guards the message arguments
// of the domain's role checks (a mutant that empties one still answers 403, with a message that names
// nobody).

const h = useHarness()
const [alice, bob, carol] = useIdentities(3)

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

describe('publishing a third-party collection: each refusal names what is wrong', () => {
  it('the unknown items, the cheque quantity, the cheque signer and the items already waiting', async () => {
    const tpId = `urn:decentraland:sepolia:collections-thirdparty:tp${randomUUID().slice(0, 8)}`
    const id = await createCollection(h.app, alice, { urn: `${tpId}:winter` })
    const [a, b] = [await createItem(h.app, alice, id), await createItem(h.app, alice, id)]
    const publish = async (itemIds: string[], cheque: Awaited<ReturnType<typeof signCheque>>) =>
      call(h.app, alice, 'POST', `/v1/collections/${id}/publish`, { itemIds, cheque })

    // guards the unknown-items message (template, `', '` separator) and its data (`{ unknown }` → `{}`)
    const [u1, u2] = [randomUUID(), randomUUID()]
    const unknown = refusal(
      await publish([a, u1, u2], await signCheque(h.config, alice, tpId, 3)),
      400,
      'invalid_items',
    )
    expect(unknown.error).toBe(`Some items are not items of collection ${id}: ${u1}, ${u2}`)
    expect(unknown.data).toEqual({ unknown: [u1, u2] })

    // guards the quantity refusal's path `'body.cheque.qty'` and its message → `""`
    const qty = refusal(
      await publish([a, b], await signCheque(h.config, alice, tpId, 3)),
      400,
      'invalid_cheque',
    )
    expect(qty.data?.errors).toEqual([
      { path: 'body.cheque.qty', message: 'must be the number of items published (2)' },
    ])

    // guards the signature refusal's path `'body.cheque.signature'` and its message → `""`
    const signer = refusal(
      await publish([a, b], await signCheque(h.config, bob, tpId, 2)),
      400,
      'invalid_cheque',
    )
    expect(signer.data?.errors).toEqual([
      {
        path: 'body.cheque.signature',
        message: `is not the caller's EIP-712 ConsumeSlots signature for ${tpId}`,
      },
    ])

    // guards the waiting items' `.map((i) => i.id)` → `() => undefined`: the refusal names them
    await sendItems(h.app, h.config, alice, id, tpId, [a])
    const waiting = refusal(
      await publish([a, b], await signCheque(h.config, alice, tpId, 2)),
      409,
      'items_waiting_approval',
    )
    expect(waiting.error).toBe(`Some items are already waiting for approval: ${a}`)
    expect(waiting.data).toEqual({ items: [a] })
  })
})

describe('approval data: the refusals say who may read it and why there is none', () => {
  it('403 names the committee; 409 says nothing was sent to review', async () => {
    const tpId = `urn:decentraland:sepolia:collections-thirdparty:tp${randomUUID().slice(0, 8)}`
    const id = await createCollection(h.app, alice, { urn: `${tpId}:spring` })
    await createItem(h.app, alice, id)
    // guards notAllowed's arguments → `""`
    const stranger = refusal(
      await call(h.app, alice, 'GET', `/v1/collections/${id}/approvalData`),
      403,
      'forbidden',
    )
    expect(stranger.error).toBe('Only committee members may read approval data')
    // guards the not_published message → `` `` ``
    const none = refusal(
      await call(h.app, h.committee, 'GET', `/v1/collections/${id}/approvalData`),
      409,
      'not_published',
    )
    expect(none.error).toBe(`Collection ${id} has no items sent to review yet`)
  })
})

describe('reviews: each refusal says who may act, or why not', () => {
  it('asking for review of an unpublished collection says to publish it first', async () => {
    const id = await createCollection(h.app, alice)
    await createItem(h.app, alice, id)
    // guards the not_published message → `` `` ``
    const body = refusal(await askReview(h.app, alice, id), 409, 'not_published')
    expect(body.error).toBe(`Collection ${id} is not published: publish it before asking for review`)
  })

  it('deciding a review is for committee members', async () => {
    const id = await publishedCollection(h.app, alice)
    const curation = await openReview(h.app, alice, id)
    // guards notAllowed's arguments → `""`
    const body = refusal(await decide(h.app, alice, curation.id, 'approve'), 403, 'forbidden')
    expect(body.error).toBe('Only committee members may decide a review')
  })

  it("reading a published collection's reviews is for its members and the committee", async () => {
    const id = await publishedCollection(h.app, alice)
    // guards notAllowed's arguments → `""`
    const body = refusal(await call(h.app, carol, 'GET', `/v1/collections/${id}/curations`), 403, 'forbidden')
    expect(body.error).toBe(
      "Only its owner, managers, minters or the committee may read the collection's reviews",
    )
  })

  it('setting the forum thread is for the owner, a manager or the committee', async () => {
    const id = await publishedCollection(h.app, alice)
    // guards notAllowed's arguments → `""`
    const body = refusal(
      await call(h.app, carol, 'PUT', `/v1/collections/${id}/forum`, {
        forum_link: 'https://forum.example.org/t/1',
        forum_id: 1,
      }),
      403,
      'forbidden',
    )
    expect(body.error).toBe(
      "Only the owner, a manager or the committee may set the collection's forum thread",
    )
  })
})
