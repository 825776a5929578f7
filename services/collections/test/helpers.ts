import { randomBytes, randomUUID } from 'node:crypto'
import type { App, Sql } from '@genesis/common'
import {
  createIdentity,
  type Identity,
  signedInject,
  startTestService,
  type TestService,
  lockWaiters as waitForLockWaiters,
} from '@genesis/common/testing'
import { startBeforeAll, useIdentities } from '@genesis/common/testing/vitest'
import type { LightMyRequestResponse } from 'fastify'
import { buildApp } from '../src/app.js'
import { type Config, loadConfig } from '../src/config.js'
import { type Context, registryDomainOf } from '../src/context.js'
import { completeKeys } from '../src/db/keys.js'
import { COLLECTIONS_DB_SETTINGS } from '../src/db/settings.js'
import { keyFunctions } from '../src/keys-ready.js'
import { migrationsDir } from '../src/paths.js'

export interface Harness extends TestService {
  config: Config
  committee: Identity
}

/** The service on a fresh database, configured as from the environment, with one committee member. */
export async function setup(
  options: { env?: Record<string, string>; chain?: Context['chain'] } = {},
): Promise<Harness> {
  const committee = await createIdentity()
  const config = loadConfig({ COMMITTEE_ADDRESSES: committee.address, ...options.env })
  const service = await startTestService({
    migrationsDir,
    settings: COLLECTIONS_DB_SETTINGS,
    build: async (sql) => {
      await keysReady(sql, config)
      return buildApp({
        sql,
        config,
        ...(options.chain === undefined ? {} : { context: { chain: options.chain } }),
      })
    },
  })
  return { ...service, config, committee }
}

const silent = { info: () => {}, warn: () => {} }

/** What server.ts does between the migrations and the app: the service-computed keys and their indexes. */
export const keysReady = (sql: Sql, config: Config, log = silent) =>
  completeKeys(sql, { ...keyFunctions(registryDomainOf(config)), log })

/**
 * A really signed request. Each carries a random nonce in its metadata: signatures are deterministic, so
 * two identical requests signed in the same millisecond would otherwise be refused as a replay.
 */
export function call(
  app: App,
  who: Identity,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  url: string,
  payload?: unknown,
): Promise<LightMyRequestResponse> {
  return signedInject(app, who, {
    method,
    url,
    metadata: { nonce: randomBytes(8).toString('hex') },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  })
}

/** A valid CIDv1 (base32, raw sha-256 shape) that is unique per call. */
export function contentHash(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567'
  const bytes = randomBytes(52)
  return `bafkrei${Array.from(bytes, (b) => alphabet[b % 32]).join('')}`
}

export const uniqueName = (prefix = 'Collection') => `${prefix} ${randomBytes(5).toString('hex')}`

export async function createCollection(
  app: App,
  owner: Identity,
  fields: { name?: string; urn?: string | null; managers?: string[]; minters?: string[] } = {},
): Promise<string> {
  const id = randomUUID()
  const res = await call(app, owner, 'PUT', `/v1/collections/${id}`, {
    id,
    name: fields.name ?? uniqueName(),
    ...fields,
  })
  if (res.statusCode !== 204) throw new Error(`create collection: ${res.statusCode} ${res.body}`)
  return id
}

export async function createItem(
  app: App,
  owner: Identity,
  collectionId: string,
  hash = contentHash(),
): Promise<string> {
  const id = randomUUID()
  const res = await call(app, owner, 'PUT', `/v1/items/${id}`, {
    id,
    collection_id: collectionId,
    name: uniqueName('Item'),
    type: 'wearable',
    content_hash: hash,
  })
  if (res.statusCode !== 204) throw new Error(`create item: ${res.statusCode} ${res.body}`)
  return id
}

export async function acceptTos(app: App, who: Identity, collectionId: string) {
  const res = await call(app, who, 'POST', `/v1/collections/${collectionId}/tos`, {
    email: 'creator@example.com',
    event: 'publish_collection_tos',
    hashes: [contentHash()],
  })
  if (res.statusCode !== 204) throw new Error(`tos: ${res.statusCode} ${res.body}`)
}

export interface ErrorBody {
  ok: false
  error: string
  code: string
  data?: { errors?: { path: string; message: string }[] } & Record<string, unknown>
}

/** Asserts the error envelope and returns it. */
export function refusal(res: LightMyRequestResponse, status: number, code?: string): ErrorBody {
  const body = res.json() as ErrorBody
  if (res.statusCode !== status || body.ok !== false || (code !== undefined && body.code !== code)) {
    throw new Error(`expected ${status} ${code ?? ''}, got ${res.statusCode} ${res.body}`)
  }
  return body
}

/** Waits until `n` requests of the harness's database wait on a lock (see common/testing's lockWaiters). */
export const lockWaiters = (h: Harness, n: number) => waitForLockWaiters(h.db.sql, n)

export { createIdentity, type Identity, randomUUID }

type SetupOptions = Parameters<typeof setup>[0]

/**
 * The harness (`setup`) for the tests of the file, or of the describe it is called in: closed after them.
 * Options that depend on another set-up of the file are given as a function, called when it has run.
 */
export const useHarness = (options: SetupOptions | (() => SetupOptions) = {}): Harness =>
  startBeforeAll(() => setup(typeof options === 'function' ? options() : options))

export { useIdentities }
