import { randomUUID } from 'node:crypto'
import type { App } from '@genesis/common'
import {
  ACCEPTED_REQUEST_SPELLINGS,
  mutatingSignedRoutes,
  respellRequest,
  signedHeaders,
} from '@genesis/common/testing'
import { expectRespelledReplaysRefused } from '@genesis/common/testing/vitest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { contentHash, createCollection, uniqueName, useHarness, useIdentities } from './helpers.js'

/*
 * Defects: the used-signature store keyed on the signature's text, while verification accepts it in upper
 * case, with v as 0/1 and in its high-s form; then on the chain's payloads as sent, while @dcl/crypto
 * drops every \r of the delegation before checking the owner's signature. Re-casing one hex letter of a
 * signed PUT, or re-sending a DELETE with \r\n line endings in its delegation, made a new request: it
 * answered 204 again, on either replica, as often as wanted and (the body being unsigned) with any body.
 * A replay is now refused whatever the spelling, on every mutating signed route.
 */

const h = useHarness()
const [alice] = useIdentities(1)
let replica: App

beforeAll(async () => {
  // A second replica on the same database, as a deployment runs them.
  replica = await buildApp({ sql: h.db.sql, config: h.config })
})
afterAll(() => replica?.close())

const send = (app: App, method: string, url: string, headers: Record<string, string>, payload?: object) =>
  app.inject({ method: method as 'PUT', url, headers, ...(payload === undefined ? {} : { payload }) })

const expectEveryRespellingRefused = (
  method: string,
  url: string,
  headers: Record<string, string>,
  payload: () => object | undefined,
) => expectRespelledReplaysRefused([h.app, replica], { method, url, headers, payload })

describe('a replay re-spelled', () => {
  it('PUT /v1/collections/:id: a re-spelled replay changes nothing, whatever its body', async () => {
    const id = randomUUID()
    const url = `/v1/collections/${id}`
    const name = uniqueName()
    const headers = signedHeaders(alice, 'PUT', url)
    expect((await send(h.app, 'PUT', url, headers, { id, name })).statusCode).toBe(204)
    await expectEveryRespellingRefused('PUT', url, headers, () => ({ id, name: uniqueName() }))
    const [row] = await h.db.sql`select name from collections where id = ${id}`
    expect(row!.name).toBe(name)
  })

  it('PUT /v1/items/:id: a re-spelled replay changes nothing, whatever its body', async () => {
    const collectionId = await createCollection(h.app, alice)
    const id = randomUUID()
    const url = `/v1/items/${id}`
    const item = (name: string) => ({
      id,
      collection_id: collectionId,
      name,
      type: 'wearable',
      content_hash: contentHash(),
    })
    const name = uniqueName('Item')
    const headers = signedHeaders(alice, 'PUT', url)
    expect((await send(replica, 'PUT', url, headers, item(name))).statusCode).toBe(204)
    await expectEveryRespellingRefused('PUT', url, headers, () => item(uniqueName('Item')))
    const [row] = await h.db.sql`select name from items where id = ${id}`
    expect(row!.name).toBe(name)
  })

  it('is refused on every mutating signed route', async () => {
    const routes = mutatingSignedRoutes(h.app)
    // Every route the service has today, so that a new one is looked at here.
    expect(routes.map((route) => `${route.method} ${route.url}`).sort()).toEqual([
      'DELETE /v1/collections/:id',
      'DELETE /v1/items/:id',
      'POST /v1/collections/:id/curations',
      'POST /v1/collections/:id/lock',
      'POST /v1/collections/:id/publish',
      'POST /v1/collections/:id/tos',
      'POST /v1/curations/:id/approve',
      'POST /v1/curations/:id/reject',
      'PUT /v1/collections/:id',
      'PUT /v1/collections/:id/forum',
      'PUT /v1/items/:id',
    ])
    for (const route of routes) {
      const collectionId = await createCollection(h.app, alice)
      const url = route.url.replace(
        ':id',
        route.url.startsWith('/v1/collections') ? collectionId : randomUUID(),
      )
      const headers = signedHeaders(alice, route.method, url)
      const body = () => (route.method === 'DELETE' ? undefined : {})
      // Whatever the route answers (a refusal of the empty body included), the signature is spent.
      const first = await send(h.app, route.method, url, headers, body())
      expect(first.statusCode, `${route.method} ${url}`).not.toBe(401)
      await expectEveryRespellingRefused(route.method, url, headers, body)
    }
  })

  it('lets one PUT through when the spellings race on two replicas', async () => {
    const id = randomUUID()
    const url = `/v1/collections/${id}`
    const headers = signedHeaders(alice, 'PUT', url)
    const attempts = [
      { url, headers },
      ...ACCEPTED_REQUEST_SPELLINGS.map((spelling) => respellRequest({ url, headers }, spelling)),
    ]
    const names = attempts.map(() => uniqueName())
    const answers = await Promise.all(
      attempts.map((a, i) => send(i % 2 ? replica : h.app, 'PUT', a.url, a.headers, { id, name: names[i] })),
    )
    expect(answers.map((a) => a.statusCode).sort()).toEqual([204, ...attempts.slice(1).map(() => 401)])
    const winner = answers.findIndex((a) => a.statusCode === 204)
    const [row] = await h.db.sql`select name from collections where id = ${id}`
    expect(row!.name).toBe(names[winner])
  })
})
