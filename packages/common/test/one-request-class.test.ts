import type { FastifyReply, FastifyRequest } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type App, createApp, ok } from '../src/index.js'
import { useKitDatabase } from './set-up.js'

declare module 'fastify' {
  interface FastifyRequest {
    tag: string | null
  }
}

const db = useKitDatabase()
let app: App
const seen: Array<{ route: string; request: FastifyRequest; reply: FastifyReply }> = []

beforeAll(async () => {
  app = await createApp({ name: 'scopes', version: '1', sql: db.sql })
  const remember = (route: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    seen.push({ route, request, reply })
    return ok({ tag: request.tag ?? null })
  }
  app.get('/root', remember('root'))
  // Routes in plugins of their own, a prefixed one and one nested with a decoration of its own, as a
  // service registers its routes.
  await app.register(
    async (scope) => {
      scope.get('/a', remember('a'))
      await scope.register(async (nested) => {
        nested.decorateRequest('tag', null)
        nested.addHook('onRequest', async (request) => {
          request.tag = 'nested'
        })
        nested.get('/b', remember('b'))
      })
    },
    { prefix: '/v1' },
  )
  await app.register(async (sibling) => {
    sibling.get('/c', remember('c'))
  })
  await app.ready()
})

afterAll(async () => {
  await app?.close()
})

describe('one Request and one Reply class for every plugin scope', () => {
  it('answers routes of every scope with requests and replies of one class', async () => {
    for (const url of ['/root', '/v1/a', '/v1/b', '/c']) {
      const answer = await app.inject({ url })
      expect(answer.statusCode, url).toBe(200)
    }
    expect(seen.map(({ route }) => route)).toEqual(['root', 'a', 'b', 'c'])
    // One constructor each, so V8 gives every request (and every reply) one hidden class: code every
    // request runs keeps its inline caches however many scopes' routes have been answered.
    expect(new Set(seen.map(({ request }) => request.constructor)).size).toBe(1)
    expect(new Set(seen.map(({ reply }) => reply.constructor)).size).toBe(1)
  })

  it("keeps a plugin's decoration and hooks working: the decoration is the app's", async () => {
    expect((await app.inject({ url: '/v1/b' })).json()).toEqual({ ok: true, data: { tag: 'nested' } })
    // The hook stays the nested scope's; the decorated field is on every request, at its initial value.
    expect((await app.inject({ url: '/c' })).json()).toEqual({ ok: true, data: { tag: null } })
  })
})
