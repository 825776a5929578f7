import type { FastifyInstance } from 'fastify'

/** Fastify's keys (symbols, not exported) of a scope's Request and Reply classes. */
const CLASS_KEYS = ['fastify.Request', 'fastify.Reply']

function classKeys(app: FastifyInstance): symbol[] {
  const keys = CLASS_KEYS.map((description) =>
    Object.getOwnPropertySymbols(app).find((key) => key.description === description),
  )
  if (keys.some((key) => key === undefined))
    throw new Error(`this Fastify keeps no ${CLASS_KEYS.join(' and ')} on the app: the kit needs updating`)
  return keys as symbol[]
}

/** The prototypes of the app's Request and Reply classes (with `oneRequestClass`, every scope's). */
export function requestPrototypes(app: FastifyInstance): { request: object; reply: object } {
  const classes = app as unknown as Record<symbol, { prototype: object }>
  const [request, reply] = classKeys(app).map((key) => (classes[key] as { prototype: object }).prototype)
  return { request: request as object, reply: reply as object }
}

/**
 * Every plugin scope answers with the root's Request and Reply classes. Fastify gives each encapsulated
 * plugin classes of its own, so requests of routes in different plugins are objects of different shapes;
 * once more than four such shapes have passed through code every request runs (Fastify's request
 * handling, the kit's hooks), V8 gives up its inline caches there for a global lookup on every property
 * access: a service that has answered a few routes of different plugins then spends more on every request
 * than it did on the first ones (PERFORMANCE.md). A decoration of the request or the reply made in a plugin
 * therefore applies to every request: its name must be unique in the app, which Fastify checks.
 */
export function oneRequestClass(app: FastifyInstance): void {
  const keys = classKeys(app)
  app.addHook('onRegister', (scope) => {
    // The scope's own classes deleted, it finds its parent's (the root's) through its prototype.
    for (const key of keys) delete (scope as unknown as Record<symbol, unknown>)[key as symbol]
  })
}
