import type { App } from '@genesis/common'
import { type Identity, signedInject } from '@genesis/common/testing'
import { chainTestsSkipReason } from '@genesis/contracts'
import type { ClaimTransaction } from '@genesis/wire/claims'
import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { createDispenserChain } from '../../src/chain/dispenser.js'
import { loadConfig } from '../../src/config.js'
import { expiresAtOf, unknownHash, useChainFixture } from './fixture.js'

const skip = chainTestsSkipReason()
const CONFIRMATIONS = 2

interface Logged {
  level: 'info' | 'warn'
  obj: Record<string, unknown>
  msg: string
}

/** A logger that keeps every line, for the tests that read what the reconciler told the operator. */
function recordingLogger() {
  const lines: Logged[] = []
  return {
    lines,
    info: (obj: object, msg: string) =>
      lines.push({ level: 'info', obj: obj as Record<string, unknown>, msg }),
    warn: (obj: object, msg: string) =>
      lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
  }
}

// The reconciler's edges on a real anvil node: a chain given its RPC URL after claims were made on it, a
// node younger than the confirmation depth, a deployment without metrics, and what it logs and counts.
describe.skipIf(skip)('the reconciler at its edges (anvil)', () => {
  const f = useChainFixture({ confirmations: CONFIRMATIONS })

  /** The same database served by an app that does not watch the chain, as before RPC_URL_<chain_id> was set. */
  const unwatchedApp = () =>
    buildApp({
      sql: f.svc.db.sql,
      config: loadConfig({
        CLAIMS_SIGNER_PRIVATE_KEY: f.signerPrivateKey,
        CLAIMS_ADMIN_TOKEN: 'unwatched-admin-token-0123456789',
      }),
      context: { chains: new Map() },
    })
  /** A claim made through `app` (the reward granted by the operator). */
  const claimOn = async (app: App, who: Identity) => {
    const [rewardId] = await f.grant(who)
    const answer = await signedInject(app, who, {
      method: 'POST',
      url: '/api/claim-transactions',
      payload: { rewards: [rewardId] },
    })
    expect(answer.statusCode, answer.body).toBe(201)
    return answer.json().data as ClaimTransaction
  }

  /** Redeemed before the first tick's lookback window: settled only at its expiry (the last test). */
  let early: { claim: ClaimTransaction; owner: Identity }

  // Mutations guarded: `if (!adopted.has(chainId))` → `if (false)` (jobs/reconciler.ts) → claims made before
  // the chain was watched are never adopted: a redemption of theirs is never applied, and the sweeper
  // would free them by the clock although their vouchers may be redeemed; the first scan's start
  // `Math.max(-1, finalBlock - initialLookback)` → `Math.min` (the whole chain scanned) or
  // `finalBlock + initialLookback` (nothing scanned).
  it('adopts the live claims made before the chain had an RPC URL, and settles them from the chain', async () => {
    const unwatched = await unwatchedApp()
    try {
      const pat = await f.fundedUser()
      early = { claim: await claimOn(unwatched, pat), owner: pat }
      expect((await f.send(pat, early.claim)).status).toBe(1)
      await f.mine(10)
      const redeemed = await claimOn(unwatched, pat)
      const live = await claimOn(unwatched, pat)
      const watchedOf = async (claim: ClaimTransaction) =>
        (
          await f.svc.db.sql<
            { watched: boolean }[]
          >`select watched from claim_transactions where id = ${claim.id}`
        )[0]!.watched
      expect(await watchedOf(redeemed)).toBe(false)

      const sent = await f.send(pat, redeemed)
      expect(sent.status).toBe(1)
      expect((await f.report(pat, redeemed, sent.hash)).body.data.status).toBe('pending')
      await f.mine(CONFIRMATIONS)
      // the first tick on this chain looks 5 blocks back from the final one: the redemption, not `early`'s
      expect(await f.reconciler({ initialLookback: 5 }).tick()).toMatchObject({
        successful: 1,
        errors: 0,
      })
      expect((await f.read(pat, redeemed)).status).toBe('successful')
      expect(await watchedOf(live)).toBe(true)
      expect((await f.read(pat, live)).status).toBe('claimed')
      expect(await watchedOf(early.claim)).toBe(true)
      expect((await f.read(pat, early.claim)).status).toBe('claimed')
    } finally {
      await unwatched.close()
    }
  })

  // Mutations guarded: `if (final)` → `if (true)` (a node younger than `confirmations` makes the tick
  // throw, so the reports are never judged), and `report.checked += pending.length` → `-=`.
  it('a node not yet `confirmations` deep has no final block: no error, and the reports are still judged', async () => {
    const quinn = await f.fundedUser()
    const { claim } = await f.claimFor(quinn)
    await f.report(quinn, claim, unknownHash())
    const young = new Map([
      [
        f.chainId,
        createDispenserChain(f.chainId, f.anvil.url, {
          confirmations: 1_000_000,
        }),
      ],
    ])
    try {
      expect(await young.get(f.chainId)!.finalBlock()).toBeNull()
      const report = await f.reconciler({ chains: young, graceS: 0 }).tick()
      expect(report).toEqual({
        checked: 1,
        successful: 0,
        failed: 0,
        returned: 1,
        errors: 0,
      })
      expect(await f.read(quinn, claim)).toMatchObject({
        status: 'claimed',
        transaction_hash: null,
      })
    } finally {
      for (const chain of young.values()) chain.destroy()
    }
  })

  // Mutations guarded: in failureCounter, the `if (!counter) { … }` block emptied, `labelNames` → `[]` and
  // `registers` → `[]` (the counter, made once per registry, would be missing, refuse its label or not be
  // exported). A fresh registry here, because the block runs only for the first reconciler of a registry.
  it("counts a failing node's ticks in a new registry under its chain id", async () => {
    const closed = new Map([
      [f.chainId, createDispenserChain(f.chainId, 'http://127.0.0.1:1', { confirmations: 0 })],
    ])
    const metrics = new Registry()
    try {
      expect(await f.reconciler({ chains: closed, metrics }).tick()).toMatchObject({ errors: 1 })
    } finally {
      for (const chain of closed.values()) chain.destroy()
    }
    const counted = await metrics.getSingleMetric('claims_reconciler_rpc_failures_total')?.get()
    expect(counted?.values).toEqual([{ value: 1, labels: { chain_id: f.chainId } }])
  })

  // Mutations guarded: `if (!registry) return undefined` → `if (false)` (a reconciler without a registry,
  // as in a script, cannot even be made) and `failures?.inc(...)` → `failures.inc(...)` (its first node
  // error throws out of the tick instead of being counted).
  it('without a metrics registry a failing node is still counted in the report, and nothing is thrown', async () => {
    const closed = new Map([
      [
        f.chainId,
        createDispenserChain(f.chainId, 'http://127.0.0.1:1', {
          confirmations: 0,
        }),
      ],
    ])
    try {
      const reconciler = f.reconciler({ chains: closed, metrics: undefined })
      expect(await reconciler.tick()).toEqual({
        checked: 0,
        successful: 0,
        failed: 0,
        returned: 0,
        errors: 1,
      })
    } finally {
      for (const chain of closed.values()) chain.destroy()
    }
  })

  // Mutations guarded: every log line's message → "" and its fields → {} (what an operator reads when a
  // claim is settled, freed or sent back, or a node fails), and `report.checked += …` → `-=`.
  // Last: it moves the node's clock past every voucher issued so far.
  it('tells the operator which claim it settled, freed or sent back, and which chain failed; counts what it checked; a dead voucher may be failed by the operator', async () => {
    // the earlier tests' reports judged first, so that the first tick below sees only rex's claims
    await f.reconciler({ graceS: 0 }).tick()
    const rex = await f.fundedUser()
    const redeemed = await f.claimFor(rex)
    const reverted = await f.claimFor(rex)
    const unused = await f.claimFor(rex)
    const abandoned = await f.claimFor(rex)
    expect((await f.send(rex, redeemed.claim)).status).toBe(1)
    const bad = await f.send(rex, reverted.claim, '0xdeadbeef')
    await f.report(rex, reverted.claim, bad.hash)
    await f.mine(CONFIRMATIONS)

    const logger = recordingLogger()
    const first = await f.reconciler({ logger }).tick()
    expect(first).toEqual({
      checked: 1,
      successful: 1,
      failed: 0,
      returned: 1,
      errors: 0,
    })
    const receipt = await f.provider.getTransactionReceipt(bad.hash)
    expect(logger.lines).toEqual([
      {
        level: 'info',
        obj: { chainId: f.chainId, claim: redeemed.claim.id },
        msg: 'reconciler: redeemed',
      },
      {
        level: 'warn',
        obj: {
          chainId: f.chainId,
          claim: reverted.claim.id,
          hash: bad.hash,
          to: receipt?.to,
        },
        msg: 'reconciler: the reported transaction did not redeem the voucher; the claim is claimed again',
      },
    ])

    logger.lines.length = 0
    await f.passTime(Math.max(...[unused, reverted, abandoned].map((c) => expiresAtOf(c.claim))))
    await f.mine(CONFIRMATIONS)
    // Mutations guarded (domain/transitions.ts): `state !== 'dead'` → `true` or `state !== ""`, and
    // `target === 'successful' && state !== 'redeemed'` → `true && …` or `||`: the operator could never
    // fail a claim whose voucher the chain shows dead.
    const failed = await f.operator(abandoned.claim, 'failed')
    expect(failed.status, JSON.stringify(failed.body)).toBe(200)
    expect(failed.body.data.status).toBe('failed')
    expect((await f.create(rex, abandoned.rewardIds)).status).toBe(201)
    const expiry = await f.reconciler({ logger }).tick()
    // the earlier tests' live claims expire with this jump too: each is checked, found dead and logged;
    // `early`, redeemed before any scan looked, is found redeemed at its expiry.
    // Mutations guarded: the redeemed ones' `{ claimId, contract }` → `{}`, and the filter
    // `(_, i) => redeemed[i]` → `() => undefined` (settleExpired).
    expect(expiry).toMatchObject({ successful: 1, returned: 0, errors: 0 })
    expect(expiry.failed).toBeGreaterThanOrEqual(2)
    expect(expiry.checked).toBe(expiry.failed + 1)
    expect((await f.read(early.owner, early.claim)).status).toBe('successful')
    expect(logger.lines).toHaveLength(expiry.failed)
    for (const line of logger.lines) {
      expect(line).toMatchObject({
        level: 'info',
        msg: 'reconciler: voucher dead',
        obj: { chainId: f.chainId },
      })
      expect(Object.keys(line.obj).sort()).toEqual(['chainId', 'claim'])
    }
    const dead = logger.lines.map((line) => line.obj.claim)
    expect(dead).toEqual(expect.arrayContaining([unused.claim.id, reverted.claim.id]))

    logger.lines.length = 0
    const closed = new Map([
      [
        f.chainId,
        createDispenserChain(f.chainId, 'http://127.0.0.1:1', {
          confirmations: 0,
        }),
      ],
    ])
    try {
      expect(await f.reconciler({ chains: closed, logger }).tick()).toMatchObject({ errors: 1 })
    } finally {
      for (const chain of closed.values()) chain.destroy()
    }
    // one line, without a stack trace: the reason and when it is tried again
    expect(logger.lines).toEqual([
      {
        level: 'warn',
        obj: {
          chainId: f.chainId,
          reason: `RPC_URL_${f.chainId}: no provider answered (#1 127.0.0.1:1: bad port)`,
          retryInMs: 1000,
        },
        msg: `reconciler: chain ${f.chainId}: down (RPC_URL_${f.chainId}: no provider answered (#1 127.0.0.1:1: bad port)); retrying with back-off up to 128 s`,
      },
    ])
  })
})
