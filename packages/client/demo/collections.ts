/** Collections: a creator makes a collection, a third party publishes with a cheque, the committee reviews. */
import { Wallet } from 'ethers'
import { signCheque } from '../src/index.js'
import { check, contentHash, type Demo, hex, short } from './demo.js'

export async function collectionsFlow({ options, base, section, step, refused, actor }: Demo): Promise<void> {
  section(`Collections (${options.urls.collections})`)
  const creator = await actor(Wallet.createRandom())
  const collectionId = globalThis.crypto.randomUUID()
  const name = `Demo wearables ${hex(4)}`
  await step(
    'a creator makes a collection',
    async () => {
      await creator.collections.putCollection({ id: collectionId, name })
      return creator.collections.getCollection(collectionId)
    },
    (c) => {
      check(
        c.eth_address === creator.identity!.address && !c.is_published,
        'expected an unpublished own collection',
      )
      check(c.contract_address && c.urn.includes(c.contract_address), 'expected a derived contract and URN')
      return `"${c.name}", contract ${c.contract_address}, ${c.urn}`
    },
  )
  const items = [
    { id: globalThis.crypto.randomUUID(), name: 'Straw hat', content_hash: contentHash() },
    { id: globalThis.crypto.randomUUID(), name: 'Sunglasses', content_hash: contentHash() },
  ]
  await step(
    'adds two items',
    async () => {
      for (const item of items)
        await creator.collections.putItem({ ...item, collection_id: collectionId, type: 'wearable' })
      return creator.collections.listItems(collectionId)
    },
    (listed) => {
      check(listed.length === 2, 'expected two items')
      return listed.map((i) => i.name).join(', ')
    },
  )
  await step(
    'locks it for publication',
    () => creator.collections.lockCollection(collectionId),
    (lock) => `locked since ${lock}`,
  )
  await refused(
    'a rename while locked',
    () => creator.collections.putCollection({ id: collectionId, name: `${name} renamed` }),
    423,
    'collection_locked',
  )
  await step(
    'accepts the terms of service',
    () =>
      creator.collections.acceptTerms(collectionId, {
        email: 'creator@example.com',
        event: 'publish_collection_tos',
        hashes: items.map((i) => i.content_hash),
      }),
    () => `${items.length} content hashes recorded`,
  )
  await step(
    'publishes it',
    async () => {
      await creator.collections.publish(collectionId, { itemIds: items.map((i) => i.id) })
      return {
        collection: await creator.collections.getCollection(collectionId),
        items: await creator.collections.listItems(collectionId),
      }
    },
    (published) => {
      check(published.collection.is_published, 'expected the collection published')
      const ids = published.items.map((i) => i.blockchain_item_id)
      check(ids.join() === '0,1', `expected blockchain item ids 0 and 1, got ${ids.join()}`)
      return `published; blockchain item ids ${ids.join(', ')}`
    },
  )
  await step(
    'anybody finds its contract among the published ones (no signature)',
    () => base.collections.contractAddresses({ q: name }),
    (page) => {
      check(page.total === 1, `expected one contract, got ${page.total}`)
      return page.items.join(', ')
    },
  )

  // ── collections: a third party publishes with a cheque, the committee reads the approval data ────
  const managerWallet = Wallet.createRandom()
  const manager = await actor(managerWallet)
  const thirdPartyName = `demo-${hex(4)}`
  const thirdPartyId = `urn:decentraland:${options.network}:collections-thirdparty:${thirdPartyName}`
  const thirdPartyCollection = globalThis.crypto.randomUUID()
  const thirdPartyItem = { id: globalThis.crypto.randomUUID(), name: 'Cap', content_hash: contentHash() }
  await step(
    'a third party makes a collection and adds an item',
    async () => {
      await manager.collections.putCollection({
        id: thirdPartyCollection,
        name: 'Demo caps',
        urn: `${thirdPartyId}:summer`,
      })
      await manager.collections.putItem({
        ...thirdPartyItem,
        collection_id: thirdPartyCollection,
        type: 'wearable',
      })
      return manager.collections.getCollection(thirdPartyCollection)
    },
    (c) => {
      check(c.contract_address === null, 'a third-party collection has no contract of its own')
      return c.urn
    },
  )
  const cheque = await signCheque(managerWallet, { thirdPartyId, qty: 1, registry: options.registry })
  await step(
    'publishes the item with a cheque for one slot',
    () => manager.collections.publish(thirdPartyCollection, { itemIds: [thirdPartyItem.id], cheque }),
    () => `cheque qty 1, salt ${short(cheque.salt)}, signed by ${short(manager.identity!.address)}`,
  )
  const committee = await actor(new Wallet(options.committeeKey))
  await refused(
    'the third party asks for approval data',
    () => manager.collections.approvalData(thirdPartyCollection),
    403,
    'forbidden',
  )
  await step(
    'the committee reads the approval data',
    () => committee.collections.approvalData(thirdPartyCollection),
    (data) => {
      check(data.cheque.signature === cheque.signature, 'expected the cheque that was sent')
      check(data.content_hashes[thirdPartyItem.id] === thirdPartyItem.content_hash, 'expected the item hash')
      check(/^0x[0-9a-f]{64}$/.test(data.root), 'expected a Merkle root')
      return `root ${short(data.root)}, ${Object.keys(data.content_hashes).length} item, cheque consumed: ${data.chequeWasConsumed}`
    },
  )

  // ── collections: the committee reviews the standard collection ────────────────────────────────────
  const review = await step(
    'the creator asks the committee to review the published collection',
    () => creator.collections.requestReview(collectionId),
    (r) => {
      check(r.status === 'pending' && r.kind === 'collection', `expected a pending review, got ${r.status}`)
      return `review ${r.id} pending`
    },
  )
  await step(
    "sets the review's forum thread",
    async () => {
      await creator.collections.setForum(collectionId, {
        forum_link: 'https://forum.example/t/demo',
        forum_id: 1,
      })
      return creator.collections.getCollection(collectionId)
    },
    (c) => {
      check(c.forum_link === 'https://forum.example/t/demo', 'expected the forum link')
      return `${c.forum_link} (#${c.forum_id})`
    },
  )
  await step(
    'the committee finds it among the pending reviews',
    () => committee.collections.pendingReviews({ q: name }),
    (page) => {
      check(
        page.items.some((r) => r.id === review.id),
        'expected the review in the queue',
      )
      return `${page.total} pending for "${name}"`
    },
  )
  await step(
    'the committee approves it',
    () => committee.collections.decideReview(review.id, 'approve', 'Looks good'),
    (r) => {
      check(r.status === 'approved' && r.reviewed_at !== null, `expected approved, got ${r.status}`)
      return `approved at ${r.reviewed_at} ("${r.comment}")`
    },
  )
  await step(
    'the creator and anybody else read it approved',
    async () => ({
      own: await creator.collections.getCollection(collectionId),
      other: await manager.collections.getCollection(collectionId),
    }),
    ({ own, other }) => {
      check(own.is_approved && own.reviewed_at !== null, 'expected the owner to read it approved')
      check(other.is_approved, 'expected the public view approved')
      return `is_approved true, reviewed_at ${own.reviewed_at}`
    },
  )
}
