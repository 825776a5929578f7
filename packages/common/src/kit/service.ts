import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorEnvelope } from '@genesis/wire'
import { Type } from '@sinclair/typebox'
import type { FastifyBaseLogger } from 'fastify'
import type { BaseConfig } from '../config.js'
import type { Sql } from '../db/database.js'

/**
 * What every service's `buildApp` takes. The service builds its collaborators (voucher signer, chain
 * reader, grid index, …) from `config` in its `createContext`; `context` replaces some of them, for tests.
 */
export interface AppOptions<Config extends BaseConfig, Context> {
  sql: Sql
  config: Config
  /** The process logger (`createLogger`); omitted, the app logs nothing (tests). */
  logger?: FastifyBaseLogger
  context?: Partial<Context>
}

/** A route file: one plugin per resource, handed the service's context. */
export type RoutePlugin<Context> = FastifyPluginAsyncTypebox<{ ctx: Context }>

/** The error answers a route documents, all rendered in the error envelope by the kit. */
export const errorResponses = (...statuses: number[]): Record<number, typeof ErrorEnvelope> =>
  Object.fromEntries(statuses.map((status) => [status, ErrorEnvelope]))

/** The 204 answer's schema. */
export const NoContent = Type.Null({ description: 'No content' })

/** A service as the kit names it (logs, metrics, OpenAPI): from its package.json, `@genesis/` dropped. */
export function servicePackage(packageRoot: string): { name: string; version: string; description: string } {
  const { name, version, description } = JSON.parse(
    readFileSync(join(packageRoot, 'package.json'), 'utf8'),
  ) as {
    name: string
    version: string
    description?: string
  }
  return { name: name.replace(/^@[^/]+\//, ''), version, description: description ?? '' }
}
