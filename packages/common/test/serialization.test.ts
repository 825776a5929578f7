import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type App, createApp, ok } from '../src/index.js'
import { serializable } from '../src/kit/serialization.js'
import { useKitDatabase } from './set-up.js'

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
const Uuid = Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' })
const Status = Type.Union([Type.Literal('open'), Type.Literal('closed')])

const Row = Type.Object({
  id: Uuid,
  campaign: Nullable(Type.String()),
  claim: Nullable(Uuid),
  count: Nullable(Type.Integer()),
  status: Status,
  previous: Nullable(Status),
  owner: Nullable(Type.Object({ address: Type.String() })),
  either: Type.Union([Type.String(), Type.Number()]),
})

describe('serializable', () => {
  it('writes a type-or-null as the type, nullable, and a union of literals as their type', () => {
    expect(serializable(JSON.parse(JSON.stringify(Row)))).toMatchObject({
      properties: {
        campaign: { type: 'string', nullable: true },
        claim: { type: 'string', pattern: Uuid.pattern, nullable: true },
        count: { type: 'integer', nullable: true },
        status: { type: 'string', enum: ['open', 'closed'] },
        previous: { type: 'string', enum: ['open', 'closed'], nullable: true },
        owner: { type: 'object', nullable: true, properties: { address: { type: 'string' } } },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
      },
    })
  })

  it('leaves the route schema as written (the OpenAPI document shows it) and every other union alone', () => {
    const schema = JSON.parse(JSON.stringify(Row))
    const before = JSON.stringify(schema)
    serializable(schema)
    expect(JSON.stringify(schema)).toBe(before)
    const twoNulls = { anyOf: [{ type: 'string' }, { type: 'null' }, { type: 'null' }] }
    expect(serializable(twoNulls)).toEqual(twoNulls)
    const mixedLiterals = {
      anyOf: [
        { type: 'string', const: 'a' },
        { type: 'number', const: 1 },
      ],
    }
    expect(serializable(mixedLiterals)).toEqual(mixedLiterals)
  })
})

describe('answers with nullable fields and literal unions', () => {
  const db = useKitDatabase()
  let app: App
  const rows: Static<typeof Row>[] = [
    {
      id: '0d3c1f1e-6a2b-4c1e-9d3e-1a2b3c4d5e6f',
      campaign: 'launch "week"',
      claim: '1d3c1f1e-6a2b-4c1e-9d3e-1a2b3c4d5e6f',
      count: 3,
      status: 'open',
      previous: 'closed',
      owner: { address: '0xabc' },
      either: 7,
    },
    {
      id: '2d3c1f1e-6a2b-4c1e-9d3e-1a2b3c4d5e6f',
      campaign: null,
      claim: null,
      count: null,
      status: 'closed',
      previous: null,
      owner: null,
      either: 'seven',
    },
  ]

  beforeAll(async () => {
    app = await createApp({ name: 'demo', version: '1.0.0', sql: db.sql })
    app.get(
      '/rows',
      { schema: { response: { 200: Type.Object({ ok: Type.Boolean(), data: Type.Array(Row) }) } } },
      async () => ok(rows),
    )
    // A value its schema's first member refuses: fast-json-stringify validated each value against the
    // members of `anyOf` to pick one, and refused it (500); as a nullable string it is written as sent.
    app.get(
      '/loose',
      { schema: { response: { 200: Type.Object({ claim: Nullable(Uuid) }) } } },
      async () => ({ claim: 'not-a-uuid' }),
    )
    await app.ready()
  })
  afterAll(() => app.close())

  it('writes what JSON.stringify writes, values and nulls alike', async () => {
    const response = await app.inject({ method: 'GET', url: '/rows' })
    expect(response.statusCode).toBe(200)
    expect(response.body).toBe(JSON.stringify(ok(rows)))
  })

  it('writes a nullable field by its type, without validating the value against the union', async () => {
    const response = await app.inject({ method: 'GET', url: '/loose' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ claim: 'not-a-uuid' })
  })
})
