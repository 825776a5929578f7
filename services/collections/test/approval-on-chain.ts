import type { Collection, Curation } from '@genesis/wire/collections'
import type { LightMyRequestResponse } from 'fastify'
import { describe, expect, it } from 'vitest'
import { answersVersion } from '../src/db/answers-version.js'
import {
  acceptTos,
  call,
  createCollection,
  createIdentity,
  createItem,
  type Harness,
  type Identity,
  lockWaiters,
  randomUUID,
  refusal,
} from './helpers.js'
import { askReview, decide, openReview, thirdPartyInReview } from './review-helpers.js'

/** What the scenarios need of a chain (a real anvil node, test/chain/approval.test.ts). */
export interface ChainControl {
  /**
   * Deploys the collection `id` through the factory from `owner`'s wallet (the contract's owner must be the
   * collection's), at `contract` (the CREATE2 address the service derived).
   */
  deploy(id: string, contract: string, owner: Identity): Promise<void>
  /** Makes `address` a manager of the third party in the registry on chain. */
  makeManager(thirdPartyId: string, address: string): Promise<void>
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
    await chain.deploy(id, contract, owner)
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
      // a decided review is 409 without asking the chain (guards `curation.status !== 'pending'` → `false`,
      // which would ask the node first and answer 503)
      await chain.whileDown(async () => {
        const again = refusal(
          await decide(h.app, h.committee, curation.id, 'approve'),
          409,
          'already_decided',
        )
        expect(again.data).toEqual({ status: 'rejected' })
      })
    })

    it('an approval on chain before the publication is not read until the collection is published', async () => {
      // guards `rows.filter(readableOnChain)` → `rows`: only a published collection's contract is asked
      const h = harness()
      const owner = await createIdentity()
      const id = await createCollection(h.app, owner)
      const itemIds = [await createItem(h.app, owner, id)]
      await acceptTos(h.app, owner, id)
      const contract = (await read(owner, id)).contract_address!
      await chain.deploy(id, contract, owner)
      await chain.setApproved(contract, true)
      expect(await read(owner, id)).toMatchObject({
        is_published: false,
        is_approved: false,
        reviewed_at: null,
      })
      const res = await call(h.app, owner, 'POST', `/v1/collections/${id}/publish`, { itemIds })
      expect(res.statusCode, res.body).toBe(204)
      expect((await read(owner, id)).is_approved).toBe(true)
    })

    it('reads that find the contract agreeing with the stored value write nothing', async () => {
      // guards `if (approved === row.is_approved) return` → `false`: a transaction per read, whose update of
      // no row still advances the answers version (its trigger is per statement) and drops the kept answers
      const h = harness()
      const owner = await createIdentity()
      const { id } = await deployedAndPublished(owner)
      const stored = await read(owner, id)
      const before = await answersVersion(h.db.sql)
      await read(owner, id)
      await call(h.app, owner, 'GET', `/v1/${owner.address}/collections`)
      expect(await answersVersion(h.db.sql)).toBe(before)
      expect(await read(owner, id)).toEqual(stored)
    })

    it('a read that another replica beats to recording the approval still shows a reviewed collection', async () => {
      // The read finds the contract approved and the stored row not; a transaction holds the row, so the
      // read's recording waits, and records the approval the way another replica would meanwhile. The read's
      // update then finds nothing to change. Guards `if (reviewedAt !== null)` → `true` (reviewed_at: null
      // in the answer, for a collection reviewed twice).
      const h = harness()
      const owner = await createIdentity()
      const { id, contract } = await deployedAndPublished(owner)
      const rejected = await openReview(h.app, owner, id)
      expect((await decide(h.app, h.committee, rejected.id, 'reject')).statusCode).toBe(200)
      expect((await read(owner, id)).reviewed_at).not.toBeNull()
      await chain.setApproved(contract, true)
      let answer: Promise<LightMyRequestResponse> | undefined
      // The other replica's transaction on a connection of its own, begun by hand: a request sent from inside
      // `sql.begin` would run as part of that transaction, where the service may not ask the chain.
      const tx = await h.db.sql.reserve()
      try {
        await tx`begin`
        await tx`select 1 from collections where id = ${id} for update`
        answer = call(h.app, owner, 'GET', `/v1/collections/${id}`)
        await lockWaiters(h, 1)
        await tx`update collections set is_approved = true, reviewed_at = now(), updated_at = now() where id = ${id}`
        await tx`commit`
      } finally {
        tx.release()
      }
      const res = await answer!
      expect(res.statusCode, res.body).toBe(200)
      const seen = res.json().data as Collection
      expect(seen.is_approved).toBe(true)
      expect(seen.reviewed_at).not.toBeNull()
    })

    it('asking for review of an unknown collection is 404', async () => {
      // guards `if (current) await refreshApproval(…)` → `true` (the chain asked about no row: a 500)
      const h = harness()
      const owner = await createIdentity()
      const id = randomUUID()
      const body = refusal(await askReview(h.app, owner, id), 404, 'not_found')
      expect(body.error).toBe(`Collection ${id} not found`)
    })

    it('a decision on a review whose collection is deleted by hand between its reads is 404', async () => {
      // The decision reads the review, then its collection. A transaction holding third_parties (which the
      // collection's read joins, the review's does not) stops it between the two while the collection is
      // deleted. Guards `if (!collection) throw curationNotFound(…)` → `false`: with RPC_URL the chain
      // would be asked about no row (a 500).
      const h = harness()
      const owner = await createIdentity()
      const { id } = await deployedAndPublished(owner)
      const curation = await openReview(h.app, owner, id)
      let answer: Promise<LightMyRequestResponse> | undefined
      await h.db.sql.begin(async (tx) => {
        await tx`lock table third_parties in access exclusive mode`
        answer = decide(h.app, h.committee, curation.id, 'approve')
        await lockWaiters(h, 1)
        await tx`delete from collections where id = ${id}`
      })
      const body = refusal(await answer!, 404, 'not_found')
      expect(body.error).toBe(`Curation ${curation.id} not found`)
    })

    it('a third-party collection has no contract: is_approved follows the decision', async () => {
      const h = harness()
      const manager = await createIdentity()
      const tp = await thirdPartyInReview(h.app, h.config, manager, 1, (thirdPartyId) =>
        chain.makeManager(thirdPartyId, manager.address),
      )
      const curation = await openReview(h.app, manager, tp.id)
      expect((await decide(h.app, h.committee, curation.id, 'approve')).statusCode).toBe(200)
      expect((await read(manager, tp.id)).is_approved).toBe(true)
    })
  })
}
