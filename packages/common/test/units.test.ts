import { Type } from '@sinclair/typebox'
import { describe, expect, it } from 'vitest'
import {
  baseConfigSchema,
  ConfigError,
  ConflictError,
  HttpError,
  LockedError,
  ok,
  paged,
  readConfig,
} from '../src/index.js'

describe('errors', () => {
  it('carry the status and the generic or precise code', () => {
    const generic = new ConflictError('already there')
    expect(generic).toBeInstanceOf(HttpError)
    expect([generic.statusCode, generic.code, generic.message]).toEqual([409, 'conflict', 'already there'])
    const precise = new LockedError('locked until publication', {
      code: 'collection_locked',
      data: { id: 'x' },
    })
    expect([precise.statusCode, precise.code, precise.data]).toEqual([423, 'collection_locked', { id: 'x' }])
  })
})

describe('envelopes', () => {
  it('wrap data and compute the page count', () => {
    expect(ok([1])).toEqual({ ok: true, data: [1] })
    expect(paged(['a', 'b'], { page: 2, limit: 2, total: 5 })).toEqual({
      ok: true,
      data: ['a', 'b'],
      pagination: { page: 2, limit: 2, total: 5, pages: 3 },
    })
    expect(paged([], { page: 1, limit: 20, total: 0 }).pagination.pages).toBe(0)
  })
})

describe('shared schemas', () => {
  it('accept only a bare uuid and bound the page', async () => {
    const { Uuid, PageQuery } = await import('../src/index.js')
    const uuid = new RegExp(Uuid.pattern!)
    expect(uuid.test('0b9a5b8e-2b1e-4c0f-9a57-3f2f1f0c9d11')).toBe(true)
    expect(uuid.test('urn:uuid:0b9a5b8e-2b1e-4c0f-9a57-3f2f1f0c9d11')).toBe(false)
    expect(PageQuery.properties.page.maximum).toBe(1_000_000)
  })
})

describe('readConfig', () => {
  const schema = Type.Composite([
    baseConfigSchema({ service: 'demo', port: 3999 }),
    Type.Object({ EXTRA: Type.Optional(Type.String()) }),
  ])

  it('applies defaults and converts numbers', () => {
    const config = readConfig(schema, { PORT: '4000', EXTRA: 'x', UNRELATED: 'y' })
    expect(config.PORT).toBe(4000)
    expect(config.HOST).toBe('0.0.0.0')
    expect(config.AUTH_MAX_AGE_S).toBe(300)
    expect(config.DATA_DIR).toMatch(/\.data\/demo$/)
    expect(config.EXTRA).toBe('x')
    expect(config.DATABASE_URL).toBeUndefined()
    expect('UNRELATED' in config).toBe(false)
  })

  it('treats an empty variable as unset', () => {
    expect(readConfig(schema, { DATABASE_URL: '' }).DATABASE_URL).toBeUndefined()
  })

  it('lists every bad variable at once', () => {
    try {
      readConfig(schema, { PORT: 'eighty', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' })
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError)
      const message = (e as ConfigError).message
      expect(message).toContain('PORT')
      expect(message).toContain('DATABASE_URL')
      expect(message).toContain('LOG_LEVEL')
    }
  })
})
