import { randomBytes } from 'node:crypto'
import type { Item } from '@genesis/wire/collections'
import { beforeAll, describe, expect, it } from 'vitest'
import { signCheque } from './chequebook.js'
import {
  call,
  createCollection,
  createItem,
  type Identity,
  refusal,
  useHarness,
  useIdentities,
} from './helpers.js'

// A third party's items that were never sent to review (drafts) are its editors' alone: the collection's
// owner and managers and the third party's managers. Minters, the committee (which reviews what was sent)
// and anybody else see only what was sent to review, before and after the first publication.

const h = useHarness()
const [owner, manager, minter, tpManager, stranger] = useIdentities(5)
const tpId = `urn:decentraland:sepolia:collections-thirdparty:drafts${randomBytes(4).toString('hex')}`
let collection: string
let sent: string
let draft: string

beforeAll(async () => {
  collection = await createCollection(h.app, owner, {
    urn: `${tpId}:drop`,
    managers: [manager.address],
    minters: [minter.address],
  })
  // without RPC_URL the stored managers decide: the owner registered the third party, tpManager joins it
  await h.db.sql`
    update third_parties set managers = ${h.db.sql.array([owner.address, tpManager.address])} where id = ${tpId}`
  sent = await createItem(h.app, owner, collection)
  draft = await createItem(h.app, owner, collection)
})

const itemsSeenBy = async (who: Identity) => {
  const res = await call(h.app, who, 'GET', `/v1/collections/${collection}/items`)
  if (res.statusCode !== 200) return res.statusCode
  return (res.json().data as Item[]).map((i) => i.id)
}

describe("a third party's draft items", () => {
  it('before any publication: the editors see every item, the committee none, others get 404', async () => {
    for (const editor of [owner, manager, tpManager]) expect(await itemsSeenBy(editor)).toEqual([sent, draft])
    expect(await itemsSeenBy(h.committee)).toEqual([])
    expect(await itemsSeenBy(minter)).toEqual([])
    expect(await itemsSeenBy(stranger)).toBe(404)
  })

  it('after the first publication: only the items sent to review are listed to others', async () => {
    const cheque = await signCheque(h.config, owner, tpId, 1)
    const published = await call(h.app, owner, 'POST', `/v1/collections/${collection}/publish`, {
      itemIds: [sent],
      cheque,
    })
    expect(published.statusCode, published.body).toBe(204)
    for (const editor of [owner, manager, tpManager]) expect(await itemsSeenBy(editor)).toEqual([sent, draft])
    for (const other of [stranger, minter, h.committee]) expect(await itemsSeenBy(other)).toEqual([sent])
    const shown = (await call(h.app, stranger, 'GET', `/v1/collections/${collection}/items`)).json().data
    expect(JSON.stringify(shown)).not.toContain(draft)
  })

  it('an item a rejection gives back to its creator is a draft again', async () => {
    const review = await call(h.app, owner, 'POST', `/v1/collections/${collection}/curations`)
    expect(review.statusCode, review.body).toBe(201)
    const rejected = await call(
      h.app,
      h.committee,
      'POST',
      `/v1/curations/${review.json().data.id}/reject`,
      {},
    )
    expect(rejected.statusCode, rejected.body).toBe(200)
    expect(await itemsSeenBy(stranger)).toEqual([])
    expect(await itemsSeenBy(owner)).toEqual([sent, draft])
  })

  it('a standard collection is unchanged: once published, all its items are public', async () => {
    const standard = await createCollection(h.app, owner)
    const item = await createItem(h.app, owner, standard)
    refusal(await call(h.app, stranger, 'GET', `/v1/collections/${standard}/items`), 404, 'not_found')
    expect(
      (await call(h.app, h.committee, 'GET', `/v1/collections/${standard}/items`)).json().data,
    ).toHaveLength(1)
    await h.db.sql`update collections set is_published = true where id = ${standard}`
    const listed = (await call(h.app, stranger, 'GET', `/v1/collections/${standard}/items`)).json()
      .data as Item[]
    expect(listed.map((i) => i.id)).toEqual([item])
  })
})
