import { randomBytes } from 'node:crypto'
import type { App } from '@genesis/common'
import { type Identity, signedHeaders, startTestService, type TestDatabase } from '@genesis/common/testing'
import { buildApp } from '../../src/app.js'
import type { DispenserChain } from '../../src/chain/dispenser.js'
import { loadConfig } from '../../src/config.js'
import { CLAIMS_DB_SETTINGS } from '../../src/db/settings.js'
import { migrationsDir } from '../../src/paths.js'

export const CHAIN_ADMIN_TOKEN = 'chain-test-admin-token-0123456789'

export interface RunningClaims {
  url: string
  app: App
  db: TestDatabase
  close(): Promise<void>
}

/**
 * The claims service for the chain tests, listening on a loopback port over real HTTP, with its own fresh
 * database. The one place these tests build and start the app.
 */
export async function startClaimsService(options: {
  signerPrivateKey: string
  /** The watched chains, shared with the test's reconcilers; none: every chain unwatched. */
  chains?: Map<string, DispenserChain>
  claimTtlS?: number
}): Promise<RunningClaims> {
  const config = loadConfig({
    CLAIMS_SIGNER_PRIVATE_KEY: options.signerPrivateKey,
    CLAIMS_ADMIN_TOKEN: CHAIN_ADMIN_TOKEN,
    CLAIM_TTL_S: String(options.claimTtlS ?? 3600),
  })
  const chains = options.chains ?? new Map()
  const service = await startTestService({
    migrationsDir,
    settings: CLAIMS_DB_SETTINGS,
    build: (sql) => buildApp({ sql, config, context: { chains } }),
  })
  const url = await service.app.listen({ port: 0, host: '127.0.0.1' })
  return { ...service, url }
}

/** An answer in the service's envelope: `data` on success, `code` and `error` on a refusal. */
export interface HttpAnswer<T> {
  status: number
  body: { ok: boolean; data: T; code?: string; error?: string }
}

/** A really signed request over HTTP (signed fetch headers from the identity; a nonce against replays). */
export async function signedRequest<T>(
  baseUrl: string,
  who: Identity | 'admin',
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  body?: unknown,
): Promise<HttpAnswer<T>> {
  const headers: Record<string, string> =
    who === 'admin'
      ? { authorization: `Bearer ${CHAIN_ADMIN_TOKEN}` }
      : signedHeaders(who, method, path, { metadata: { nonce: randomBytes(8).toString('hex') } })
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json()) as HttpAnswer<T>['body'] }
}
