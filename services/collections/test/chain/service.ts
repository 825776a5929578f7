import { randomBytes } from 'node:crypto'
import type { App } from '@genesis/common'
import { type Identity, signedHeaders, startTestService, type TestDatabase } from '@genesis/common/testing'
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
