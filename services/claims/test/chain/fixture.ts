import { randomBytes } from 'node:crypto'
import { createIdentity, type Identity } from '@genesis/common/testing'
import { startBeforeAll } from '@genesis/common/testing/vitest'
import { type Anvil, type Deployment, FUNDER_ACCOUNT, startChainWithContracts } from '@genesis/contracts'
import type { ClaimTransaction, Reward } from '@genesis/wire/claims'
import { type JsonRpcProvider, toQuantity, Wallet } from 'ethers'
import { Registry } from 'prom-client'
import { expect } from 'vitest'
import { CLAIMED_TOPIC, createDispenserChain, type DispenserChain } from '../../src/chain/dispenser.js'
import { claimIdToBytes32 } from '../../src/chain/voucher.js'
import { createReconciler, type Reconciler, type ReconcilerOptions } from '../../src/jobs/reconciler.js'
import { type HttpAnswer, type RunningClaims, signedRequest, startClaimsService } from './service.js'

export const silent = { info: () => {}, warn: () => {} }

/**
 * A real anvil node with the contracts deployed, the claims service watching it (RPC URL configured,
 * `confirmations` deep) over real HTTP, and what the tests do through both.
 */
export interface ChainFixture {
  anvil: Anvil
  provider: JsonRpcProvider
  d: Deployment
  svc: RunningClaims
  chainId: string
  chains: Map<string, DispenserChain>
  confirmations: number
  /** The key the service signs vouchers with (the dispenser's voucherSigner): another app may share it. */
  signerPrivateKey: string
  /** A reconciler over the service's database and the node, as server.ts builds it. */
  reconciler(options?: Partial<ReconcilerOptions>): Reconciler
  fundedUser(): Promise<Identity>
  /** The operator grants `n` rewards to the user (over HTTP); their ids. */
  grant(user: Identity, n?: number): Promise<string[]>
  /** The user claims those rewards (over HTTP). */
  create(user: Identity, rewardIds: string[]): Promise<HttpAnswer<ClaimTransaction>>
  /** Grant then create; the claim. */
  claimFor(user: Identity, n?: number): Promise<{ claim: ClaimTransaction; rewardIds: string[] }>
  /** The wallet sends `data` (default the claim's payload) to the claim's contract; a fixed gas limit lets a doomed send be mined (reverted). */
  send(user: Identity, claim: ClaimTransaction, data?: string): Promise<{ hash: string; status: number }>
  report(user: Identity, claim: ClaimTransaction, hash: string): Promise<HttpAnswer<ClaimTransaction>>
  read(user: Identity, claim: ClaimTransaction): Promise<ClaimTransaction>
  rewards(user: Identity): Promise<Reward[]>
  operator(claim: ClaimTransaction, status: string): Promise<HttpAnswer<ClaimTransaction>>
  mine(blocks: number): Promise<void>
  /** Moves the node's clock to just past `at` (unix seconds) in a new block. */
  passTime(at: number): Promise<void>
  /** Claimed events of the dispenser for this claim id, on the node's current chain. */
  mints(claimId: string): Promise<number>
  metrics: Registry
  close(): Promise<void>
}

export async function startChainFixture(options: { confirmations: number }): Promise<ChainFixture> {
  const voucherKey = Wallet.createRandom()
  const chain = await startChainWithContracts((devWallet) => ({
    voucherSigner: voucherKey.address,
    committee: devWallet(FUNDER_ACCOUNT).address,
  }))
  const { anvil, provider, d } = chain
  const chainId = String(anvil.chainId)
  const { confirmations } = options
  const chains = new Map([[chainId, createDispenserChain(chainId, anvil.url, { confirmations })]])
  const svc = await startClaimsService({ signerPrivateKey: voucherKey.privateKey, chains })
  const metrics = new Registry()

  const fixture: ChainFixture = {
    anvil,
    provider,
    d,
    svc,
    chainId,
    chains,
    confirmations,
    signerPrivateKey: voucherKey.privateKey,
    metrics,
    reconciler: (overrides = {}) =>
      createReconciler({ sql: svc.db.sql, chains, logger: silent, graceS: 600, metrics, ...overrides }),
    fundedUser: async () => createIdentity(await chain.fundedWallet()),
    async grant(user, n = 1) {
      const rewards = Array.from({ length: n }, () => ({
        id: crypto.randomUUID(),
        user: user.address,
        chain_id: chainId,
        contract: d.rewardsDispenser,
        item_id: BigInt(`0x${randomBytes(6).toString('hex')}`).toString(),
      }))
      const granted = await signedRequest<Reward[]>(svc.url, 'admin', 'POST', '/api/rewards', { rewards })
      expect(granted.status).toBe(201)
      return rewards.map((r) => r.id)
    },
    create: (user, rewardIds) =>
      signedRequest<ClaimTransaction>(svc.url, user, 'POST', '/api/claim-transactions', {
        rewards: rewardIds,
      }),
    async claimFor(user, n = 1) {
      const rewardIds = await fixture.grant(user, n)
      const created = await fixture.create(user, rewardIds)
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      return { claim: created.body.data, rewardIds }
    },
    async send(user, claim, data = claim.transaction_payload) {
      const tx = await user.wallet.sendTransaction({ to: claim.contract, data, gasLimit: 500_000n })
      const receipt = (await provider.waitForTransaction(tx.hash))!
      return { hash: tx.hash, status: receipt.status ?? 0 }
    },
    report: (user, claim, hash) =>
      signedRequest<ClaimTransaction>(svc.url, user, 'PATCH', `/api/claim-transactions/${claim.id}`, {
        transaction_hash: hash,
      }),
    async read(user, claim) {
      const answer = await signedRequest<ClaimTransaction>(
        svc.url,
        user,
        'GET',
        `/api/claim-transactions/${claim.id}`,
      )
      return answer.body.data
    },
    async rewards(user) {
      return (await signedRequest<Reward[]>(svc.url, user, 'GET', '/api/rewards?limit=100')).body.data
    },
    operator: (claim, status) =>
      signedRequest<ClaimTransaction>(svc.url, 'admin', 'PATCH', `/api/claim-transactions/${claim.id}`, {
        status,
      }),
    async mine(blocks) {
      if (blocks > 0) await provider.send('anvil_mine', [toQuantity(blocks)])
    },
    async passTime(at) {
      const latest = await provider.getBlock('latest')
      const next = Math.max(at + 1, (latest?.timestamp ?? 0) + 1)
      await provider.send('evm_setNextBlockTimestamp', [next])
      await provider.send('evm_mine', [])
    },
    async mints(claimId) {
      const logs = await provider.getLogs({
        address: d.rewardsDispenser,
        topics: [CLAIMED_TOPIC, claimIdToBytes32(claimId)],
        fromBlock: 0,
        toBlock: 'latest',
      })
      return logs.length
    },
    async close() {
      for (const watched of chains.values()) watched.destroy()
      await svc.close()
      await chain.close()
    },
  }
  return fixture
}

export const unknownHash = () => `0x${randomBytes(32).toString('hex')}`
export const expiresAtOf = (claim: ClaimTransaction) => Math.floor(Date.parse(claim.expires_at) / 1000)

/** `startChainFixture` for the tests of the describe it is called in, closed after them. */
export const useChainFixture = (options: { confirmations: number }) =>
  startBeforeAll(() => startChainFixture(options))
