// RPC_URL_<chain_id> as a list of providers, on a real anvil behind real proxies: one stopped (a TCP proxy
// cut), one lagging (a JSON-RPC proxy answering as a node that many blocks behind does). The reconciler keeps
// settling with one provider away, and never decides a claim on a lagging provider's view. Then the node
// itself stopped: the reconciler's pino output over minutes of ticks is one line down and one line back.
import { Writable } from 'node:stream'
import { createLogger } from '@genesis/common'
import { startRpcProxy, startTcpProxy } from '@genesis/common/testing'
import { chainTestsSkipReason } from '@genesis/contracts'
import { describe, expect, it } from 'vitest'
import { createDispenserChain } from '../../src/chain/dispenser.js'
import { useChainFixture } from './fixture.js'

const skip = chainTestsSkipReason()

describe.skipIf(skip)('the reconciler over several providers (anvil)', () => {
  const f = useChainFixture({ confirmations: 0 })

  it('keeps settling claims when one of two providers is stopped', async () => {
    const [a, b] = [
      await startTcpProxy({ host: '127.0.0.1', port: f.anvil.port }),
      await startTcpProxy({ host: '127.0.0.1', port: f.anvil.port }),
    ]
    const chain = createDispenserChain(f.chainId, `${a.via(f.anvil.url)},${b.via(f.anvil.url)}`, {
      confirmations: 0,
    })
    const chains = new Map([[f.chainId, chain]])
    try {
      const reconciler = f.reconciler({ chains })
      const user = await f.fundedUser()
      const first = await f.claimFor(user)
      await f.report(user, first.claim, (await f.send(user, first.claim)).hash)
      expect(await reconciler.tick()).toMatchObject({ successful: 1, errors: 0 })

      await a.cut('refuse')
      const second = await f.claimFor(user)
      await f.report(user, second.claim, (await f.send(user, second.claim)).hash)
      expect(await reconciler.tick()).toMatchObject({ successful: 1, errors: 0 })
      expect((await f.read(user, second.claim)).status).toBe('successful')
      expect(chain.pool.status().map((p) => p.state)).toEqual(['down', 'up'])
    } finally {
      chain.destroy()
      await a.close()
      await b.close()
    }
  })

  it('never acts on a lagging provider: with the fresh one gone it waits, and settles once the other catches up', async () => {
    // a provider that stops following the chain at `stalled` (null: it follows)
    let stalled: bigint | null = null
    const lagging = await startRpcProxy(f.anvil.url, { head: (node) => stalled ?? node })
    const fresh = await startTcpProxy({ host: '127.0.0.1', port: f.anvil.port })
    const chain = createDispenserChain(f.chainId, `${lagging.url},${fresh.via(f.anvil.url)}`, {
      confirmations: 0,
    })
    const alone = createDispenserChain(f.chainId, lagging.url, { confirmations: 0 })
    try {
      let now = 0
      // past the grace period at once: a report the chain does not show goes back to claimed
      const reconciler = f.reconciler({ chains: new Map([[f.chainId, chain]]), graceS: 0, clock: () => now })
      await reconciler.tick()
      const user = await f.fundedUser()
      const { claim } = await f.claimFor(user)
      // the lagging provider stops before the redemption's block, then falls behind
      stalled = BigInt(await f.provider.getBlockNumber())
      await f.report(user, claim, (await f.send(user, claim)).hash)
      await f.mine(10)
      expect(await reconciler.tick()).toMatchObject({ successful: 1, errors: 0 })
      const next = await f.claimFor(user)
      await f.report(user, next.claim, (await f.send(user, next.claim)).hash)
      await fresh.cut('refuse')
      expect(await reconciler.tick()).toMatchObject({ successful: 0, returned: 0, errors: 1 })
      expect(await f.read(user, next.claim)).toMatchObject({ status: 'pending' })
      expect(chain.pool.status().map((p) => p.state)).toEqual(['lagging', 'down'])

      // the control: that provider alone is the chain as far as a reconciler can tell, and the report of a
      // redemption it has not seen yet goes back to claimed (harmless: the claim stays live)
      const misled = f.reconciler({ chains: new Map([[f.chainId, alone]]), graceS: 0 })
      expect(await misled.tick()).toMatchObject({ returned: 1, errors: 0 })
      expect(await f.read(user, next.claim)).toMatchObject({ status: 'claimed', transaction_hash: null })

      stalled = null
      now += 1000
      expect(await reconciler.tick()).toMatchObject({ successful: 1, errors: 0 })
      expect((await f.read(user, next.claim)).status).toBe('successful')
    } finally {
      chain.destroy()
      alone.destroy()
      await lagging.close()
      await fresh.close()
    }
  })

  it('a stopped node is one log line, whatever the ticks, and one line when it is back', async () => {
    const output: Record<string, unknown>[] = []
    const logger = createLogger(
      'claims',
      { LOG_LEVEL: 'info' },
      new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split('\n').filter(Boolean)) output.push(JSON.parse(line))
          done()
        },
      }),
    )
    let now = 0
    const reconciler = f.reconciler({ logger, clock: () => now })
    await reconciler.tick()
    output.length = 0
    await f.anvil.stop()
    let attempts = 0
    try {
      // five minutes of ticks a second, as RECONCILE_INTERVAL_MS=1000 runs them
      for (let second = 0; second < 300; second++) {
        attempts += (await reconciler.tick()).errors
        now += 1000
      }
    } finally {
      await f.anvil.start()
    }
    // tried after 1, 2, 4 … 128 s: nine attempts in five minutes, not three hundred
    expect(attempts).toBe(9)
    expect(output).toHaveLength(1)
    expect(output[0]).toMatchObject({ level: 40, chainId: f.chainId })
    expect(output[0]!.msg).toMatch(
      new RegExp(
        `^reconciler: chain ${f.chainId}: down \\(RPC_URL_${f.chainId}: no provider answered \\(#1 127\\.0\\.0\\.1:\\d+: connect ECONNREFUSED [^)]+\\)\\); retrying with back-off up to 128 s$`,
      ),
    )
    expect(JSON.stringify(output[0])).not.toMatch(/stack|\\n {4}at /)

    // its next attempt (up to 128 s later) finds it back: one line
    now += 128_000
    expect(await reconciler.tick()).toMatchObject({ errors: 0 })
    for (let second = 0; second < 10; second++) {
      await reconciler.tick()
      now += 1000
    }
    expect(output.map((line) => line.msg)).toEqual([
      output[0]!.msg,
      expect.stringMatching(new RegExp(`^reconciler: chain ${f.chainId}: back after \\d+ s$`)),
    ])
  })
})
