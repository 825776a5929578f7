import type { FastifyInstance, FastifySchema } from 'fastify'
import type { AuthMode } from './signed-fetch-hook.js'

/** A route as registered: what tests need to send every kind of request to every route. */
export interface RouteEntry {
  method: string
  url: string
  schema?: FastifySchema | undefined
  bodyLimit?: number | undefined
  auth?: AuthMode | undefined
}

const tables = new WeakMap<object, RouteEntry[]>()

/** Records every route registered on the app from now on, its plugins' included. */
export function recordRoutes(app: FastifyInstance): void {
  const table: RouteEntry[] = []
  tables.set(app, table)
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      table.push({
        method,
        url: route.url,
        schema: route.schema,
        bodyLimit: route.bodyLimit,
        auth: route.config?.auth,
      })
    }
  })
}

/** Every route of an app made by createApp, in registration order. */
export const routesOf = (app: FastifyInstance): readonly RouteEntry[] => tables.get(app) ?? []
