import { randomBytes } from 'node:crypto'
import type { App } from '@genesis/common'
import {
  createIdentity,
  type Identity,
  signedHeaders,
  startTestService,
  type TestDatabase,
} from '@genesis/common/testing'
import { startBeforeAll } from '@genesis/common/testing/vitest'
import { type ChainWithContracts, startChainWithContracts } from '@genesis/contracts'
import { Wallet } from 'ethers'
import { buildApp } from '../../src/app.js'
import { type Config, loadConfig } from '../../src/config.js'
import { COLLECTIONS_DB_SETTINGS } from '../../src/db/settings.js'
import { migrationsDir } from '../../src/paths.js'
import { keysReady } from '../helpers.js'

export interface RunningCollections {
  url: string
  app: App
  db: TestDatabase
  config: Config
  close(): Promise<void>
}

/**
 * The collections service for the chain tests, configured from `env` as server.ts is (RPC_URL, factory, init
 * code hash, registry…), listening on a loopback port over real HTTP with a fresh database. The one place these
 * tests build and start the app.
 */
export async function startCollectionsService(env: Record<string, string>): Promise<RunningCollections> {
  const config = loadConfig(env)
  const service = await startTestService({
    migrationsDir,
    settings: COLLECTIONS_DB_SETTINGS,
    build: async (sql) => {
      await keysReady(sql, config)
      return buildApp({ sql, config })
    },
  })
  const url = await service.app.listen({ port: 0, host: '127.0.0.1' })
  return { ...service, url, config }
}

/** An answer in the service's envelope (`data` on success, `code` and `error` on a refusal; none on 204). */
export interface HttpAnswer<T> {
  status: number
  body: { ok: boolean; data: T; code?: string; error?: string }
}

/** A really signed request over HTTP (signed fetch headers from the identity; a nonce against replays). */
export async function signedRequest<T = unknown>(
  baseUrl: string,
  who: Identity,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<HttpAnswer<T>> {
  const headers = signedHeaders(who, method, path, { metadata: { nonce: randomBytes(8).toString('hex') } })
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as HttpAnswer<T>['body'] }
}

/** The service's settings for a node with the contracts: RPC_URL, the factory and the registry on it. */
export const chainEnv = ({ anvil, d }: ChainWithContracts): Record<string, string> => ({
  RPC_URL: anvil.url,
  RPC_TIMEOUT_MS: '2000',
  COLLECTION_FACTORY_ADDRESS: d.collectionFactory,
  COLLECTION_INIT_CODE_HASH: d.collectionInitCodeHash,
  THIRD_PARTY_REGISTRY_ADDRESS: d.thirdPartyRegistry,
  THIRD_PARTY_REGISTRY_NAME: d.thirdPartyRegistryName,
  THIRD_PARTY_REGISTRY_CHAIN_ID: String(anvil.chainId),
})

/** Anvil's development account of the committee (the factory's and the registry's). */
export const COMMITTEE_ACCOUNT = 2

/** A node with the contracts, and the service over HTTP configured for it (`chainEnv`). */
export interface CollectionsOnChain extends ChainWithContracts {
  svc: RunningCollections
  /** The committee, signing with development account COMMITTEE_ACCOUNT. */
  committee: Identity
  /** A user whose new wallet is funded with 1 ETH. */
  fundedUser(): Promise<Identity>
  /** `n` of them, one after the other (the funder's transactions take its nonces in turn). */
  fundedUsers(n: number): Promise<Identity[]>
  /** A really signed request to the service. */
  request<T = unknown>(
    who: Identity,
    method: 'GET' | 'PUT' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<HttpAnswer<T>>
}

export async function startCollectionsOnChain(): Promise<CollectionsOnChain> {
  const chain = await startChainWithContracts((devWallet) => ({
    voucherSigner: Wallet.createRandom().address,
    committee: devWallet(COMMITTEE_ACCOUNT).address,
  }))
  try {
    const committee = await createIdentity(chain.devWallet(COMMITTEE_ACCOUNT))
    const svc = await startCollectionsService({ COMMITTEE_ADDRESSES: committee.address, ...chainEnv(chain) })
    const fundedUser = async () => createIdentity(await chain.fundedWallet())
    return {
      ...chain,
      svc,
      committee,
      fundedUser,
      async fundedUsers(n) {
        const users: Identity[] = []
        for (let i = 0; i < n; i++) users.push(await fundedUser())
        return users
      },
      request: (who, method, path, body) => signedRequest(svc.url, who, method, path, body),
      close: async () => {
        await svc.close()
        await chain.close()
      },
    }
  } catch (error) {
    await chain.close()
    throw error
  }
}

/** `startCollectionsOnChain` for the tests of the describe it is called in, closed after them. */
export const useCollectionsOnChain = () => startBeforeAll(startCollectionsOnChain)
