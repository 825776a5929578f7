// The eth_getLogs range every reader of logs shares (land's indexer, claims' reconciler): real providers'
// refusals, read from their own words, and a real node (anvil) behind a real JSON-RPC proxy that refuses as
// they do. Every log of the chain must be read exactly once, whatever the provider refuses.
import {
  type Anvil,
  chainTestsSkipReason,
  contractAt,
  deployLand,
  type LandDeployment,
  startAnvil,
} from '@genesis/contracts'
import { JsonRpcProvider, Network, toQuantity } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isTimeoutError, LogRange, rangeRefusal, readLogRange } from '../src/chain/log-range.js'
import { providerRefusals, type RpcProxy, type RpcProxyRules, startRpcProxy } from '../src/testing/index.js'

describe('a provider’s refusal, in its own words', () => {
  const rpcError = (code: number, message: string, data?: unknown) =>
    Object.assign(new Error(message), { code, data })

  it('reads the range a provider suggests and the maximum it states', () => {
    const alchemy = providerRefusals.alchemy(2000)({ from: 0x10n, to: 0x2000n, blocks: 0x1ff1 })!
    expect(rangeRefusal(rpcError(alchemy.code, alchemy.message))).toEqual({
      suggested: { from: 0x10n, to: 0x10n + 1999n },
      maximum: 2000,
    })
    const infura = {
      code: -32005,
      message: 'query returned more than 10000 results',
      data: { from: '0x10', to: '0x20' },
    }
    expect(rangeRefusal(rpcError(infura.code, infura.message, infura.data))).toEqual({
      suggested: { from: 0x10n, to: 0x20n },
    })
    expect(rangeRefusal(rpcError(-32614, 'eth_getLogs is limited to a 10,000 range'))).toEqual({
      maximum: 10_000,
    })
    expect(rangeRefusal(rpcError(-32000, 'exceed maximum block range: 5000'))).toEqual({ maximum: 5000 })
    expect(rangeRefusal(rpcError(-32000, 'Block range greater than 2000 max'))).toEqual({ maximum: 2000 })
    expect(rangeRefusal(rpcError(-32600, 'block range is too wide'))).toEqual({})
    expect(rangeRefusal(rpcError(-32005, 'query returned more than 10000 results'))).toEqual({})
    expect(rangeRefusal(rpcError(-32000, 'Log response size exceeded.'))).toEqual({})
  })

  it('finds the node’s error inside a client’s wrapping (ethers) and tells rate limits and outages apart', () => {
    const wrapped = Object.assign(new Error('could not coalesce error (error={ ... }, payload={ ... })'), {
      code: 'UNKNOWN_ERROR',
      error: { code: -32602, message: 'eth_getLogs is limited to a 500 range' },
    })
    expect(rangeRefusal(wrapped)).toEqual({ maximum: 500 })
    expect(rangeRefusal(rpcError(-32005, 'daily request count exceeded, request rate limited'))).toBeNull()
    expect(
      rangeRefusal(rpcError(429, 'Your app has exceeded its compute units per second capacity')),
    ).toBeNull()
    expect(
      rangeRefusal(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } })),
    ).toBeNull()
    expect(rangeRefusal(rpcError(-32602, 'invalid argument 0: hex string without 0x prefix'))).toBeNull()
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError')
    expect(isTimeoutError(timeout)).toBe(true)
    expect(rangeRefusal(timeout)).toEqual({ timeout: true })
    expect(rangeRefusal(Object.assign(new Error('request timeout'), { code: 'TIMEOUT' }))).toEqual({
      timeout: true,
    })
  })

  it('narrows to the suggestion, keeps a stated maximum as its ceiling, grows back otherwise', () => {
    const range = new LogRange({ max: 1000 })
    expect(range.next(100n, 5000n)).toEqual({ from: 100n, to: 1099n })
    expect(range.refused(rpcError(-32614, 'eth_getLogs is limited to a 300 range'), 100n, 1099n)).toBe(true)
    expect(range.size).toBe(300)
    range.answered(100n, 399n)
    expect(range.size).toBe(300) // the provider's own maximum: never asked past it again
    expect(range.refused(rpcError(-32005, 'query returned more than 10000 results'), 400n, 699n)).toBe(true)
    expect(range.size).toBe(150)
    range.answered(400n, 549n)
    expect(range.size).toBe(300)
    expect(range.refused(rpcError(-32000, 'execution reverted'), 550n, 849n)).toBe(false)
    expect(range.size).toBe(300)
    const single = new LogRange({ max: 1 })
    expect(single.refused(rpcError(-32005, 'query returned more than 10000 results'), 7n, 7n)).toBe(false)
  })
})

const skip = chainTestsSkipReason()

/** An eth_getLogs over fetch, throwing the node's error as land's client does (an Error with code and data). */
async function fetchLogs(url: string, address: string, from: bigint, to: bigint): Promise<unknown[]> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_getLogs',
      params: [{ address, fromBlock: toQuantity(from), toBlock: toQuantity(to) }],
    }),
    signal: AbortSignal.timeout(500),
  })
  const body = (await res.json()) as {
    result?: unknown[]
    error?: { code: number; message: string; data?: unknown }
  }
  if (body.error) throw Object.assign(new Error(body.error.message), body.error)
  return body.result!
}

describe.skipIf(skip)('reading a chain through providers that refuse (anvil)', () => {
  let anvil: Anvil
  let d: LandDeployment
  let head: bigint
  let all: unknown[]
  const proxies: RpcProxy[] = []

  beforeAll(async () => {
    anvil = await startAnvil()
    const provider = anvil.provider()
    const admin = anvil.devWallet(0, provider)
    d = await deployLand(admin)
    const land = contractAt('LANDRegistry', d.landRegistry, admin)
    // 30 blocks of 4 Transfer logs each, with empty blocks between
    for (let i = 0; i < 30; i++) {
      await (
        await land.getFunction('assignMultipleParcels')([0, 1, 2, 3], [i, i, i, i], admin.address)
      ).wait()
      if (i % 5 === 0) await provider.send('anvil_mine', [toQuantity(7)])
    }
    head = BigInt(await provider.getBlockNumber())
    all = await fetchLogs(anvil.url, d.landRegistry, BigInt(d.startBlock), head)
    expect(all.length).toBeGreaterThanOrEqual(120)
    provider.destroy()
  }, 120_000)
  afterAll(async () => {
    for (const proxy of proxies) await proxy.close()
    await anvil?.close()
  })

  async function readAll(rules: RpcProxyRules, max: number, read?: (url: string) => typeof fetchLogs) {
    const proxy = await startRpcProxy(anvil.url, rules)
    proxies.push(proxy)
    const range = new LogRange({ max })
    const logs: unknown[] = []
    const widths: number[] = []
    const get = read?.(proxy.url) ?? fetchLogs
    for (let from = BigInt(d.startBlock); from <= head; ) {
      const { result, to } = await readLogRange(range, from, head, (f, t) =>
        get(proxy.url, d.landRegistry, f, t),
      )
      logs.push(...result)
      widths.push(Number(to - from) + 1)
      from = to + 1n
    }
    return { logs, widths, proxy }
  }

  it('Alchemy: a range past its maximum, with the range that would work', async () => {
    const { logs, proxy } = await readAll({ range: providerRefusals.alchemy(16) }, 1000)
    expect(logs).toEqual(all)
    expect(proxy.counts.range).toBe(1) // told once, kept as the ceiling
    expect(proxy.answered.every((s) => s.blocks <= 16)).toBe(true)
  })

  it('Infura: too many results, with a range in the error’s data', async () => {
    const { logs, proxy } = await readAll({ answer: providerRefusals.infura(10) }, 1000)
    expect(logs).toEqual(all)
    expect(proxy.counts.answer).toBeGreaterThan(0)
    expect(proxy.answered.every((s) => s.blocks < 1000)).toBe(true)
  })

  it('QuickNode: a stated maximum, through ethers (whose errors wrap the node’s)', async () => {
    const network = Network.from(BigInt(anvil.chainId))
    const viaEthers = (url: string) => {
      const provider = new JsonRpcProvider(url, network, { staticNetwork: network })
      return async (_: string, address: string, from: bigint, to: bigint) =>
        provider.getLogs({ address, fromBlock: Number(from), toBlock: Number(to) })
    }
    const { logs, proxy } = await readAll({ range: providerRefusals.quicknode(10) }, 500, viaEthers)
    expect(logs.map((l) => (l as { transactionHash: string }).transactionHash)).toEqual(
      all.map((l) => (l as { transactionHash: string }).transactionHash),
    )
    expect(proxy.counts.range).toBe(1)
  })

  it('a terse refusal halves; a range answered too late halves too, and both grow back', async () => {
    const terse = await readAll({ range: providerRefusals.terse(10) }, 64)
    expect(terse.logs).toEqual(all)
    expect(terse.proxy.counts.range).toBeGreaterThan(1) // grows back and is told again
    const slow = await readAll({ delayMs: (span) => (span.blocks > 8 ? 1500 : 0) }, 64)
    expect(slow.logs).toEqual(all)
    expect(slow.proxy.counts.delayed).toBeGreaterThan(0)
    expect(slow.widths.every((blocks) => blocks <= 8)).toBe(true)
  }, 60_000)

  it('an error that is not about the range is thrown, not retried narrower', async () => {
    const proxy = await startRpcProxy(anvil.url, {
      range: () => ({ code: -32005, message: 'daily request count exceeded, request rate limited' }),
    })
    proxies.push(proxy)
    const range = new LogRange({ max: 64 })
    await expect(
      readLogRange(range, BigInt(d.startBlock), head, (f, t) => fetchLogs(proxy.url, d.landRegistry, f, t)),
    ).rejects.toThrow(/rate limited/)
    expect(proxy.counts.logs).toBe(1)
    expect(range.size).toBe(64)
  })
})
