// RPC_URL as a list of providers, and the chain it serves remembered across starts, on real anvil nodes
// behind real proxies: one provider stopped (a TCP proxy cut), one stalled (a JSON-RPC proxy answering as a
// node stuck at an old block), and a node started afresh behind the same URL.
import type { ChainIdentity } from '@genesis/common'
import { ProviderPool } from '@genesis/common'
import { createTestDatabase, startRpcProxy, startTcpProxy, type TestDatabase } from '@genesis/common/testing'
import { startBeforeAll } from '@genesis/common/testing/vitest'
import {
  chainTestsSkipReason,
  DEPLOYER_ACCOUNT,
  deploy,
  FUNDER_ACCOUNT,
  startAnvil,
  startChainWithContracts,
} from '@genesis/contracts'
import { Wallet } from 'ethers'
import { afterAll, describe, expect, it } from 'vitest'
import { checkChainAtStart } from '../../src/chain/chain-identity.js'
import { createChainReader } from '../../src/chain/chain-reader.js'
import { migrationsDir } from '../../src/paths.js'

const skip = chainTestsSkipReason()

describe.skipIf(skip)('collections over several providers (anvil)', () => {
  const chain = startBeforeAll(() =>
    startChainWithContracts((devWallet) => ({
      voucherSigner: Wallet.createRandom().address,
      committee: devWallet(FUNDER_ACCOUNT).address,
    })),
  )

  it('answers through the other provider when one is stopped', async () => {
    const [a, b] = [
      await startTcpProxy({ host: '127.0.0.1', port: chain.anvil.port }),
      await startTcpProxy({ host: '127.0.0.1', port: chain.anvil.port }),
    ]
    const reader = createChainReader({
      rpcUrl: `${a.via(chain.anvil.url)}, ${b.via(chain.anvil.url)}`,
      chainId: chain.anvil.chainId,
      timeoutMs: 2000,
      registryAddress: chain.d.thirdPartyRegistry,
    })
    try {
      expect(await reader.hasCode(chain.d.thirdPartyRegistry)).toBe(true)
      await a.cut('refuse')
      expect(await reader.hasCode(chain.d.thirdPartyRegistry)).toBe(true)
      expect(
        await reader.isThirdPartyManager(
          'urn:decentraland:amoy:collections-thirdparty:none',
          Wallet.createRandom().address,
        ),
      ).toBe(false)
    } finally {
      reader.destroy()
      await a.close()
      await b.close()
    }
  })

  it('never reads a stalled provider: a contract deployed since is not "missing", the node is unavailable', async () => {
    let stalled: bigint | null = BigInt(await chain.provider.getBlockNumber())
    const lagging = await startRpcProxy(chain.anvil.url, { head: (node) => stalled ?? node })
    const fresh = await startTcpProxy({ host: '127.0.0.1', port: chain.anvil.port })
    const reader = createChainReader({
      rpcUrl: `${lagging.url},${fresh.via(chain.anvil.url)}`,
      chainId: chain.anvil.chainId,
      timeoutMs: 2000,
      registryAddress: chain.d.thirdPartyRegistry,
    })
    const alone = createChainReader({
      rpcUrl: lagging.url,
      chainId: chain.anvil.chainId,
      timeoutMs: 2000,
      registryAddress: chain.d.thirdPartyRegistry,
    })
    try {
      const contract = await deploy('Collection', chain.devWallet(DEPLOYER_ACCOUNT))
      const address = await contract.getAddress()
      for (let i = 0; i < 3; i++) await chain.provider.send('evm_mine', [])
      expect(await reader.hasCode(address)).toBe(true)
      await fresh.cut('refuse')
      // the control: the stalled provider alone says there is no contract there
      expect(await alone.hasCode(address)).toBe(false)
      // with the fresh one gone the pool does not take its word: the node is unavailable (503), not "no code"
      const refused = (await reader.hasCode(address).catch((error: unknown) => error)) as Error & {
        code: string
      }
      expect(refused.code).toBe('rpc_unavailable')
      expect(refused.message).toBe(
        'The blockchain node could not answer (eth_getCode): the providers are behind the chain',
      )
      stalled = null
      expect(await reader.hasCode(address)).toBe(true)
    } finally {
      reader.destroy()
      alone.destroy()
      await lagging.close()
      await fresh.close()
    }
  })
})

describe.skipIf(skip)('the chain RPC_URL serves, remembered across starts (anvil)', () => {
  let db: TestDatabase
  const nodes: Array<{ close(): Promise<void> }> = []
  afterAll(async () => {
    await db?.drop()
    for (const node of nodes) await node.close()
  })
  const served = async (): Promise<{ chain: () => Promise<ChainIdentity> }> => {
    const node = await startAnvil()
    nodes.push(node)
    const pool = new ProviderPool({ urls: [node.url], name: 'RPC_URL' })
    return { chain: () => pool.chain() }
  }
  const lines = () => {
    const kept: string[] = []
    return {
      kept,
      info: (_: object, msg: string) => kept.push(msg),
      warn: (_: object, msg: string) => kept.push(msg),
    }
  }

  it('records the first chain, says when a development chain is another one, and refuses another one in production', async () => {
    db = await createTestDatabase({ migrationsDir })
    const first = await served()
    const log = lines()
    const development = { NODE_ENV: undefined }
    expect(await checkChainAtStart(db.sql, development, first.chain, log)).toBeNull()
    expect(await checkChainAtStart(db.sql, development, first.chain, log)).toBeNull()
    expect(log.kept).toEqual([])
    const recorded = await db.sql`select chain_id, genesis_hash from chain_identity`
    expect(recorded).toEqual([{ chain_id: '80002', genesis_hash: (await first.chain()).genesisHash }])

    // a node started afresh: another genesis (anvil's holds the second it started in)
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const second = await served()
    expect(await checkChainAtStart(db.sql, development, second.chain, log)).toBeNull()
    expect(log.kept).toHaveLength(1)
    expect(log.kept[0]).toMatch(
      /^RPC_URL is another chain than the one this database followed \(chain 80002, genesis 0x/,
    )
    expect((await db.sql`select genesis_hash from chain_identity`).map((r) => r.genesis_hash)).toEqual([
      (await second.chain()).genesisHash,
    ])

    const refusal = await checkChainAtStart(db.sql, { NODE_ENV: 'production' }, first.chain, log)
    expect(refusal?.refused).toMatch(
      /^collections: RPC_URL serves another chain \(chain 80002, genesis 0x[0-9a-f]{8}…\) than the one this database followed/,
    )
    // nothing recorded by a refusal
    expect((await db.sql`select genesis_hash from chain_identity`).map((r) => r.genesis_hash)).toEqual([
      (await second.chain()).genesisHash,
    ])
  })
})
