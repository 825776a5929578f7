// Several providers of one chain (chain/providers.ts) on a real node: anvil behind real proxies that a test
// stops (a TCP proxy: refused, or silent), and behind a JSON-RPC proxy that reports an old head, as a
// lagging or badly load-balanced provider does. The pool must keep answering while one provider is away,
// and never hand out a head, or route a call, that a lagging provider decided.
import { type Anvil, chainTestsSkipReason, startAnvil } from '@genesis/contracts'
import { toQuantity } from 'ethers'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { Backoff, errorReason, Outage } from '../src/chain/backoff.js'
import { PoolProvider } from '../src/chain/pool-provider.js'
import { ProviderPool, ProvidersBehind, ProvidersUnavailable } from '../src/chain/providers.js'
import { providerLabel, rpcUrlListProblem, splitRpcUrls } from '../src/chain/rpc-urls.js'
import { baseConfigSchema, ConfigError, readConfig } from '../src/config.js'
import { type RpcProxy, startRpcProxy, startTcpProxy, type TcpProxy } from '../src/testing/index.js'

const skip = chainTestsSkipReason()

/** A logger that keeps its lines. */
function lines() {
  const kept: { level: string; msg: string; obj: object }[] = []
  return {
    kept,
    info: (obj: object, msg: string) => kept.push({ level: 'info', msg, obj }),
    warn: (obj: object, msg: string) => kept.push({ level: 'warn', msg, obj }),
  }
}

describe('an RPC setting', () => {
  it('takes one URL or a comma-separated list, and names a bad entry without printing it', () => {
    expect(splitRpcUrls(' http://a:1 ,https://b/v2/key ')).toEqual(['http://a:1', 'https://b/v2/key'])
    expect(rpcUrlListProblem('RPC_URL', 'http://a:1,https://b/v2/key')).toBeNull()
    const secret = 'hunter2'
    for (const [value, words] of [
      [`ws://user:${secret}@node:8546`, 'must be an http(s) URL, not ws'],
      [`https://user:${secret}@a,,http://b`, 'entry 2 of 3 is empty'],
      [`https://user:${secret}@a,not a url`, 'entry 2 of 2 is not a URL'],
      [`https://user:${secret}@a,https://user:${secret}@a`, 'lists the same provider twice'],
      [',', 'must be an http(s) URL or a comma-separated list'],
    ] as const) {
      const problem = rpcUrlListProblem('LAND_RPC_URL', value)
      expect(problem).toContain(words)
      expect(problem).toMatch(/^LAND_RPC_URL: /)
      expect(problem).not.toContain(secret)
    }
    expect(providerLabel(`https://user:${secret}@eth.example:8443/v3/${secret}?key=${secret}`, 1)).toBe(
      '#2 eth.example:8443',
    )
  })

  it('AUTH_RPC_URL of the base configuration takes a list and refuses anything else', () => {
    const schema = baseConfigSchema({ service: 'test', port: 1 })
    expect(readConfig(schema, { AUTH_RPC_URL: 'http://a:1, https://b' }).AUTH_RPC_URL).toBe(
      'http://a:1, https://b',
    )
    expect(() => readConfig(schema, { AUTH_RPC_URL: 'http://a:1, ws://b' })).toThrow(ConfigError)
  })
})

describe('the back-off every chain follower shares', () => {
  it('waits 1, 2, 4 … 128 s while attempts fail, and none after a success', () => {
    const backoff = new Backoff()
    const waits = Array.from({ length: 10 }, () => backoff.failed(0))
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 128, 128].map((s) => s * 1000))
    expect(backoff.due(127_999)).toBe(false)
    expect(backoff.due(128_000)).toBe(true)
    backoff.succeeded()
    expect(backoff.due(0)).toBe(true)
  })

  it('logs one line when it goes down, in one line, and one when it is back', () => {
    const log = lines()
    const outage = new Outage(log, 'reconciler: chain 80002')
    const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8545\n    at stack frame'), {
      code: 'ECONNREFUSED',
    })
    for (let tick = 0; tick < 50; tick++) outage.failed(error, {}, tick * 1000)
    outage.recovered({}, 60_000)
    outage.recovered({}, 61_000)
    expect(log.kept.map((l) => `${l.level} ${l.msg}`)).toEqual([
      'warn reconciler: chain 80002: down (connect ECONNREFUSED 127.0.0.1:8545); retrying with back-off up to 128 s',
      'info reconciler: chain 80002: back after 60 s',
    ])
    expect(errorReason(error)).not.toContain('stack frame')
  })
})

describe.skipIf(skip)('several providers of one chain, on a real node', () => {
  let anvil: Anvil
  const closing: Array<{ close(): Promise<void> }> = []
  const mine = (blocks: number) =>
    fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: [toQuantity(blocks)] }),
    })
  const nodeHead = async () => {
    const res = await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    })
    return BigInt(((await res.json()) as { result: string }).result)
  }
  const tcp = async (): Promise<TcpProxy> => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: anvil.port })
    closing.push(proxy)
    return proxy
  }
  const lagging = async (lag: { blocks: number }): Promise<RpcProxy> => {
    const proxy = await startRpcProxy(anvil.url, { head: (node) => node - BigInt(lag.blocks) })
    closing.push(proxy)
    return proxy
  }

  beforeAll(async () => {
    anvil = await startAnvil()
    await mine(100)
  })
  afterEach(async () => {
    for (const proxy of closing.splice(0)) await proxy.close()
  })
  afterAll(async () => {
    await anvil?.close()
  })

  it('keeps answering when one of two providers is stopped, and logs it once', async () => {
    const [a, b] = [await tcp(), await tcp()]
    const log = lines()
    const pool = new ProviderPool({
      urls: [a.via(anvil.url), b.via(anvil.url)],
      name: 'RPC_URL',
      logger: log,
    })
    expect(await pool.head()).toBe(await nodeHead())
    await a.cut('refuse')
    for (let i = 0; i < 5; i++) {
      await mine(1)
      const head = await pool.head()
      expect(head).toBe(await nodeHead())
      const block = await pool.call<{ number: string } | null>('eth_getBlockByNumber', [
        toQuantity(head),
        false,
      ])
      expect(BigInt(block!.number)).toBe(head)
    }
    expect(pool.status().map((p) => p.state)).toEqual(['down', 'up'])
    expect(log.kept.map((l) => l.msg)).toEqual([
      `RPC_URL: provider #1 127.0.0.1:${a.port} is down (connect ECONNREFUSED 127.0.0.1:${a.port}); using the others`,
    ])
    await a.restore()
    // asked again once its back-off is over (the first wait is 1 s), and used from the look after that
    // one: a provider that was down is not waited for while another answers
    await new Promise((resolve) => setTimeout(resolve, 1100))
    for (let look = 0; look < 10 && pool.status()[0]!.state !== 'up'; look++) await pool.head()
    expect(pool.status().map((p) => p.state)).toEqual(['up', 'up'])
    expect(log.kept.at(-1)!.msg).toBe(`RPC_URL: provider #1 127.0.0.1:${a.port} is back in use`)
  })

  it('fails over a call whose provider goes silent, within the per-request deadline', async () => {
    const [a, b] = [await tcp(), await tcp()]
    const pool = new ProviderPool({
      urls: [a.via(anvil.url), b.via(anvil.url)],
      name: 'RPC_URL',
      timeoutMs: 300,
    })
    await pool.head()
    await a.cut('blackhole')
    const block = await pool.call<{ hash: string }>('eth_getBlockByNumber', ['0x1', false])
    expect(block.hash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(pool.status()[0]!.state).toBe('down')
    await a.restore()
  })

  it('says when no provider answers, naming each without its URL', async () => {
    const a = await tcp()
    const pool = new ProviderPool({ urls: [`http://user:pw@127.0.0.1:${a.port}/key`], name: 'RPC_URL_80002' })
    await a.cut('refuse')
    const error = await pool.head().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProvidersUnavailable)
    expect((error as Error).message).toBe(
      `RPC_URL_80002: no provider answered (#1 127.0.0.1:${a.port}: connect ECONNREFUSED 127.0.0.1:${a.port})`,
    )
    await a.restore()
  })

  it('never acts on a provider behind the others: not its head, not its blocks, not once the fresh one is gone', async () => {
    const lag = { blocks: 50 }
    const behind = await lagging(lag)
    const fresh = await tcp()
    const log = lines()
    // the lagging provider first: the operator's order does not make a lagging provider the one used
    const pool = new ProviderPool({ urls: [behind.url, fresh.via(anvil.url)], name: 'RPC_URL', logger: log })
    const ethers = new PoolProvider(pool, anvil.chainId)
    const head = await nodeHead()
    expect(await pool.head()).toBe(head)
    expect(BigInt(await ethers.getBlockNumber())).toBe(head)
    // the head's block comes from a provider that has it (the lagging one answers null for it)
    expect((await ethers.getBlock(Number(head)))?.number).toBe(Number(head))
    expect(pool.status().map((p) => p.state)).toEqual(['lagging', 'up'])
    expect(log.kept.map((l) => l.msg)).toEqual([
      `RPC_URL: provider #1 ${new URL(behind.url).host} lags behind the others; not used`,
    ])

    // the fresh provider goes away: the lagging one's view is below what was seen, so the pool waits
    await fresh.cut('refuse')
    await expect(pool.head()).rejects.toBeInstanceOf(ProvidersBehind)
    await expect(ethers.getBlockNumber()).rejects.toThrow(/behind the chain seen/)
    await expect(pool.call('eth_getBlockByNumber', ['latest', false])).rejects.toBeInstanceOf(ProvidersBehind)

    // it catches up (within the tolerance of what was seen): used again, and the head never went back
    lag.blocks = 0
    expect(await pool.head()).toBe(await nodeHead())
    expect(pool.status()[0]!.state).toBe('up')
    ethers.destroy()
    await fresh.restore()
  })

  it('follows a single provider wherever its head goes (a reorganisation may shorten the chain)', async () => {
    const pool = new ProviderPool({ urls: [anvil.url], name: 'LAND_RPC_URL' })
    const snapshot = await (
      await fetch(anvil.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_snapshot', params: [] }),
      })
    ).json()
    const before = await pool.head()
    await mine(5)
    expect(await pool.head()).toBe(before + 5n)
    await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'evm_revert',
        params: [(snapshot as { result: string }).result],
      }),
    })
    expect(await pool.head()).toBe(before)
  })

  it('sees a node started afresh behind the same URLs as another chain, once', async () => {
    const node = await startAnvil()
    const [a, b] = [
      await startTcpProxy({ host: '127.0.0.1', port: node.port }),
      await startTcpProxy({ host: '127.0.0.1', port: node.port }),
    ]
    closing.push(a, b)
    const log = lines()
    const pool = new ProviderPool({ urls: [a.via(node.url), b.via(node.url)], name: 'RPC_URL', logger: log })
    try {
      const first = await pool.chain()
      await fetch(node.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x20'] }),
      })
      expect(await pool.head()).toBe(32n)
      await node.close()
      await expect(pool.head()).rejects.toBeInstanceOf(ProvidersUnavailable)
      // anvil's genesis holds the second it started in: a node started within the same second is the same
      // genesis (and so the same chain, a head gone back); the wait also covers the providers' back-off
      await new Promise((resolve) => setTimeout(resolve, 1100))
      const again = await startAnvil({ port: node.port })
      try {
        // a new chain whose head (0) is far below the old one's: adopted, not taken for a lagging provider
        expect(await pool.head()).toBe(0n)
        const second = await pool.chain()
        expect(second.chainId).toBe(first.chainId)
        expect(second.genesisHash).not.toBe(first.genesisHash)
        expect(log.kept.filter((l) => l.msg.includes('now serve another chain'))).toHaveLength(1)
      } finally {
        await again.close()
      }
    } finally {
      await node.close()
    }
  })
})
