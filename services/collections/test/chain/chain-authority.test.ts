import { randomBytes } from 'node:crypto'
import type { Identity } from '@genesis/common/testing'
import { chainTestsSkipReason, contractAt } from '@genesis/contracts'
import type { Collection, Item } from '@genesis/wire/collections'
import { describe, expect, it } from 'vitest'
import { signCheque } from '../chequebook.js'
import { contentHash, uniqueName } from '../helpers.js'
import { chainEnv, signedRequest, startCollectionsService, useCollectionsOnChain } from './service.js'

// With RPC_URL the chain, not the service's own tables, decides who owns a collection's contract and who
// manages a third party.

const skip = chainTestsSkipReason()

describe.skipIf(skip)('the chain decides (anvil)', () => {
  const chain = useCollectionsOnChain()
  const read = async (who: Identity, id: string) =>
    (await chain.request<Collection>(who, 'GET', `/v1/collections/${id}`)).body.data
  const putCollection = (who: Identity, id: string, fields: Record<string, unknown> = {}) =>
    chain.request(who, 'PUT', `/v1/collections/${id}`, { id, name: uniqueName(), ...fields })
  async function addItem(who: Identity, collectionId: string) {
    const itemId = crypto.randomUUID()
    const res = await chain.request(who, 'PUT', `/v1/items/${itemId}`, {
      id: itemId,
      collection_id: collectionId,
      name: uniqueName('Item'),
      type: 'wearable',
      content_hash: contentHash(),
    })
    expect(res.status, JSON.stringify(res.body)).toBe(204)
    return itemId
  }
  const deploy = async (who: Identity, salt: string) => {
    const factory = contractAt('CollectionFactory', chain.d.collectionFactory, who.wallet)
    await (await factory.getFunction('deployCollection')(salt)).wait()
  }
  const registry = () => contractAt('ThirdPartyRegistry', chain.d.thirdPartyRegistry, chain.committee.wallet)
  const setManager = async (tpId: string, who: Identity, allowed: boolean) =>
    (await registry().getFunction('setManager')(tpId, who.address, allowed)).wait()

  describe('a standard collection publishes only on the contract its owner deployed', () => {
    it("front-run: an attacker who deploys first with the collection's salt owns the contract; publish is 409 not_owner", async () => {
      const [alice, mallory] = (await chain.fundedUsers(2)) as [Identity, Identity]
      const id = crypto.randomUUID()
      expect((await putCollection(alice, id)).status).toBe(204)
      const itemIds = [await addItem(alice, id)]
      const tos = await chain.request(alice, 'POST', `/v1/collections/${id}/tos`, {
        email: 'alice@example.com',
        event: 'publish_collection_tos',
        hashes: [contentHash()],
      })
      expect(tos.status).toBe(204)
      const collection = await read(alice, id)

      // mallory learned the salt (the mempool, a manager) and deploys first: the factory makes her the owner
      await deploy(mallory, collection.salt!)
      const onChain = contractAt('Collection', collection.contract_address!, chain.provider)
      expect(String(await onChain.getFunction('owner')()).toLowerCase()).toBe(mallory.address)
      // her contract would let her set a minter and mint: the service must not publish the collection on it
      await expect(deploy(alice, collection.salt!)).rejects.toThrow()

      const refused = await chain.request(alice, 'POST', `/v1/collections/${id}/publish`, { itemIds })
      expect([refused.status, refused.body.code]).toEqual([409, 'not_owner'])
      expect(refused.body.error).toContain('someone else deployed it first')
      expect(refused.body.error).toContain(mallory.address)
      const after = await read(alice, id)
      expect(after.is_published).toBe(false)
      const items = (await chain.request<Item[]>(alice, 'GET', `/v1/collections/${id}/items`)).body.data
      expect(items.every((i) => i.blockchain_item_id === null)).toBe(true)
    })

    it('the owner deploying it publishes (204)', async () => {
      const alice = await chain.fundedUser()
      const id = crypto.randomUUID()
      expect((await putCollection(alice, id)).status).toBe(204)
      const itemIds = [await addItem(alice, id)]
      await chain.request(alice, 'POST', `/v1/collections/${id}/tos`, {
        email: 'alice@example.com',
        event: 'publish_collection_tos',
        hashes: [contentHash()],
      })
      await deploy(alice, (await read(alice, id)).salt!)
      const published = await chain.request(alice, 'POST', `/v1/collections/${id}/publish`, { itemIds })
      expect(published.status, JSON.stringify(published.body)).toBe(204)
    })
  })

  describe('the third-party registry on chain decides who manages a third party', () => {
    it("a registry that reverts isThirdPartyManager is the contract's answer: 409 in our words, not a 503 quoting ethers", async () => {
      // A contract without the view (the factory) in the registry's place: every isThirdPartyManager reverts.
      const svc = await startCollectionsService({
        ...chainEnv(chain),
        THIRD_PARTY_REGISTRY_ADDRESS: chain.d.collectionFactory,
      })
      try {
        const [who] = (await chain.fundedUsers(1)) as [Identity]
        const id = crypto.randomUUID()
        const tpId = `urn:decentraland:sepolia:collections-thirdparty:tp${randomBytes(4).toString('hex')}`
        const res = await signedRequest(svc.url, who, 'PUT', `/v1/collections/${id}`, {
          id,
          name: uniqueName(),
          urn: `${tpId}:drop`,
        })
        expect([res.status, res.body.code]).toEqual([409, 'contract_refused'])
        expect(res.body.error).toBe(
          'The contract refused the call (eth_call isThirdPartyManager reverted): for a third party, it may not be registered in the Third Party Registry',
        )
        const [kept] = await svc.db.sql<
          { n: number }[]
        >`select count(*)::int as n from collections where id = ${id}`
        expect(kept!.n).toBe(0)
      } finally {
        await svc.close()
      }
    })

    it('a squatter signing first is refused (403); the managers set on chain create, edit and publish', async () => {
      const tpId = `urn:decentraland:sepolia:collections-thirdparty:tp${randomBytes(4).toString('hex')}`
      const [squatter, real1, real2] = (await chain.fundedUsers(3)) as [Identity, Identity, Identity]
      await setManager(tpId, real1, true)
      await setManager(tpId, real2, true)

      const squatted = await putCollection(squatter, crypto.randomUUID(), { urn: `${tpId}:drop` })
      expect([squatted.status, squatted.body.code]).toEqual([403, 'forbidden'])
      // the squatter's first signature registered nothing
      const [registered] = await chain.svc.db.sql<{ n: number }[]>`
        select count(*)::int as n from third_parties where id = ${tpId}`
      expect(registered!.n).toBe(0)

      const id = crypto.randomUUID()
      const created = await putCollection(real1, id, { urn: `${tpId}:drop` })
      expect(created.status, JSON.stringify(created.body)).toBe(204)
      // real2 never signed here before: the chain vouches for it
      const itemId = await addItem(real2, id)
      expect((await read(real2, id)).salt).toBeNull()
      const cheque = await signCheque(chain.svc.config, real2, tpId, 1)
      const published = await chain.request(real2, 'POST', `/v1/collections/${id}/publish`, {
        itemIds: [itemId],
        cheque,
      })
      expect(published.status, JSON.stringify(published.body)).toBe(204)

      // the squatter can neither change the collection nor its items, nor publish
      const rename = await putCollection(squatter, id, { urn: `${tpId}:drop` })
      expect(rename.status).toBe(403)
      const squatterItem = crypto.randomUUID()
      const put = await chain.request(squatter, 'PUT', `/v1/items/${squatterItem}`, {
        id: squatterItem,
        collection_id: id,
        name: 'x',
        type: 'wearable',
        content_hash: contentHash(),
      })
      expect([put.status, put.body.code]).toEqual([403, 'forbidden'])
      const squatterCheque = await signCheque(chain.svc.config, squatter, tpId, 1)
      const squatterPublish = await chain.request(squatter, 'POST', `/v1/collections/${id}/publish`, {
        itemIds: [itemId],
        cheque: squatterCheque,
      })
      expect([squatterPublish.status, squatterPublish.body.code]).toEqual([403, 'forbidden'])
    })

    it('a squatter the service registered before it read the chain is refused; the real manager is accepted', async () => {
      const tpId = `urn:decentraland:sepolia:collections-thirdparty:tp${randomBytes(4).toString('hex')}`
      const [squatter, real] = (await chain.fundedUsers(2)) as [Identity, Identity]
      // as the first-signer rule left it: the squatter is the only stored manager
      await chain.svc.db.sql`
        insert into third_parties (id, managers) values (${tpId}, ${chain.svc.db.sql.array([squatter.address])})`
      await setManager(tpId, real, true)

      const squatted = await putCollection(squatter, crypto.randomUUID(), { urn: `${tpId}:a` })
      expect([squatted.status, squatted.body.code]).toEqual([403, 'forbidden'])
      const id = crypto.randomUUID()
      const created = await putCollection(real, id, { urn: `${tpId}:b` })
      expect(created.status, JSON.stringify(created.body)).toBe(204)
      // a collection of the third party is not the squatter's to see before publication
      expect((await chain.request(squatter, 'GET', `/v1/collections/${id}`)).status).toBe(404)
      // and the squatter's list no longer shows the third party's collections
      const list = await chain.request<Collection[]>(squatter, 'GET', `/v1/${squatter.address}/collections`)
      expect(list.body.data.map((c) => c.id)).not.toContain(id)
      const [stored] = await chain.svc.db.sql<
        { managers: string[] }[]
      >`select managers from third_parties where id = ${tpId}`
      expect(stored!.managers).toEqual([real.address])
    })

    it('a manager removed on chain loses the third party at once', async () => {
      const tpId = `urn:decentraland:sepolia:collections-thirdparty:tp${randomBytes(4).toString('hex')}`
      const [creator, other] = (await chain.fundedUsers(2)) as [Identity, Identity]
      await setManager(tpId, creator, true)
      await setManager(tpId, other, true)
      const id = crypto.randomUUID()
      expect((await putCollection(creator, id, { urn: `${tpId}:drop` })).status).toBe(204)
      const theirs = crypto.randomUUID()
      expect((await putCollection(other, theirs, { urn: `${tpId}:other` })).status).toBe(204)
      const listed = async () =>
        (
          await chain.request<Collection[]>(creator, 'GET', `/v1/${creator.address}/collections`)
        ).body.data.map((c) => c.id)
      expect(await listed()).toContain(theirs)

      await setManager(tpId, creator, false)
      // the collection it owns stays its own; the third party's others are no longer its to change or list
      expect((await putCollection(creator, theirs, { urn: `${tpId}:other` })).status).toBe(403)
      expect(await listed()).toEqual([id])
      const itemId = await addItem(creator, id)
      const cheque = await signCheque(chain.svc.config, creator, tpId, 1)
      const publish = await chain.request(creator, 'POST', `/v1/collections/${id}/publish`, {
        itemIds: [itemId],
        cheque,
      })
      expect([publish.status, publish.body.code]).toEqual([403, 'forbidden'])
    })
  })
})
