import { Type } from '@sinclair/typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type App, createApp, ok } from '../src/index.js'
import { boundsFirst } from '../src/kit/validation.js'
import { useKitDatabase } from './set-up.js'

const db = useKitDatabase()
let app: App

const Order = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    count: Type.Integer({ minimum: 1 }),
    email: Type.String({ format: 'email' }),
    lines: Type.Array(
      Type.Object({ sku: Type.String({ pattern: '^[A-Z]{3}$' }), qty: Type.Integer({ minimum: 1 }) }),
      { maxItems: 3 },
    ),
    tags: Type.Optional(Type.Array(Type.String(), { maxItems: 2, uniqueItems: true })),
  },
  { additionalProperties: false },
)

beforeAll(async () => {
  app = await createApp({ name: 'demo', version: '1', sql: db.sql })
  app.post('/orders', { schema: { body: Order } }, async (request) => ok(request.body))
})
afterAll(async () => {
  await app?.close()
})

interface Refusal {
  ok: false
  code: string
  error: string
  data: { errors: { path: string; message: string }[]; more?: number }
}

async function post(body: unknown) {
  const response = await app.inject({
    method: 'POST',
    url: '/orders',
    payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  })
  return { status: response.statusCode, body: response.json() as Refusal, size: response.body.length }
}

const good = { name: 'n', count: 1, email: 'a@b.co', lines: [{ sku: 'ABC', qty: 1 }] }

describe('a refused body lists every problem', () => {
  it('accepts a good body', async () => {
    expect((await post(good)).status).toBe(200)
  })

  it('names each bad field with its reason, in the message and in data.errors', async () => {
    const { status, body } = await post({
      name: '',
      count: 0,
      email: 'nope',
      lines: [{ sku: 'abc', qty: 1 }, { qty: 0 }],
      admin: true,
    })
    expect(status).toBe(400)
    expect(body).toMatchObject({ ok: false, code: 'bad_request' })
    const problems = Object.fromEntries(body.data.errors.map((e) => [e.path, e.message]))
    expect(Object.keys(problems).sort()).toEqual(
      [
        'body.admin',
        'body.count',
        'body.email',
        'body.lines.0.sku',
        'body.lines.1.qty',
        'body.lines.1.sku',
        'body.name',
      ].sort(),
    )
    expect(problems['body.admin']).toBe('is not an accepted field')
    expect(problems['body.lines.1.sku']).toBe('is required')
    expect(problems['body.count']).toMatch(/must be >= 1, got 0/)
    expect(problems['body.email']).toMatch(/must match format "email"/)
    expect(body.error).toMatch(/body\.name .*; body\.count .*;/)
    expect(body.error).toMatch(/and 2 more$/)
  })

  it('an oversized array is one problem beside the others, however many elements it holds', async () => {
    const lines = Array.from({ length: 300_000 }, () => 1)
    const { status, body, size } = await post({ ...good, count: 'many', lines })
    expect(status).toBe(400)
    expect(body.data.errors.map((e) => e.path).sort()).toEqual(['body.count', 'body.lines'])
    expect(body.error).toMatch(/body\.lines must NOT have more than 3 items/)
    expect(size).toBeLessThan(1024)
  })

  it('checks the elements of an array within its bound', async () => {
    const { body } = await post({ ...good, tags: ['a', 'a'] })
    expect(body.data.errors).toEqual([
      { path: 'body.tags', message: expect.stringMatching(/duplicate items/) },
    ])
  })

  it('caps the list of a body with many problems and counts the rest', async () => {
    const lines = [{}, {}, {}]
    const { body } = await post({ name: 1, count: 'x', email: 2, lines, extra1: 1, extra2: 2, extra3: 3 })
    const listed = body.data.errors.length
    expect(listed + (body.data.more ?? 0)).toBe(3 + 6 + 3)
  })
})

describe('boundsFirst', () => {
  it('puts the element checks of a bounded array behind its bound, and leaves the rest as it was', () => {
    const schema = { type: 'array', maxItems: 2, items: { type: 'string' }, minItems: 1 }
    expect(boundsFirst(schema)).toEqual({
      type: 'array',
      maxItems: 2,
      minItems: 1,
      if: { maxItems: 2 },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then
      then: { items: { type: 'string' } },
    })
    expect(boundsFirst({ type: 'array', items: { type: 'string' } })).toEqual({
      type: 'array',
      items: { type: 'string' },
    })
  })
})
