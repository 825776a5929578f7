// A provider that refuses wide eth_getLogs ranges (as hosted ones do) must not stop reconciliation: the
// reconciler narrows its range to what the provider takes, finds the redemption and moves on. A real anvil
// behind a real JSON-RPC proxy answering the providers' own refusals.
import { providerRefusals, type RpcProxy, type RpcProxyRules, startRpcProxy } from '@genesis/common/testing'
import { chainTestsSkipReason } from '@genesis/contracts'
import { afterAll, describe, expect, it } from 'vitest'
import { createDispenserChain, type DispenserChain } from '../../src/chain/dispenser.js'
import { useChainFixture } from './fixture.js'

const skip = chainTestsSkipReason()
const CONFIRMATIONS = 2

describe.skipIf(skip)('the reconciler behind a provider that refuses wide ranges (anvil)', () => {
  const f = useChainFixture({ confirmations: CONFIRMATIONS })
  const opened: Array<{ proxy: RpcProxy; chain: DispenserChain }> = []
  afterAll(async () => {
    for (const { proxy, chain } of opened) {
      chain.destroy()
      await proxy.close()
    }
  })

  /** The chain's reads through a proxy with `rules`, as the service's own would go to that provider. */
  async function through(rules: RpcProxyRules) {
    const proxy = await startRpcProxy(f.anvil.url, rules)
    const chain = createDispenserChain(f.chainId, proxy.url, { confirmations: CONFIRMATIONS })
    opened.push({ proxy, chain })
    return { proxy, chains: new Map([[f.chainId, chain]]) }
  }

  for (const [provider, rules] of [
    ['a stated maximum (QuickNode)', { range: providerRefusals.quicknode(8) }],
    ['a suggested range (Alchemy)', { range: providerRefusals.alchemy(8) }],
    ['no hint at all', { range: providerRefusals.terse(8) }],
  ] as const) {
    it(`finds a redemption past a refused range: ${provider}`, async () => {
      const sam = await f.fundedUser()
      const { claim } = await f.claimFor(sam)
      expect((await f.send(sam, claim)).status).toBe(1)
      await f.mine(CONFIRMATIONS + 40)
      const { proxy, chains } = await through(rules)
      // the scan covers the blocks since the last one (the whole young chain the first time): over 8
      const report = await f.reconciler({ chains, maxBlockRange: 5_000 }).tick()
      expect(report).toMatchObject({ successful: 1, errors: 0 })
      expect((await f.read(sam, claim)).status).toBe('successful')
      expect(proxy.counts.range).toBeGreaterThan(0)
      expect(proxy.answered.every((span) => span.blocks <= 8)).toBe(true)
    }, 120_000)
  }
})
