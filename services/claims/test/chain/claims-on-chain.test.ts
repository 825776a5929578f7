import { randomBytes } from 'node:crypto'
import type { Identity } from '@genesis/common/testing'
import { artifact, chainTestsSkipReason, contractAt } from '@genesis/contracts'
import type { ClaimTransaction, Reward } from '@genesis/wire/claims'
import { Interface, type TransactionReceipt } from 'ethers'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Reconciler } from '../../src/jobs/reconciler.js'
import { useChainFixture } from './fixture.js'
import { signedRequest } from './service.js'

const skip = chainTestsSkipReason()

describe.skipIf(skip)(
  'claims on a real chain (anvil): vouchers redeemed by wallets, settled from the chain',
  () => {
    // the reconciler of server.ts, with RPC_URL_<chain_id> pointing at the node; every block final at once
    const f = useChainFixture({ confirmations: 0 })
    let reconciler: Reconciler
    // the back-off's clock: a chain that failed is asked again once its wait is over
    let now = 0
    beforeAll(() => {
      reconciler = f.reconciler({ clock: () => now })
    })

    const itemId = () => BigInt(`0x${randomBytes(6).toString('hex')}`).toString()

    /** Admin grants `n` rewards on the dispenser, then the user creates a claim for them (both over HTTP). */
    async function claimFor(user: Identity, n = 1) {
      const rewards = Array.from({ length: n }, () => ({
        id: crypto.randomUUID(),
        user: user.address,
        chain_id: f.chainId,
        contract: f.d.rewardsDispenser,
        item_id: itemId(),
      }))
      const granted = await signedRequest<Reward[]>(f.svc.url, 'admin', 'POST', '/api/rewards', { rewards })
      expect(granted.status).toBe(201)
      const created = await signedRequest<ClaimTransaction>(
        f.svc.url,
        user,
        'POST',
        '/api/claim-transactions',
        {
          rewards: rewards.map((r) => r.id),
        },
      )
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      return { claim: created.body.data, itemIds: rewards.map((r) => r.item_id) }
    }

    /** The wallet sends the claim's payload as it is; a fixed gas limit lets a doomed send be mined (reverted). */
    async function send(sender: Identity, claim: ClaimTransaction): Promise<TransactionReceipt> {
      const tx = await sender.wallet.sendTransaction({
        to: claim.contract,
        data: claim.transaction_payload,
        gasLimit: 500_000n,
      })
      return (await f.provider.waitForTransaction(tx.hash))!
    }

    /** Why the dispenser refuses this payload from `sender` now (its custom error's name). */
    async function refusalOf(sender: Identity, claim: ClaimTransaction): Promise<string> {
      const dispenser = new Interface(artifact('RewardsDispenser').abi)
      try {
        await f.provider.call({
          from: sender.wallet.address,
          to: claim.contract,
          data: claim.transaction_payload,
        })
        return 'accepted'
      } catch (error) {
        const data = (error as { data?: string }).data
        return (data && dispenser.parseError(data)?.name) || String(error)
      }
    }

    const report = (user: Identity, claim: ClaimTransaction, hash: string) =>
      signedRequest<ClaimTransaction>(f.svc.url, user, 'PATCH', `/api/claim-transactions/${claim.id}`, {
        transaction_hash: hash,
      })
    const read = async (user: Identity, claim: ClaimTransaction) =>
      (await signedRequest<ClaimTransaction>(f.svc.url, user, 'GET', `/api/claim-transactions/${claim.id}`))
        .body.data

    it('the wallet sending transaction_payload gets its items; the reported hash settles the claim successful', async () => {
      const alice = await f.fundedUser()
      const { claim, itemIds } = await claimFor(alice, 2)
      expect(claim.contract).toBe(f.d.rewardsDispenser)
      const receipt = await send(alice, claim)
      expect(receipt.status).toBe(1)
      const collection = contractAt('Collection', f.d.rewardsCollection, f.provider)
      for (const id of itemIds) expect(await collection.getFunction('ownerOf')(id)).toBe(alice.wallet.address)

      const pending = await report(alice, claim, receipt.hash)
      expect(pending.status).toBe(200)
      expect(pending.body.data.status).toBe('pending')
      expect(await reconciler.tick()).toMatchObject({ successful: 1, failed: 0, errors: 0 })
      expect((await read(alice, claim)).status).toBe('successful')
      const rewards = await signedRequest<Reward[]>(f.svc.url, alice, 'GET', '/api/rewards')
      expect(rewards.body.data.map((r) => [r.claimable, r.claim_transaction_id])).toEqual([
        [false, claim.id],
        [false, claim.id],
      ])
    })

    it('a second use of the voucher reverts on chain; the claim reported with that send is still the redeemed one', async () => {
      const bob = await f.fundedUser()
      const { claim } = await claimFor(bob)
      expect((await send(bob, claim)).status).toBe(1)
      expect(await refusalOf(bob, claim)).toBe('ClaimAlreadyUsed')
      const again = await send(bob, claim)
      expect(again.status).toBe(0)

      expect((await report(bob, claim, again.hash)).body.data.status).toBe('pending')
      // the chain shows the voucher redeemed (by the first send): successful, whatever was reported
      expect(await reconciler.tick()).toMatchObject({ successful: 1, failed: 0 })
      expect((await read(bob, claim)).status).toBe('successful')
    })

    it('a send from another wallet than the beneficiary reverts; the claim reported with it stays live, claimed', async () => {
      const carol = await f.fundedUser()
      const mallory = await f.fundedUser()
      const { claim, itemIds } = await claimFor(carol)
      expect(await refusalOf(mallory, claim)).toBe('NotBeneficiary')
      const stolen = await send(mallory, claim)
      expect(stolen.status).toBe(0)
      const collection = contractAt('Collection', f.d.rewardsCollection, f.provider)
      await expect(collection.getFunction('ownerOf')(itemIds[0])).rejects.toThrow('ERC721NonexistentToken')

      await report(carol, claim, stolen.hash)
      expect(await reconciler.tick()).toMatchObject({ failed: 0, returned: 1 })
      expect((await read(carol, claim)).status).toBe('claimed')
      // the beneficiary may still redeem it
      expect((await send(carol, claim)).status).toBe(1)
      expect(await reconciler.tick()).toMatchObject({ successful: 1 })
    })

    it('with the node gone the reconciler writes nothing and the routes still answer; once back it settles', async () => {
      const dave = await f.fundedUser()
      const { claim } = await claimFor(dave)
      const receipt = await send(dave, claim)
      expect(receipt.status).toBe(1)
      const before = (await report(dave, claim, receipt.hash)).body.data

      await f.anvil.stop()
      try {
        const tick = await reconciler.tick()
        expect(tick).toMatchObject({ successful: 0, failed: 0 })
        expect(tick.errors).toBeGreaterThanOrEqual(1)
        // no route of the claims service needs the node: reads and new claims still work
        expect(await read(dave, claim)).toEqual(before)
        expect((await claimFor(dave)).claim.status).toBe('claimed')
      } finally {
        await f.anvil.start() // same port, same chain state
      }
      now += 1000 // the first wait of the back-off
      expect(await reconciler.tick()).toMatchObject({ successful: 1, errors: 0 })
      expect((await read(dave, claim)).status).toBe('successful')
    })

    // Last: it moves the node's clock an hour ahead, past every voucher issued so far.
    it('an expired voucher reverts on chain; the claim fails once the chain shows it expired unredeemed', async () => {
      const erin = await f.fundedUser()
      const { claim } = await claimFor(erin)
      const expiresAt = Math.floor(new Date(claim.expires_at).getTime() / 1000)
      await f.provider.send('evm_setNextBlockTimestamp', [expiresAt + 1])
      await f.provider.send('evm_mine', [])
      expect(await refusalOf(erin, claim)).toBe('VoucherExpired')
      const late = await send(erin, claim)
      expect(late.status).toBe(0)

      // the service's own clock has not reached expires_at: the report is taken, the receipt decides
      expect((await report(erin, claim, late.hash)).body.data.status).toBe('pending')
      // (the other tests' unredeemed claims expire with this jump too)
      expect((await reconciler.tick()).failed).toBeGreaterThanOrEqual(1)
      expect((await read(erin, claim)).status).toBe('failed')
      expect(
        (await signedRequest<Reward[]>(f.svc.url, erin, 'GET', '/api/rewards')).body.data[0]?.claimable,
      ).toBe(true)
    })
  },
)
