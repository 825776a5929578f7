import { beforeAll, describe, expect, it } from 'vitest'
import {
  call,
  contentHash,
  createCollection,
  createItem,
  randomUUID,
  refusal,
  useHarness,
  useIdentities,
} from './helpers.js'

const h = useHarness()
const [alice] = useIdentities(1)
let collection: string
let item: string
beforeAll(async () => {
  collection = await createCollection(h.app, alice)
  item = await createItem(h.app, alice, collection)
})

type Method = 'GET' | 'PUT' | 'POST' | 'DELETE'

/** Asserts a 400 envelope whose errors name `field` (e.g. `body.name`). */
async function badField(method: Method, url: string, payload: unknown, field: string) {
  const body = refusal(await call(h.app, alice, method, url, payload), 400, 'bad_request')
  const paths = (body.data?.errors ?? []).map((e) => e.path)
  expect(paths, JSON.stringify(body)).toContain(field)
}

describe('signed fetch on every route but /v1/addresses', () => {
  const id = randomUUID()
  const routes: [Method, string][] = [
    ['GET', '/v1/collections'],
    ['GET', `/v1/0x${'ab'.repeat(20)}/collections`],
    ['GET', `/v1/collections/${id}`],
    ['PUT', `/v1/collections/${id}`],
    ['DELETE', `/v1/collections/${id}`],
    ['POST', `/v1/collections/${id}/publish`],
    ['POST', `/v1/collections/${id}/lock`],
    ['POST', `/v1/collections/${id}/tos`],
    ['GET', `/v1/collections/${id}/approvalData`],
    ['GET', `/v1/collections/${id}/items`],
    ['PUT', `/v1/items/${id}`],
    ['DELETE', `/v1/items/${id}`],
  ]
  it.each(routes)('%s %s unsigned is 401, whatever the body', async (method, url) => {
    const res = await h.app.inject({
      method,
      url,
      payload: method === 'PUT' || method === 'POST' ? { junk: true } : undefined,
    })
    refusal(res, 401, 'unauthorized')
  })

  it('refuses a replayed mutating request (401)', async () => {
    const { signedHeaders } = await import('@genesis/common/testing')
    const url = `/v1/collections/${collection}/lock`
    const headers = signedHeaders(alice, 'POST', url)
    expect((await h.app.inject({ method: 'POST', url, headers })).statusCode).toBe(200)
    refusal(await h.app.inject({ method: 'POST', url, headers }), 401, 'unauthorized')
    await h.db.sql`update collections set lock = null where id = ${collection}`
  })

  it('refuses a signature made for another path (401)', async () => {
    const { signedHeaders } = await import('@genesis/common/testing')
    const headers = signedHeaders(alice, 'GET', `/v1/collections/${randomUUID()}`)
    refusal(
      await h.app.inject({ method: 'GET', url: `/v1/collections/${collection}`, headers }),
      401,
      'unauthorized',
    )
  })

  it('serves /v1/addresses without a signature', async () => {
    expect((await h.app.inject({ method: 'GET', url: '/v1/addresses' })).statusCode).toBe(200)
  })
})

describe('PUT /v1/collections/{id}', () => {
  const url = (id: string) => `/v1/collections/${id}`
  const id = randomUUID()
  it('refuses a path id that is not a uuid', () =>
    badField('PUT', url('not-a-uuid'), { id, name: 'x' }, 'params.id'))
  it('refuses unknown fields', () =>
    badField('PUT', url(id), { id, name: 'x', is_published: true }, 'body.is_published'))
  it('refuses a missing name', () => badField('PUT', url(id), { id }, 'body.name'))
  it('refuses a body id that is not the path id', () =>
    badField('PUT', url(id), { id: randomUUID(), name: 'x' }, 'body.id'))
  it('refuses a body id that is not a uuid', () =>
    badField('PUT', url(id), { id: 'nope', name: 'x' }, 'body.id'))
  it('refuses an empty name, or only blanks', async () => {
    await badField('PUT', url(id), { id, name: '' }, 'body.name')
    await badField('PUT', url(id), { id, name: '    ' }, 'body.name')
  })
  it('refuses a name longer than 42 characters once trimmed, accepts 42 with blanks around', async () => {
    await badField('PUT', url(id), { id, name: 'x'.repeat(43) }, 'body.name')
    await badField('PUT', url(id), { id, name: `a${' '.repeat(41)}b` }, 'body.name')
    const name = `${'y'.repeat(30)}${randomUUID().slice(0, 12)}`
    expect((await call(h.app, alice, 'PUT', url(id), { id, name: `  ${name}  ` })).statusCode).toBe(204)
  })
  it('refuses control characters (C0 and C1) and bidi overrides in a name, and keeps nothing', async () => {
    for (const name of [
      'a\u0007b',
      'a\u009b31mb',
      'a\u0085b',
      'invoice\u202egnp.exe',
      'a\u2066b\u2069',
      '\u202ex',
    ]) {
      const other = randomUUID()
      await badField('PUT', url(other), { id: other, name }, 'body.name')
      refusal(await call(h.app, alice, 'GET', url(other)), 404, 'not_found')
    }
    // The neighbours of the refused ranges are names like any other.
    const other = randomUUID()
    const fine = `a\u00a0é\u200fb ${randomUUID().slice(0, 8)}`
    expect((await call(h.app, alice, 'PUT', url(other), { id: other, name: fine })).statusCode).toBe(204)
  })
  it('refuses C1 controls and bidi overrides in a search', async () => {
    for (const [q, shown] of [
      ['\u009b', '"\\u009b"'],
      ['\u202e', '"\\u202e"'],
    ] as const) {
      await badField('GET', `/v1/addresses?q=${encodeURIComponent(q)}`, undefined, 'query.q')
      // The message a person reads shows the character as an escape, never the character itself.
      const body = refusal(
        await call(h.app, alice, 'GET', `/v1/addresses?q=${encodeURIComponent(q)}`),
        400,
        'bad_request',
      )
      expect(body.error).toContain(`Invalid query parameter q ${shown}`)
    }
  })
  it('refuses a malformed URN', async () => {
    const other = randomUUID()
    for (const urn of ['urn:nope', 'urn:decentraland:sepolia:collections-thirdparty:tp', 42]) {
      await badField('PUT', url(other), { id: other, name: 'x', urn }, 'body.urn')
    }
  })
  it('refuses bad manager and minter addresses, and too many', async () => {
    const other = randomUUID()
    await badField('PUT', url(other), { id: other, name: 'x', managers: ['0x1234'] }, 'body.managers.0')
    await badField(
      'PUT',
      url(other),
      { id: other, name: 'x', minters: [`0x${'zz'.repeat(20)}`] },
      'body.minters.0',
    )
    await badField('PUT', url(other), { id: other, name: 'x', managers: 'not-a-list' }, 'body.managers')
    const many = Array.from({ length: 51 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`)
    await badField('PUT', url(other), { id: other, name: 'x', managers: many }, 'body.managers')
  })
  it('refuses a body that is not JSON, or not an object', async () => {
    const res = await call(h.app, alice, 'PUT', url(randomUUID()), [1, 2])
    refusal(res, 400, 'bad_request')
    const { signedHeaders } = await import('@genesis/common/testing')
    const target = url(randomUUID())
    const raw = await h.app.inject({
      method: 'PUT',
      url: target,
      payload: '{"id":',
      headers: { ...signedHeaders(alice, 'PUT', target), 'content-type': 'application/json' },
    })
    refusal(raw, 400, 'bad_request')
  })
})

describe('answers stay small and in the envelope whatever the input', () => {
  it('a terms body of numbers as large as the route takes is a 400 naming the limit, not a 500', async () => {
    const numbers = `[${Array.from({ length: 300_000 }, () => '1').join(',')}]`
    const payload = `{"email":"a@b.co","event":"publish_collection_tos","hashes":${numbers}}`
    expect(payload.length).toBeGreaterThan(500_000)
    const res = await call(h.app, alice, 'POST', `/v1/collections/${collection}/tos`, JSON.parse(payload))
    const body = refusal(res, 400, 'bad_request')
    expect(body.error).toMatch(/body\.hashes must NOT have more than 5000 items/)
    expect(res.body.length).toBeLessThan(2048)
  })

  it.each([
    ['/v1/collections/%zz', 400, 'bad_request'],
    ['/v1/collections/%c0%ae%c0%ae%c0%af', 400, 'bad_request'],
    [`/v1/collections/${'a'.repeat(10_000)}`, 414, 'uri_too_long'],
  ])('%s answers in the envelope', async (url, status, code) => {
    refusal(await call(h.app, alice, 'GET', url), status, code)
  })
})

describe('lists', () => {
  it('refuses limit over 100, page 0, a non-boolean is_published, an empty or long q, unknown parameters', async () => {
    await badField('GET', '/v1/collections?limit=101', undefined, 'query.limit')
    await badField('GET', '/v1/collections?limit=0', undefined, 'query.limit')
    await badField('GET', '/v1/collections?page=0', undefined, 'query.page')
    await badField('GET', '/v1/collections?page=x', undefined, 'query.page')
    await badField('GET', '/v1/collections?is_published=maybe', undefined, 'query.is_published')
    await badField('GET', '/v1/collections?q=', undefined, 'query.q')
    await badField('GET', `/v1/collections?q=${'a'.repeat(101)}`, undefined, 'query.q')
    await badField('GET', '/v1/collections?sort=name', undefined, 'query.sort')
    await badField('GET', '/v1/collections?q=%00', undefined, 'query.q')
    await badField('GET', '/v1/collections?q=a%0Ab', undefined, 'query.q')
    await badField('GET', '/v1/collections?page=1e20', undefined, 'query.page')
    await badField('GET', '/v1/collections?page=1000001', undefined, 'query.page')
  })
  it('takes integers in plain decimal only', async () => {
    for (const page of ['0x10', '1e1', '%205', '5.0', '%2B5', '%201']) {
      await badField('GET', `/v1/collections?page=${page}`, undefined, 'query.page')
      const res = await h.app.inject({ method: 'GET', url: `/v1/addresses?page=${page}` })
      const body = refusal(res, 400, 'bad_request')
      expect(body.data?.errors?.map((e) => e.path)).toContain('query.page')
    }
  })
  it('refuses a malformed address in /v1/{address}/collections', async () => {
    await badField('GET', '/v1/0x1234/collections', undefined, 'params.address')
    await badField('GET', `/v1/${alice.address}/collections?limit=500`, undefined, 'query.limit')
    await badField(
      'GET',
      `/v1/${alice.address}/collections?page=99999999999999999999`,
      undefined,
      'query.page',
    )
  })
  it('refuses bad /v1/addresses parameters', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/v1/addresses?limit=1000&page=-1' })
    const body = refusal(res, 400, 'bad_request')
    expect(body.data?.errors?.map((e) => e.path)).toEqual(
      expect.arrayContaining(['query.limit', 'query.page']),
    )
  })
  it('refuses a bad id on single reads', async () => {
    await badField('GET', '/v1/collections/123', undefined, 'params.id')
    await badField('GET', '/v1/collections/123/items', undefined, 'params.id')
    await badField('GET', '/v1/collections/123/approvalData', undefined, 'params.id')
  })
})

describe('DELETE, lock', () => {
  it('refuse ids that are not uuids', async () => {
    await badField('DELETE', '/v1/collections/xyz', undefined, 'params.id')
    await badField('POST', '/v1/collections/xyz/lock', undefined, 'params.id')
  })
})

describe('POST /v1/collections/{id}/tos', () => {
  const url = () => `/v1/collections/${collection}/tos`
  const valid = () => ({
    email: 'alice@example.com',
    event: 'publish_collection_tos',
    hashes: [contentHash()],
  })
  it('refuses a bad e-mail', async () => {
    for (const email of ['not-an-email', 'a@', '', 'a b@example.com']) {
      await badField('POST', url(), { ...valid(), email }, 'body.email')
    }
  })
  it('refuses an unknown event', () =>
    badField('POST', url(), { ...valid(), event: 'publish' }, 'body.event'))
  it('refuses bad hashes, none, or more than 5,000', async () => {
    await badField('POST', url(), { ...valid(), hashes: ['not a hash'] }, 'body.hashes.0')
    await badField('POST', url(), { ...valid(), hashes: [contentHash(), 'Qm123'] }, 'body.hashes.1')
    await badField('POST', url(), { ...valid(), hashes: [] }, 'body.hashes')
    const tooMany = Array.from({ length: 5_001 }, () => `0x${'ab'.repeat(32)}`)
    await badField('POST', url(), { ...valid(), hashes: tooMany }, 'body.hashes')
  })
  it('refuses unknown fields and missing ones', async () => {
    await badField('POST', url(), { ...valid(), accepted: true }, 'body.accepted')
    await badField(
      'POST',
      url(),
      { email: 'alice@example.com', event: 'publish_collection_tos' },
      'body.hashes',
    )
  })
  it('refuses a body over the route limit (413)', async () => {
    const huge = { ...valid(), hashes: Array.from({ length: 10_000 }, () => `0x${'ab'.repeat(32)}`) }
    refusal(await call(h.app, alice, 'POST', url(), huge), 413, 'payload_too_large')
  })
})

describe('POST /v1/collections/{id}/publish', () => {
  const url = () => `/v1/collections/${collection}/publish`
  const cheque = { qty: 1, salt: `0x${'01'.repeat(32)}`, signature: `0x${'02'.repeat(65)}` }
  it('refuses a missing, empty or oversized itemIds', async () => {
    await badField('POST', url(), {}, 'body.itemIds')
    await badField('POST', url(), { itemIds: [] }, 'body.itemIds')
    await badField(
      'POST',
      url(),
      { itemIds: Array.from({ length: 5001 }, () => randomUUID()) },
      'body.itemIds',
    )
  })
  it('refuses item ids that are not uuids', () =>
    badField('POST', url(), { itemIds: ['abc'] }, 'body.itemIds.0'))
  it('refuses a malformed cheque', async () => {
    await badField('POST', url(), { itemIds: [item], cheque: { ...cheque, qty: 0 } }, 'body.cheque.qty')
    await badField('POST', url(), { itemIds: [item], cheque: { ...cheque, qty: 1.5 } }, 'body.cheque.qty')
    await badField(
      'POST',
      url(),
      { itemIds: [item], cheque: { ...cheque, salt: '0x01' } },
      'body.cheque.salt',
    )
    await badField(
      'POST',
      url(),
      { itemIds: [item], cheque: { ...cheque, signature: 'xyz' } },
      'body.cheque.signature',
    )
    await badField('POST', url(), { itemIds: [item], cheque: { ...cheque, extra: 1 } }, 'body.cheque.extra')
    await badField('POST', url(), { itemIds: [item], cheque: { qty: 1 } }, 'body.cheque.salt')
  })
  it('refuses unknown fields', () => badField('POST', url(), { itemIds: [item], force: true }, 'body.force'))
})

describe('PUT /v1/items/{id}', () => {
  const body = (fields: Record<string, unknown> = {}) => ({
    id: item,
    collection_id: collection,
    name: 'Hat',
    type: 'wearable',
    content_hash: contentHash(),
    ...fields,
  })
  const url = () => `/v1/items/${item}`
  it('refuses a bad type, name, content hash or collection id', async () => {
    await badField('PUT', url(), body({ type: 'hat' }), 'body.type')
    await badField('PUT', url(), body({ name: ' ' }), 'body.name')
    await badField('PUT', url(), body({ name: 'n'.repeat(43) }), 'body.name')
    await badField('PUT', url(), body({ content_hash: 'QmTooShort' }), 'body.content_hash')
    await badField('PUT', url(), body({ collection_id: 'abc' }), 'body.collection_id')
  })
  it('refuses unknown fields, missing ones and a body id that is not the path id', async () => {
    await badField('PUT', url(), body({ blockchain_item_id: '1' }), 'body.blockchain_item_id')
    const { content_hash: _omitted, ...missing } = body()
    await badField('PUT', url(), missing, 'body.content_hash')
    await badField('PUT', url(), body({ id: randomUUID() }), 'body.id')
    await badField('PUT', '/v1/items/nope', body(), 'params.id')
    await badField('DELETE', '/v1/items/nope', undefined, 'params.id')
  })
})

it('answers unknown routes with a 404 envelope', async () => {
  refusal(await h.app.inject({ method: 'GET', url: '/v1/nothing/here/at/all' }), 404, 'not_found')
})
