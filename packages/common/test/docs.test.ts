import { Type } from '@sinclair/typebox'
import { afterEach, describe, expect, it } from 'vitest'
import { type App, createApp, ok } from '../src/index.js'
import { useTestDatabase } from '../src/testing/vitest.js'

const db = useTestDatabase()
let app: App | undefined
afterEach(() => app?.close())

const Body = Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() })

async function serviceWith(routes: { signed: boolean }) {
  app = await createApp({ name: 'docs', version: '1', sql: db.sql })
  app.put('/things', { schema: { body: Body } }, async () => ok(null))
  if (routes.signed) app.post('/mine', { config: { auth: 'signed' } }, async () => ok(null))
  await app.ready()
  return app
}

const json = async (service: App, url: string) =>
  (await service.inject({ method: 'GET', url })).json() as {
    components?: { securitySchemes?: Record<string, unknown> }
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>
  }

const exampleId = (spec: Awaited<ReturnType<typeof json>>) =>
  (
    spec.paths['/things']!.put!.requestBody!.content['application/json']!.schema as {
      properties: { id: { example?: string } }
    }
  ).properties.id.example

describe('/docs and /openapi.json', () => {
  it('show no Authorize button for a service without a signed route', async () => {
    const service = await serviceWith({ signed: false })
    for (const url of ['/openapi.json', '/docs/json'])
      expect((await json(service, url)).components?.securitySchemes).toBeUndefined()
  })

  it('describe signed fetch when a route takes it', async () => {
    const service = await serviceWith({ signed: true })
    for (const url of ['/openapi.json', '/docs/json'])
      expect(Object.keys((await json(service, url)).components?.securitySchemes ?? {})).toEqual([
        'signedFetch',
      ])
  })

  it('give each reader of /docs fresh uuids to try, never the same fixed one', async () => {
    const service = await serviceWith({ signed: false })
    const first = exampleId(await json(service, '/docs/json'))
    const second = exampleId(await json(service, '/docs/json'))
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(second).not.toBe(first)
    // the contract itself stays as the schemas say
    expect(exampleId(await json(service, '/openapi.json'))).toBeUndefined()
  })
})
