import { randomBytes } from 'node:crypto'
import type { Identity } from '@genesis/common/testing'
import { chainTestsSkipReason, contractAt } from '@genesis/contracts'
import type { ApprovalData, Collection, Item } from '@genesis/wire/collections'
import type { ContractTransactionResponse } from 'ethers'
import { describe, expect, it } from 'vitest'
import { chequeDigest } from '../../src/domain/cheque.js'
import { domainOf, signCheque } from '../chequebook.js'
import { contentHash, uniqueName } from '../helpers.js'
import { useCollectionsOnChain } from './service.js'

const skip = chainTestsSkipReason()

describe.skipIf(skip)(
  'collections on a real chain (anvil): factory addresses, deployments, registry cheques',
  () => {
    const chain = useCollectionsOnChain()
    const read = async (who: Identity, id: string) =>
      (await chain.request<Collection>(who, 'GET', `/v1/collections/${id}`)).body.data
    const itemsOf = async (who: Identity, id: string) =>
      (await chain.request<Item[]>(who, 'GET', `/v1/collections/${id}/items`)).body.data

    async function collectionWithItems(owner: Identity, n: number, urn?: string) {
      const id = crypto.randomUUID()
      const put = await chain.request(owner, 'PUT', `/v1/collections/${id}`, {
        id,
        name: uniqueName(),
        ...(urn ? { urn } : {}),
      })
      expect(put.status, JSON.stringify(put.body)).toBe(204)
      const itemIds: string[] = []
      for (let i = 0; i < n; i++) {
        const itemId = crypto.randomUUID()
        const res = await chain.request(owner, 'PUT', `/v1/items/${itemId}`, {
          id: itemId,
          collection_id: id,
          name: uniqueName('Item'),
          type: 'wearable',
          content_hash: contentHash(),
        })
        expect(res.status).toBe(204)
        itemIds.push(itemId)
      }
      return { id, itemIds }
    }

    async function standardReadyToPublish(owner: Identity) {
      const { id, itemIds } = await collectionWithItems(owner, 2)
      const tos = await chain.request(owner, 'POST', `/v1/collections/${id}/tos`, {
        email: 'creator@example.com',
        event: 'publish_collection_tos',
        hashes: [contentHash()],
      })
      expect(tos.status).toBe(204)
      return { id, itemIds, collection: await read(owner, id) }
    }

    /** The owner's wallet deploys the collection through the factory; the address the factory emitted. */
    async function deployThroughFactory(owner: Identity, salt: string): Promise<string> {
      const factory = contractAt('CollectionFactory', chain.d.collectionFactory, owner.wallet)
      const tx: ContractTransactionResponse = await factory.getFunction('deployCollection')(salt)
      const receipt = await tx.wait()
      const deployed = receipt?.logs
        .map((log) => factory.interface.parseLog(log))
        .find((parsed) => parsed?.name === 'CollectionDeployed')
      if (!deployed) throw new Error('the factory emitted no CollectionDeployed')
      return String(deployed.args.getValue('collection')).toLowerCase()
    }

    const publish = (who: Identity, id: string, body: unknown) =>
      chain.request(who, 'POST', `/v1/collections/${id}/publish`, body)

    it('a standard collection is deployed by the factory at its contract_address; publish waits for it (409 → 204)', async () => {
      const alice = await chain.fundedUser()
      const { id, itemIds, collection } = await standardReadyToPublish(alice)
      const before = await publish(alice, id, { itemIds })
      expect([before.status, before.body.code]).toEqual([409, 'not_deployed'])
      expect((await read(alice, id)).is_published).toBe(false)

      const deployed = await deployThroughFactory(alice, collection.salt!)
      expect(deployed).toBe(collection.contract_address)
      expect(collection.urn).toBe(`urn:decentraland:sepolia:collections-v2:${deployed}`)
      const onChain = contractAt('Collection', deployed, chain.provider)
      expect(await onChain.getFunction('owner')()).toBe(alice.wallet.address)

      const after = await publish(alice, id, { itemIds })
      expect(after.status, JSON.stringify(after.body)).toBe(204)
      expect((await read(alice, id)).is_published).toBe(true)
      expect((await itemsOf(alice, id)).map((i) => i.blockchain_item_id)).toEqual(['0', '1'])
    })

    it('a manager cheque taken by publish is accepted by the registry, then chequeWasConsumed turns true', async () => {
      const alice = await chain.fundedUser()
      const tpId = `urn:decentraland:sepolia:collections-thirdparty:tp${randomBytes(4).toString('hex')}`
      const registry = contractAt('ThirdPartyRegistry', chain.d.thirdPartyRegistry, chain.committee.wallet)
      await (await registry.getFunction('setManager')(tpId, alice.wallet.address, true)).wait()
      const { id, itemIds } = await collectionWithItems(alice, 2, `${tpId}:drop`)

      const cheque = await signCheque(chain.svc.config, alice, tpId, itemIds.length)
      const published = await publish(alice, id, { itemIds, cheque })
      expect(published.status, JSON.stringify(published.body)).toBe(204)
      const approval = () =>
        chain.request<ApprovalData>(chain.committee, 'GET', `/v1/collections/${id}/approvalData`)
      expect((await approval()).body.data).toMatchObject({ cheque, chequeWasConsumed: false })

      // the committee consumes the very cheque the service stored, as the builder's approval does
      const stored = (await approval()).body.data.cheque
      await (
        await registry.getFunction('consumeSlots')(tpId, stored.qty, stored.salt, stored.signature)
      ).wait()
      const digest = chequeDigest(domainOf(chain.svc.config), tpId, cheque)
      expect(await registry.getFunction('receipts')(tpId, digest)).toBe(BigInt(itemIds.length))
      expect((await approval()).body.data.chequeWasConsumed).toBe(true)
    })

    it('a tampered cheque is refused by the service (400 invalid_cheque) and by the registry', async () => {
      const alice = await chain.fundedUser()
      const tpId = `urn:decentraland:sepolia:collections-thirdparty:tp${randomBytes(4).toString('hex')}`
      const registry = contractAt('ThirdPartyRegistry', chain.d.thirdPartyRegistry, chain.committee.wallet)
      await (await registry.getFunction('setManager')(tpId, alice.wallet.address, true)).wait()
      const { id, itemIds } = await collectionWithItems(alice, 1, `${tpId}:drop`)
      const cheque = await signCheque(chain.svc.config, alice, tpId, itemIds.length)
      const tampered = { ...cheque, salt: `0x${randomBytes(32).toString('hex')}` }

      const refused = await publish(alice, id, { itemIds, cheque: tampered })
      expect([refused.status, refused.body.code]).toEqual([400, 'invalid_cheque'])
      await expect(
        registry
          .getFunction('consumeSlots')
          .staticCall(tpId, tampered.qty, tampered.salt, tampered.signature),
      ).rejects.toThrow('NotManager')
      expect((await itemsOf(alice, id)).every((i) => i.blockchain_item_id === null)).toBe(true)
    })

    it('with the node gone the routes that need it answer 503 and write nothing; they work again once it is back', async () => {
      const alice = await chain.fundedUser()
      const standard = await standardReadyToPublish(alice)
      await deployThroughFactory(alice, standard.collection.salt!)
      const tpId = `urn:decentraland:sepolia:collections-thirdparty:tp${randomBytes(4).toString('hex')}`
      const registry = contractAt('ThirdPartyRegistry', chain.d.thirdPartyRegistry, chain.committee.wallet)
      await (await registry.getFunction('setManager')(tpId, alice.wallet.address, true)).wait()
      const thirdParty = await collectionWithItems(alice, 1, `${tpId}:drop`)
      const cheque = await signCheque(chain.svc.config, alice, tpId, 1)
      expect((await publish(alice, thirdParty.id, { itemIds: thirdParty.itemIds, cheque })).status).toBe(204)
      const approval = () =>
        chain.request<ApprovalData>(chain.committee, 'GET', `/v1/collections/${thirdParty.id}/approvalData`)
      const lockBefore = (await read(alice, standard.id)).lock

      await chain.anvil.stop()
      try {
        const down = await publish(alice, standard.id, { itemIds: standard.itemIds })
        expect([down.status, down.body.code]).toEqual([503, 'rpc_unavailable'])
        const stillDraft = await read(alice, standard.id)
        expect([stillDraft.is_published, stillDraft.lock]).toEqual([false, lockBefore])
        expect((await itemsOf(alice, standard.id)).every((i) => i.blockchain_item_id === null)).toBe(true)
        expect([(await approval()).status, (await approval()).body.code]).toEqual([503, 'rpc_unavailable'])
      } finally {
        await chain.anvil.start() // same port, same chain state
      }
      expect((await publish(alice, standard.id, { itemIds: standard.itemIds })).status).toBe(204)
      expect((await read(alice, standard.id)).is_published).toBe(true)
      expect((await approval()).body.data.chequeWasConsumed).toBe(false)
    })
  },
)
