import type { Identity } from '@genesis/common/testing'
import { chainTestsSkipReason } from '@genesis/contracts'
import type { ClaimTransaction, Reward } from '@genesis/wire/claims'
import { describe, expect, it } from 'vitest'
import { CLAIMED_TOPIC, claimIdToUuid, dispenserInterface } from '../../src/chain/dispenser.js'
import { type ChainFixture, expiresAtOf, unknownHash, useChainFixture } from './fixture.js'
import { signedRequest } from './service.js'

const skip = chainTestsSkipReason()
const CONFIRMATIONS = 2
// fewer under mutation testing (services/claims/stryker.config.mjs), where it runs once per mutant
const STEPS = Number(process.env.CLAIMS_PROPERTY_STEPS ?? 150)
const USERS = 3
const REWARDS_PER_USER = 8

/** A small seeded generator (mulberry32), so that a failing run can be replayed with CLAIMS_PROPERTY_SEED. */
function random(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  return { next, int, pick: <T>(items: readonly T[]): T | undefined => items[int(items.length)] }
}

// Random interleavings of everything users, operators and the chain can do, run to the end (every voucher
// expired, every block final, the reconciler settled); then every reward is minted at most once, and a
// minted reward is held by its successful claim, an unminted one is claimable or held by a live claim.
describe.skipIf(skip)('exactly once on chain, whatever the interleaving (property, anvil)', () => {
  const f = useChainFixture({ confirmations: CONFIRMATIONS })

  it(`${STEPS} random steps over ${USERS * REWARDS_PER_USER} rewards: minted at most once, and the records agree with the chain`, async () => {
    const seed = Number(process.env.CLAIMS_PROPERTY_SEED ?? Math.floor(Math.random() * 2 ** 31))
    const log: string[] = []
    try {
      await run(f, seed, log)
      console.log(`property run: CLAIMS_PROPERTY_SEED=${seed}, ${log.at(-1)}`)
    } catch (error) {
      console.error(`property run failed: CLAIMS_PROPERTY_SEED=${seed}\n${log.join('\n')}`)
      throw new Error(`seed ${seed}: ${(error as Error).message}`, { cause: error })
    }
  }, 300_000)
})

async function run(f: ChainFixture, seed: number, log: string[]) {
  const rng = random(seed)
  const users: Identity[] = []
  const rewardsOf = new Map<Identity, string[]>()
  for (let i = 0; i < USERS; i++) {
    const user = await f.fundedUser()
    users.push(user)
    rewardsOf.set(user, await f.grant(user, REWARDS_PER_USER))
  }
  const claims: { claim: ClaimTransaction; owner: Identity }[] = []
  const hashes: string[] = []
  let snapshot: { id: string; block: number } | null = null
  const reconciler = f.reconciler({ graceS: 0 })

  const steps: Record<string, () => Promise<string>> = {
    async create() {
      const owner = rng.pick(users)!
      const mine = rewardsOf.get(owner)!
      const ids = [...new Set(Array.from({ length: 1 + rng.int(3) }, () => rng.pick(mine)!))]
      const created = await f.create(owner, ids)
      expect([201, 400], JSON.stringify(created.body)).toContain(created.status)
      if (created.status === 201) claims.push({ claim: created.body.data, owner })
      return `${created.status} ${created.body.code ?? created.body.data.id}`
    },
    async redeem() {
      const c = rng.pick(claims)
      if (!c) return 'no claim'
      // now and then from the wrong wallet (reverts: not the beneficiary)
      const sender = rng.next() < 0.2 ? rng.pick(users)! : c.owner
      const sent = await f.send(sender, c.claim)
      hashes.push(sent.hash)
      return `${c.claim.id} status ${sent.status}`
    },
    async garbage() {
      const c = rng.pick(claims)
      if (!c) return 'no claim'
      const sent = await f.send(c.owner, c.claim, '0x1234')
      hashes.push(sent.hash)
      return sent.hash
    },
    async report() {
      const c = rng.pick(claims)
      if (!c) return 'no claim'
      const hash = rng.next() < 0.8 ? (rng.pick(hashes) ?? unknownHash()) : unknownHash()
      const answer = await f.report(c.owner, c.claim, hash)
      expect([200, 409], JSON.stringify(answer.body)).toContain(answer.status)
      return `${c.claim.id} ${answer.status} ${answer.body.code ?? answer.body.data.status}`
    },
    async operatorFail() {
      const c = rng.pick(claims)
      if (!c) return 'no claim'
      const answer = await f.operator(c.claim, 'failed')
      expect([200, 409], JSON.stringify(answer.body)).toContain(answer.status)
      return `${c.claim.id} ${answer.status} ${answer.body.code ?? answer.body.data.status}`
    },
    async expiry() {
      const seconds = 600 + rng.int(900)
      await f.provider.send('evm_increaseTime', [seconds])
      await f.provider.send('evm_mine', [])
      return `+${seconds} s`
    },
    async mine() {
      const blocks = 1 + rng.int(3)
      await f.mine(blocks)
      return `${blocks} blocks`
    },
    async reorg() {
      const head = await f.provider.getBlockNumber()
      // only a reorganisation shallower than the confirmations: no final block may change
      if (snapshot && head - snapshot.block < CONFIRMATIONS) {
        expect(await f.provider.send('evm_revert', [snapshot.id])).toBe(true)
        snapshot = null
        const blocks = 1 + rng.int(CONFIRMATIONS + 1)
        await f.mine(blocks)
        return `reverted to ${head} → new branch of ${blocks}`
      }
      snapshot = { id: await f.provider.send('evm_snapshot', []), block: head }
      return `snapshot at ${head}`
    },
    async tick() {
      return JSON.stringify(await reconciler.tick())
    },
  }
  const names = Object.keys(steps)
  const weights: Record<string, number> = { create: 4, redeem: 4, report: 3, tick: 3, reorg: 2, mine: 2 }
  const bag = names.flatMap((name) => Array<string>(weights[name] ?? 1).fill(name))
  for (let i = 0; i < STEPS; i++) {
    const name = rng.pick(bag)!
    log.push(`${i} ${name}: ${await steps[name]!()}`)
  }

  // to the end: every voucher expired in a final block, the reconciler settled
  await f.passTime(Math.max(...claims.map((c) => expiresAtOf(c.claim)), 0))
  await f.mine(CONFIRMATIONS)
  for (let i = 0; i < 3; i++) log.push(`end tick: ${JSON.stringify(await reconciler.tick())}`)

  // what the chain minted: item id → the claims whose voucher minted it
  const minted = new Map<string, string[]>()
  const logs = await f.provider.getLogs({
    address: f.d.rewardsDispenser,
    topics: [CLAIMED_TOPIC],
    fromBlock: 0,
    toBlock: 'latest',
  })
  for (const entry of logs) {
    const claimId = claimIdToUuid(entry.topics[1]!)!
    const [, , itemIds] = dispenserInterface.decodeEventLog('Claimed', entry.data, entry.topics)
    for (const itemId of itemIds as bigint[]) {
      minted.set(itemId.toString(), [...(minted.get(itemId.toString()) ?? []), claimId])
    }
  }
  const statusOf = new Map<string, string>()
  for (const user of users) {
    const list = await signedRequest<ClaimTransaction[]>(
      f.svc.url,
      user,
      'GET',
      '/api/claim-transactions?limit=100',
    )
    for (const claim of list.body.data) statusOf.set(claim.id, claim.status)
  }
  let mintedCount = 0
  for (const user of users) {
    const rewards = (await signedRequest<Reward[]>(f.svc.url, user, 'GET', '/api/rewards?limit=100')).body
      .data
    expect(rewards).toHaveLength(REWARDS_PER_USER)
    for (const reward of rewards) {
      const by = minted.get(reward.item_id) ?? []
      expect(by.length, `reward ${reward.id} minted ${by.length} times`).toBeLessThanOrEqual(1)
      if (by.length === 1) {
        mintedCount++
        expect(reward.claim_transaction_id, `minted reward ${reward.id} not held by its claim`).toBe(by[0])
        expect(statusOf.get(by[0]!), `claim ${by[0]} minted reward ${reward.id}`).toBe('successful')
      } else {
        const live = reward.claim_transaction_id && statusOf.get(reward.claim_transaction_id)
        expect(
          reward.claimable || live === 'claimed' || live === 'pending',
          `unminted reward ${reward.id} is neither claimable nor in a live claim (${live})`,
        ).toBe(true)
      }
    }
  }
  // a successful claim is a minted one, a failed claim minted nothing
  const mintingClaims = new Set(logs.map((entry) => claimIdToUuid(entry.topics[1]!)))
  for (const [id, status] of statusOf) {
    if (status === 'successful')
      expect(mintingClaims.has(id), `successful claim ${id} minted nothing`).toBe(true)
    if (status === 'failed') expect(mintingClaims.has(id), `failed claim ${id} minted`).toBe(false)
  }
  log.push(`minted ${mintedCount} rewards over ${claims.length} claims`)
}
