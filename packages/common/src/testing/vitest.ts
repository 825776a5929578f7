import { afterAll, beforeAll, expect } from 'vitest'
import type { App } from '../kit/create-app.js'
import { createTestDatabase, type TestDatabase, type TestDatabaseOptions } from './database.js'
import { createIdentity, type Identity } from './identity.js'
import {
  type ClusterService,
  type ClusterServiceOptions,
  type ProxiedTestService,
  startProxiedTestService,
  startServiceOnPrivateCluster,
} from './outage.js'
import { startTestService, type TestService, type TestServiceOptions } from './service.js'
import { REPLAY_REFUSALS, replayRespelled, type SpentRequest } from './signature-spellings.js'

// Set-up for the tests of one file, or of the describe it is called in, that needs vitest's hooks (so apart
// from the rest of the testing kit, which the benches use outside vitest).

export interface StartOptions<T> {
  /** How it is stopped; by default its close(). */
  stop?: (started: T) => unknown
  /** The beforeAll's time limit, when it is not the configured hookTimeout. */
  timeoutMs?: number
}

/**
 * What `start` makes, started in a beforeAll and stopped in an afterAll (`options.stop`).
 * The object is returned at once, empty, and filled in when the beforeAll has run (the started value's own
 * properties copied onto it): a file names its set-up once, at its top, and its tests use it as they would
 * the started value.
 */
export function startBeforeAll<T extends object>(start: () => Promise<T>, options: StartOptions<T> = {}): T {
  const stop = options.stop ?? ((started: T) => (started as { close?: () => unknown }).close?.())
  const value = {} as T
  let started: T | undefined
  beforeAll(async () => {
    started = await start()
    Object.assign(value, started)
  }, options.timeoutMs)
  afterAll(async () => {
    if (started !== undefined) await stop(started)
  })
  return value
}

/** A fresh test database (`createTestDatabase`) for the file's tests, dropped after them. */
export const useTestDatabase = (options: TestDatabaseOptions = {}, timeoutMs?: number): TestDatabase =>
  startBeforeAll(() => createTestDatabase(options), { stop: (db) => db.drop(), timeoutMs })

/** A service's app on a fresh database (`startTestService`) for the file's tests, closed after them. */
export const useTestService = (options: TestServiceOptions): TestService =>
  startBeforeAll(() => startTestService(options))

/**
 * A service's app reaching its fresh database through a proxy the test cuts (`startProxiedTestService`,
 * given the options when the file's tests start), closed after them.
 */
export const useProxiedTestService = (
  options: () => TestServiceOptions | Promise<TestServiceOptions>,
  timeoutMs?: number,
): ProxiedTestService => startBeforeAll(async () => startProxiedTestService(await options()), { timeoutMs })

/** `n` values of type T, as a tuple (so that each of a destructured `n` is defined). */
export type Tuple<N extends number, T, Made extends T[] = []> = Made['length'] extends N
  ? Made
  : Tuple<N, T, [...Made, T]>

/** `n` users who sign requests (random wallets), made before the file's tests. */
export function useIdentities<N extends number>(n: N): Tuple<N, Identity> {
  const users = Array.from({ length: n }, () => ({}) as Identity) as Identity[] & Tuple<N, Identity>
  beforeAll(async () => {
    const made = await Promise.all(users.map(() => createIdentity()))
    for (const [i, identity] of made.entries()) Object.assign(users[i]!, identity)
  })
  return users
}

/**
 * Asserts that every re-spelling of a used signature (`replayRespelled`) is refused as the replay it is,
 * or as no signature at all, on each of two replicas.
 */
export async function expectRespelledReplaysRefused(replicas: [App, App], request: SpentRequest) {
  const answers = await replayRespelled(replicas, request)
  expect(answers, `${request.method} ${request.url}`).toEqual(REPLAY_REFUSALS)
}

/**
 * A service on a private cluster the test stops for real (`startServiceOnPrivateCluster`, given the
 * options when the file's tests start), closed after the tests. Its `service` is undefined when no cluster
 * can run here: each test then skips.
 */
export const useServiceOnPrivateCluster = (
  options: () => ClusterServiceOptions | Promise<ClusterServiceOptions>,
): { service: ClusterService | undefined } =>
  startBeforeAll(async () => ({ service: await startServiceOnPrivateCluster(await options()) }), {
    stop: ({ service }) => service?.close(),
    // a cluster of its own: initdb, a start and the migrations
    timeoutMs: 120_000,
  })
