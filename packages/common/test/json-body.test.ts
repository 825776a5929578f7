import { Type } from '@sinclair/typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type App, createApp, ok } from '../src/index.js'
import { DEFAULT_BODY_MAX_DEPTH, nestsDeeperThan } from '../src/kit/json-body.js'
import { flood } from '../src/testing/index.js'
import { useKitDatabase } from './set-up.js'

/*
 * Defect: a JSON body within the size limit but nested a million deep (`[[[[…]]]]`) held the event loop for
 * about a second per megabyte in JSON.parse before the schema refused it: a few at once kept /health/live
 * waiting for seconds. Every JSON body's nesting is now bounded by a linear scan before it is parsed.
 */

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`
/** An object `depth` levels deep: {"a":{"a":…{"a":1}…}}. */
const deepObject = (depth: number) => `${'{"a":'.repeat(depth - 1)}{"a":1}${'}'.repeat(depth - 1)}`

describe('the nesting scan', () => {
  it('counts objects and arrays, not brackets inside strings or escaped quotes', () => {
    expect(nestsDeeperThan(nested(3), 3)).toBe(false)
    expect(nestsDeeperThan(nested(4), 3)).toBe(true)
    expect(nestsDeeperThan(deepObject(3), 3)).toBe(false)
    expect(nestsDeeperThan(deepObject(4), 3)).toBe(true)
    expect(nestsDeeperThan(`["${'['.repeat(100)}"]`, 1)).toBe(false)
    // an escaped quote does not end the string; an escaped backslash before a quote does
    expect(nestsDeeperThan(`["\\"[[[[", 1]`, 1)).toBe(false)
    expect(nestsDeeperThan(`["\\\\", [[1]]]`, 2)).toBe(true)
    expect(nestsDeeperThan(`[{"a":[1]},{"b":[2]}]`, 3)).toBe(false)
  })
})

describe('a JSON body', () => {
  const db = useKitDatabase()
  let app: App
  let baseUrl: string
  const FOUR_MB = 4 * 1024 * 1024

  beforeAll(async () => {
    app = await createApp({ name: 'demo', version: '1.0.0', sql: db.sql })
    app.post('/things', { schema: { body: Type.Object({ a: Type.Unknown() }) } }, async (request) =>
      ok(request.body),
    )
    // a route that raises the size limit, as a route taking a long list does
    app.post('/lists', { bodyLimit: FOUR_MB, schema: { body: Type.Array(Type.String()) } }, async () => ok(1))
    baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
  })
  afterAll(async () => {
    await app?.close()
  })

  const post = (url: string, payload: string) =>
    app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload })

  it(`is parsed up to ${DEFAULT_BODY_MAX_DEPTH} levels deep and refused past it, naming the limit`, async () => {
    const deepest = await post('/things', deepObject(DEFAULT_BODY_MAX_DEPTH))
    expect(deepest.statusCode).toBe(200)
    expect(JSON.stringify(deepest.json().data)).toBe(deepObject(DEFAULT_BODY_MAX_DEPTH))
    const deeper = await post('/things', deepObject(DEFAULT_BODY_MAX_DEPTH + 1))
    expect([deeper.statusCode, deeper.json()]).toEqual([
      400,
      {
        ok: false,
        error: `The body nests objects and arrays more than ${DEFAULT_BODY_MAX_DEPTH} deep`,
        code: 'bad_request',
        data: { max_depth: DEFAULT_BODY_MAX_DEPTH },
      },
    ])
  })

  it('keeps the parser it replaces: empty, malformed and prototype-poisoning bodies are 400', async () => {
    for (const body of ['', '{"a":', '{"a":1,"__proto__":{"x":1}}']) {
      const answer = await post('/things', body)
      expect([answer.statusCode, answer.json().code], body).toEqual([400, 'bad_request'])
    }
    expect((await post('/things', '{"a":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}')).statusCode).toBe(200)
  })

  it('nested two million deep within a raised size limit is refused while /health/live answers', async () => {
    const body = nested(2_000_000)
    expect(body.length).toBeLessThan(FOUR_MB)
    const result = await flood({
      baseUrl,
      requests: Array.from({ length: 6 }, () => ({ method: 'POST', path: '/lists', body })),
    })
    expect(result.statuses).toEqual({ 400: 6 })
    expect(new Set(result.answers.map((answer) => answer.code))).toEqual(new Set(['bad_request']))
    expect(result.livenessFailures).toEqual([])
    // generous: a poll answered within a second at worst, on a loaded machine
    expect(result.maxLivenessMs).toBeLessThan(1000)
    // the bodies themselves (six of 4 MB, as bytes and as text) and no more: parsing one such body would
    // build two million arrays, hundreds of megabytes
    expect(result.peakRssBytes - result.rssBeforeBytes).toBeLessThan(150 * 1024 * 1024)
  })

  it('takes a service-chosen depth', async () => {
    const shallow = await createApp({ name: 'demo', version: '1.0.0', sql: db.sql, bodyMaxDepth: 2 })
    shallow.post('/things', async (request) => ok(request.body))
    const inject = (payload: string) =>
      shallow.inject({
        method: 'POST',
        url: '/things',
        headers: { 'content-type': 'application/json' },
        payload,
      })
    expect((await inject('{"a":[1]}')).statusCode).toBe(200)
    expect((await inject('{"a":[[1]]}')).json()).toMatchObject({
      code: 'bad_request',
      data: { max_depth: 2 },
    })
    await shallow.close()
  })
})
