import { describe, expect, it } from 'vitest'
import type { Collection } from '../src/schemas/collection.js'
import type { Curation } from '../src/schemas/review.js'
import {
  acceptTos,
  call,
  createCollection,
  createIdentity,
  createItem,
  type Harness,
  type Identity,
  refusal,
} from './helpers.js'
import { askReview, decide, openReview, thirdPartyInReview } from './review-helpers.js'

/** What the scenarios need of a chain (a real anvil node, test/chain/approval.test.ts). */
export interface ChainControl {
  /** Deploys the collection `id` through the factory, at `contract` (the CREATE2 address the service derived). */
  deploy(id: string, contract: string): Promise<void>
  /** The contract's `isApproved()` from now on, as the committee's `setApproved` would make it. */
  setApproved(contract: string, approved: boolean): Promise<void>
  /** Runs `during` while the node does not answer, and brings it back afterwards. */
  whileDown<T>(during: () => Promise<T>): Promise<T>
}

/**
 * `is_approved` read from the collection contract when RPC_URL is set. Call inside a test file
 * whose harness was set up with RPC_URL pointing at the node `chain` controls.
 */
export function describeApprovalOnChain(harness: () => Harness, chain: ChainControl) {
  const read = async (who: Identity, id: string) => {
    const res = await call(harness().app, who, 'GET', `/v1/collections/${id}`)
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data as Collection
  }

  /** A standard collection deployed on chain and published. */
  async function deployedAndPublished(owner: Identity): Promise<{ id: string; contract: string }> {
    const h = harness()
    const id = await createCollection(h.app, owner)
    const itemIds = [await createItem(h.app, owner, id)]
    await acceptTos(h.app, owner, id)
    const contract = (await read(owner, id)).contract_address!
    await chain.deploy(id, contract)
    const res = await call(h.app, owner, 'POST', `/v1/collections/${id}/publish`, { itemIds })
    expect(res.statusCode, res.body).toBe(204)
    return { id, contract }
  }

  describe('is_approved is read from the collection contract (RPC_URL)', () => {
    it('reads approved once the contract says so, though nobody called the route, and lists follow', async () => {
      const h = harness()
      const owner = await createIdentity()
      const { id, contract } = await deployedAndPublished(owner)
      const pending = await openReview(h.app, owner, id)
      expect((await read(owner, id)).is_approved).toBe(false)

      await chain.setApproved(contract, true)
      const seen = await read(owner, id)
      expect(seen.is_approved).toBe(true)
      expect(seen.reviewed_at).not.toBeNull()
      // recorded: the review is closed as decided on chain, and the filters find it
      const history = (await call(h.app, owner, 'GET', `/v1/collections/${id}/curations`)).json()
        .data as Curation[]
      expect(history[0]).toMatchObject({ id: pending.id, status: 'approved', reviewed_by: null })
      const approved = (
        await call(h.app, owner, 'GET', `/v1/${owner.address}/collections?is_approved=true`)
      ).json().data as Collection[]
      expect(approved.map((c) => c.id)).toEqual([id])
      refusal(await decide(h.app, h.committee, pending.id, 'approve'), 409, 'already_decided')

      // withdrawn on chain: reads unapproved again, in lists too
      await chain.setApproved(contract, false)
      const page = (await call(h.app, owner, 'GET', `/v1/${owner.address}/collections`)).json()
        .data as Collection[]
      expect(page.find((c) => c.id === id)?.is_approved).toBe(false)
      expect((await read(h.committee, id)).is_approved).toBe(false)
    })

    it('asking for review of a collection approved on chain is 409 already_approved, read then', async () => {
      const h = harness()
      const owner = await createIdentity()
      const { id, contract } = await deployedAndPublished(owner)
      await chain.setApproved(contract, true)
      // nothing read the collection since: the request itself asks the contract
      refusal(await askReview(h.app, owner, id), 409, 'already_approved')
    })

    it("a committee decision records the review; is_approved stays the contract's", async () => {
      const h = harness()
      const owner = await createIdentity()
      const { id, contract } = await deployedAndPublished(owner)
      const curation = await openReview(h.app, owner, id)
      const res = await decide(h.app, h.committee, curation.id, 'approve')
      expect(res.statusCode, res.body).toBe(200)
      const afterRoute = await read(owner, id)
      expect(afterRoute.is_approved).toBe(false)
      expect(afterRoute.reviewed_at).toBe((res.json().data as Curation).reviewed_at)
      await chain.setApproved(contract, true)
      expect((await read(owner, id)).is_approved).toBe(true)
    })

    it('a decision while the node does not answer is 503 and writes nothing; reads keep the stored value', async () => {
      const h = harness()
      const owner = await createIdentity()
      const { id } = await deployedAndPublished(owner)
      const curation = await openReview(h.app, owner, id)
      await chain.whileDown(async () => {
        refusal(await decide(h.app, h.committee, curation.id, 'approve'), 503, 'rpc_unavailable')
        expect((await read(owner, id)).is_approved).toBe(false)
      })
      const history = (await call(h.app, owner, 'GET', `/v1/collections/${id}/curations`)).json()
        .data as Curation[]
      expect(history[0]).toMatchObject({ id: curation.id, status: 'pending' })
      expect((await decide(h.app, h.committee, curation.id, 'reject')).statusCode).toBe(200)
    })

    it('a third-party collection has no contract: is_approved follows the decision', async () => {
      const h = harness()
      const manager = await createIdentity()
      const tp = await thirdPartyInReview(h.app, h.config, manager, 1)
      const curation = await openReview(h.app, manager, tp.id)
      expect((await decide(h.app, h.committee, curation.id, 'approve')).statusCode).toBe(200)
      expect((await read(manager, tp.id)).is_approved).toBe(true)
    })
  })
}
