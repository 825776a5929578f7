import type { Collection } from '@genesis/wire/collections'
import { keccak256, toUtf8Bytes } from 'ethers'
import { beforeAll, describe, expect, it } from 'vitest'
import { collectionContractAddress } from '../src/domain/contract-address.js'
import {
  call,
  createCollection,
  createIdentity,
  createItem,
  type Identity,
  randomUUID,
  refusal,
  uniqueName,
  useHarness,
  useIdentities,
} from './helpers.js'

const h = useHarness()
const [alice, bob, carol] = useIdentities(3)

const get = async (who: Identity, id: string) => call(h.app, who, 'GET', `/v1/collections/${id}`)
const read = async (who: Identity, id: string) => (await get(who, id)).json().data as Collection

/** Marks a collection published straight in the database (publication itself is tested elsewhere). */
const publishInDb = (id: string) => h.db.sql`update collections set is_published = true where id = ${id}`

describe('PUT /v1/collections/{id}: a standard collection', () => {
  it('creates it with the signer as owner, its CREATE2 salt, contract address and URN', async () => {
    const id = randomUUID()
    const res = await call(h.app, alice, 'PUT', `/v1/collections/${id}`, {
      id,
      name: '  Spring Wearables  ',
      urn: null,
    })
    expect(res.statusCode).toBe(204)
    expect(res.body).toBe('')
    const c = await read(alice, id)
    const salt = keccak256(toUtf8Bytes(id))
    const contract = collectionContractAddress(
      h.config.COLLECTION_FACTORY_ADDRESS,
      salt,
      h.config.COLLECTION_INIT_CODE_HASH,
    )
    expect(c).toMatchObject({
      id,
      name: 'Spring Wearables',
      eth_address: alice.address,
      salt,
      contract_address: contract,
      urn: `urn:decentraland:sepolia:collections-v2:${contract}`,
      is_published: false,
      is_approved: false,
      managers: [],
      minters: [],
      forum_link: null,
      forum_id: null,
      lock: null,
      reviewed_at: null,
    })
    expect(Date.parse(c.created_at)).not.toBeNaN()
  })

  it('accepts its own derived URN back, and stores members lower-case without duplicates', async () => {
    const id = randomUUID()
    await call(h.app, alice, 'PUT', `/v1/collections/${id}`, { id, name: uniqueName() })
    const { urn } = await read(alice, id)
    const checksummed = `0x${bob.address.slice(2).toUpperCase()}`
    const res = await call(h.app, alice, 'PUT', `/v1/collections/${id}`, {
      id,
      name: 'Renamed by owner',
      urn,
      managers: [checksummed, bob.address],
      minters: [carol.address],
    })
    expect(res.statusCode).toBe(204)
    const c = await read(alice, id)
    expect(c).toMatchObject({ name: 'Renamed by owner', managers: [bob.address], minters: [carol.address] })
    expect(Date.parse(c.updated_at)).toBeGreaterThanOrEqual(Date.parse(c.created_at))
  })

  it('lets a manager update it, keeping the owner; refuses anybody else (403)', async () => {
    const id = await createCollection(h.app, alice, { managers: [bob.address] })
    const name = uniqueName('By manager')
    expect((await call(h.app, bob, 'PUT', `/v1/collections/${id}`, { id, name })).statusCode).toBe(204)
    expect(await read(alice, id)).toMatchObject({ name, eth_address: alice.address })
    refusal(
      await call(h.app, carol, 'PUT', `/v1/collections/${id}`, { id, name: uniqueName() }),
      403,
      'forbidden',
    )
  })

  it("refuses a manager's change of managers or minters (403, nothing changed); the same lists in any spelling pass", async () => {
    const id = await createCollection(h.app, alice, { managers: [bob.address, carol.address], minters: [] })
    const before = await read(alice, id)
    const stranger = `0x${'5a'.repeat(20)}`
    for (const change of [
      { managers: [bob.address, stranger], minters: [stranger] },
      { managers: [bob.address, stranger] },
      { managers: [bob.address] },
      { minters: [stranger] },
    ]) {
      const body = refusal(
        await call(h.app, bob, 'PUT', `/v1/collections/${id}`, { id, name: 'Taken over', ...change }),
        403,
        'forbidden',
      )
      expect(body.error).toMatch(/^Only its owner may change the collection's (managers|minters)$/)
      expect(await read(alice, id)).toEqual(before)
    }
    // The record sent back as read, reordered and checksummed, is no change.
    const upper = (a: string) => `0x${a.slice(2).toUpperCase()}`
    const name = uniqueName('Manager edit')
    const same = await call(h.app, bob, 'PUT', `/v1/collections/${id}`, {
      id,
      name,
      managers: [upper(carol.address), bob.address, carol.address],
      minters: [],
    })
    expect(same.statusCode, same.body).toBe(204)
    const after = await read(alice, id)
    expect(after).toMatchObject({ name, minters: [] })
    expect([...after.managers].sort()).toEqual([...before.managers].sort())
    // The owner may change both.
    const owner = await call(h.app, alice, 'PUT', `/v1/collections/${id}`, {
      id,
      name,
      managers: [bob.address],
      minters: [stranger],
    })
    expect(owner.statusCode, owner.body).toBe(204)
    expect(await read(alice, id)).toMatchObject({ managers: [bob.address], minters: [stranger] })
  })

  it('refuses a name used by another standard collection, ignoring case and blanks (409 name_in_use)', async () => {
    const name = uniqueName('Taken')
    await createCollection(h.app, alice, { name })
    const id = randomUUID()
    const res = await call(h.app, bob, 'PUT', `/v1/collections/${id}`, {
      id,
      name: ` ${name.toUpperCase()} `,
    })
    refusal(res, 409, 'name_in_use')
    refusal(await get(bob, id), 404, 'not_found')
    // renaming onto it is refused as well
    const other = await createCollection(h.app, bob)
    refusal(
      await call(h.app, bob, 'PUT', `/v1/collections/${other}`, { id: other, name: name.toLowerCase() }),
      409,
      'name_in_use',
    )
  })

  it('keeps the URN: a different standard URN is 400, another kind is 409', async () => {
    const id = await createCollection(h.app, alice)
    const otherAddress = `urn:decentraland:sepolia:collections-v2:0x${'12'.repeat(20)}`
    const newId = randomUUID()
    refusal(
      await call(h.app, alice, 'PUT', `/v1/collections/${newId}`, {
        id: newId,
        name: uniqueName(),
        urn: otherAddress,
      }),
      400,
      'invalid_urn',
    )
    refusal(
      await call(h.app, alice, 'PUT', `/v1/collections/${id}`, {
        id,
        name: uniqueName(),
        urn: 'urn:decentraland:sepolia:collections-thirdparty:somebody:x',
      }),
      409,
      'urn_mismatch',
    )
  })

  it('refuses changes once published (409 collection_published)', async () => {
    const id = await createCollection(h.app, alice)
    await publishInDb(id)
    refusal(
      await call(h.app, alice, 'PUT', `/v1/collections/${id}`, { id, name: uniqueName() }),
      409,
      'collection_published',
    )
  })
})

describe('PUT /v1/collections/{id}: a third-party collection', () => {
  it('registers an unknown third party with the caller as manager, then only its managers add collections', async () => {
    const tp = `tp${randomUUID().slice(0, 8)}`
    const id = randomUUID()
    const urn = `urn:decentraland:sepolia:collections-thirdparty:${tp}:first`
    expect(
      (await call(h.app, alice, 'PUT', `/v1/collections/${id}`, { id, name: 'TP one', urn })).statusCode,
    ).toBe(204)
    const c = await read(alice, id)
    expect(c).toMatchObject({ urn, salt: null, contract_address: null, eth_address: alice.address })
    const [tpRow] = await h.db
      .sql`select managers from third_parties where id = ${`urn:decentraland:sepolia:collections-thirdparty:${tp}`}`
    expect(tpRow?.managers).toEqual([alice.address])

    const other = randomUUID()
    const urn2 = `urn:decentraland:sepolia:collections-thirdparty:${tp}:second`
    refusal(
      await call(h.app, bob, 'PUT', `/v1/collections/${other}`, { id: other, name: 'TP two', urn: urn2 }),
      403,
      'forbidden',
    )
    expect(
      (await call(h.app, alice, 'PUT', `/v1/collections/${other}`, { id: other, name: 'TP one', urn: urn2 }))
        .statusCode,
    ).toBe(204)
  })

  it('refuses a URN already used by another collection (409 urn_in_use), and one of another network (400)', async () => {
    const urn = `urn:decentraland:sepolia:collections-thirdparty:tp${randomUUID().slice(0, 8)}:only`
    await createCollection(h.app, alice, { urn })
    const id = randomUUID()
    refusal(
      await call(h.app, alice, 'PUT', `/v1/collections/${id}`, { id, name: uniqueName(), urn }),
      409,
      'urn_in_use',
    )
    const body = refusal(
      await call(h.app, alice, 'PUT', `/v1/collections/${id}`, {
        id,
        name: uniqueName(),
        urn: 'urn:decentraland:mainnet:collections-thirdparty:x:y',
      }),
      400,
      'invalid_urn',
    )
    expect(body.data?.errors?.[0]?.path).toBe('body.urn')
  })

  it('lets managers of the third party edit its collections', async () => {
    const tp = `tp${randomUUID().slice(0, 8)}`
    const id = await createCollection(h.app, alice, {
      urn: `urn:decentraland:sepolia:collections-thirdparty:${tp}:a`,
    })
    await h.db
      .sql`update third_parties set managers = ${h.db.sql.array([alice.address, carol.address])} where id = ${`urn:decentraland:sepolia:collections-thirdparty:${tp}`}`
    expect(
      (await call(h.app, carol, 'PUT', `/v1/collections/${id}`, { id, name: 'Carol was here' })).statusCode,
    ).toBe(204)
    expect((await read(carol, id)).name).toBe('Carol was here')
  })
})

describe('PUT /v1/collections/{id}: the URN sent with a write', () => {
  const derivedUrn = (id: string) =>
    `urn:decentraland:sepolia:collections-v2:${collectionContractAddress(
      h.config.COLLECTION_FACTORY_ADDRESS,
      keccak256(toUtf8Bytes(id)),
      h.config.COLLECTION_INIT_CODE_HASH,
    )}`

  it('a create may send its own derived standard URN; another address is 400 naming the one to send', async () => {
    // guards `write.urn.contractAddress !== standard.contractAddress` → `true` (every standard URN refused)
    const id = randomUUID()
    const created = await call(h.app, alice, 'PUT', `/v1/collections/${id}`, {
      id,
      name: uniqueName(),
      urn: derivedUrn(id),
    })
    expect(created.statusCode, created.body).toBe(204)
    expect((await read(alice, id)).urn).toBe(derivedUrn(id))
    // guards the refusal's message → `` `` ``
    const other = randomUUID()
    const body = refusal(
      await call(h.app, alice, 'PUT', `/v1/collections/${other}`, {
        id: other,
        name: uniqueName(),
        urn: `urn:decentraland:sepolia:collections-v2:0x${'34'.repeat(20)}`,
      }),
      400,
      'invalid_urn',
    )
    expect(body.data?.errors).toEqual([
      {
        path: 'body.urn',
        message: `is derived from the id for a standard collection: send null or ${derivedUrn(other)}`,
      },
    ])
  })

  it('an update with urn null keeps a standard collection and is 409 for a third-party one', async () => {
    // guards `urn === null` → `false` (a 500) and `row.third_party_id === null` → `true`, `false`, `!==`
    const standard = await createCollection(h.app, alice)
    const kept = await call(h.app, alice, 'PUT', `/v1/collections/${standard}`, {
      id: standard,
      name: uniqueName(),
      urn: null,
    })
    expect(kept.statusCode, kept.body).toBe(204)
    const tpUrn = `urn:decentraland:sepolia:collections-thirdparty:tp${randomUUID().slice(0, 8)}:nulled`
    const thirdParty = await createCollection(h.app, alice, { urn: tpUrn })
    const body = refusal(
      await call(h.app, alice, 'PUT', `/v1/collections/${thirdParty}`, {
        id: thirdParty,
        name: uniqueName(),
        urn: null,
      }),
      409,
      'urn_mismatch',
    )
    expect(body.error).toBe(`The URN of collection ${thirdParty} is ${tpUrn} and cannot be changed`)
    expect((await read(alice, thirdParty)).urn).toBe(tpUrn)
  })

  it('an update with its own URN is accepted, with another URN of its kind is 409', async () => {
    // guards `urn.kind === 'standard'` → `true` (a third party's own URN refused)
    const tp = `urn:decentraland:sepolia:collections-thirdparty:tp${randomUUID().slice(0, 8)}`
    const thirdParty = await createCollection(h.app, alice, { urn: `${tp}:own` })
    const same = await call(h.app, alice, 'PUT', `/v1/collections/${thirdParty}`, {
      id: thirdParty,
      name: 'Same third-party URN',
      urn: `${tp}:own`,
    })
    expect(same.statusCode, same.body).toBe(204)
    // guards `row.urn === urn.urn` → `true`
    refusal(
      await call(h.app, alice, 'PUT', `/v1/collections/${thirdParty}`, {
        id: thirdParty,
        name: uniqueName(),
        urn: `${tp}:other`,
      }),
      409,
      'urn_mismatch',
    )
    // guards `row.contract_address === urn.contractAddress` → `true`
    const standard = await createCollection(h.app, alice)
    refusal(
      await call(h.app, alice, 'PUT', `/v1/collections/${standard}`, {
        id: standard,
        name: uniqueName(),
        urn: `urn:decentraland:sepolia:collections-v2:0x${'56'.repeat(20)}`,
      }),
      409,
      'urn_mismatch',
    )
    expect(await read(alice, thirdParty)).toMatchObject({ name: 'Same third-party URN', urn: `${tp}:own` })
  })

  it("a collection added to another's third party: 403 names the third party", async () => {
    const tp = `urn:decentraland:sepolia:collections-thirdparty:tp${randomUUID().slice(0, 8)}`
    await createCollection(h.app, alice, { urn: `${tp}:first` })
    const id = randomUUID()
    // guards notAllowed's arguments → `""`
    const body = refusal(
      await call(h.app, bob, 'PUT', `/v1/collections/${id}`, { id, name: uniqueName(), urn: `${tp}:second` }),
      403,
      'forbidden',
    )
    expect(body.error).toBe(`Only a manager of the third party ${tp} may create its collections`)
  })
})

describe('GET /v1/collections/{id}', () => {
  it('gives the full view to owner, managers, minters and committee; hides unpublished ones from others (404)', async () => {
    const id = await createCollection(h.app, alice, { managers: [bob.address] })
    for (const who of [alice, bob, h.committee]) expect((await read(who, id)).salt).toMatch(/^0x/)
    const minted = await createCollection(h.app, alice, { minters: [carol.address] })
    expect(await read(carol, minted)).toHaveProperty('lock', null)
    refusal(await get(carol, id), 404, 'not_found')
  })

  it('gives the public view of a published collection to anybody', async () => {
    const id = await createCollection(h.app, alice)
    await publishInDb(id)
    const c = await read(carol, id)
    expect(c.is_published).toBe(true)
    for (const hidden of ['salt', 'forum_link', 'forum_id', 'lock']) expect(c).not.toHaveProperty(hidden)
    expect(c).toHaveProperty('contract_address')
  })

  it('takes an upper-case id and answers it lower-case', async () => {
    const id = await createCollection(h.app, alice)
    const res = await call(h.app, alice, 'GET', `/v1/collections/${id.toUpperCase()}`)
    expect(res.json().data.id).toBe(id)
  })

  it('is 404 for an unknown id', async () => {
    refusal(await get(alice, randomUUID()), 404, 'not_found')
  })

  it('writes timestamps as toISOString does: UTC, milliseconds, microseconds cut off', async () => {
    const id = await createCollection(h.app, alice)
    await h.db.sql`
      update collections set created_at = '2026-01-02 03:04:05.678999+00', updated_at = '2026-07-08 23:59:59+02',
                             reviewed_at = '1999-12-31 23:59:59.9+00'
      where id = ${id}`
    const [stored] = await h.db.sql<{ created_at: Date; updated_at: Date; reviewed_at: Date }[]>`
      select created_at, updated_at, reviewed_at from collections where id = ${id}`
    const c = await read(alice, id)
    expect([c.created_at, c.updated_at, c.reviewed_at]).toEqual([
      '2026-01-02T03:04:05.678Z',
      '2026-07-08T21:59:59.000Z',
      '1999-12-31T23:59:59.900Z',
    ])
    expect(c.updated_at).toBe(stored!.updated_at.toISOString())
  })
})

describe('DELETE /v1/collections/{id}', () => {
  it('deletes the collection and its items together', async () => {
    const id = await createCollection(h.app, alice, { managers: [bob.address] })
    await createItem(h.app, alice, id)
    await createItem(h.app, alice, id)
    refusal(await call(h.app, carol, 'DELETE', `/v1/collections/${id}`), 403, 'forbidden')
    const res = await call(h.app, bob, 'DELETE', `/v1/collections/${id}`)
    expect(res.statusCode).toBe(204)
    refusal(await get(alice, id), 404)
    const [counted] = await h.db.sql<
      { count: number }[]
    >`select count(*)::int as count from items where collection_id = ${id}`
    expect(counted?.count).toBe(0)
    refusal(await call(h.app, bob, 'DELETE', `/v1/collections/${id}`), 404, 'not_found')
  })

  it('refuses a published collection (409)', async () => {
    const id = await createCollection(h.app, alice)
    await publishInDb(id)
    refusal(await call(h.app, alice, 'DELETE', `/v1/collections/${id}`), 409, 'collection_published')
  })
})

describe('lists', () => {
  let dave: Identity
  const marker = randomUUID().slice(0, 8)
  const ids: string[] = []
  beforeAll(async () => {
    dave = await createIdentity()
    // 5 published and 2 unpublished collections of dave, all carrying the marker in their names
    for (let i = 0; i < 7; i++) {
      ids.push(await createCollection(h.app, dave, { name: `Marker ${marker.toUpperCase()} ${i}` }))
    }
    for (const id of ids.slice(0, 5)) await publishInDb(id)
    await createCollection(h.app, bob, { name: `Mint ${marker}`, minters: [dave.address] })
    // dave also manages a third party, whose collections count as his
    const tp = `urn:decentraland:sepolia:collections-thirdparty:tp${marker}`
    await createCollection(h.app, bob, { name: 'Third-party drop', urn: `${tp}:drop` })
    await h.db
      .sql`update third_parties set managers = ${h.db.sql.array([bob.address, dave.address])} where id = ${tp}`
  })

  it('shows the committee every match with every field, newest first, searching case-insensitively', async () => {
    const res = await call(h.app, h.committee, 'GET', `/v1/collections?q=${marker}&limit=100`)
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body.pagination).toEqual({ page: 1, limit: 100, total: 8, pages: 1, next_cursor: null })
    expect(body.data[0].name).toBe(`Mint ${marker}`)
    expect(body.data[0]).toHaveProperty('salt')
    const published = await call(h.app, h.committee, 'GET', `/v1/collections?q=${marker}&is_published=false`)
    expect(published.json().pagination.total).toBe(3)
  })

  it('shows anybody else the published ones only, in the public view', async () => {
    const body = (await call(h.app, carol, 'GET', `/v1/collections?q=${marker.toUpperCase()}`)).json()
    expect(body.pagination.total).toBe(5)
    expect(body.data.every((c: Collection) => c.is_published && !('salt' in c) && !('lock' in c))).toBe(true)
    expect(
      (await call(h.app, carol, 'GET', `/v1/collections?q=${marker}&is_published=false`)).json().pagination
        .total,
    ).toBe(0)
  })

  it('pages with page and limit', async () => {
    const first = (await call(h.app, h.committee, 'GET', `/v1/collections?q=marker ${marker}&limit=3`)).json()
    expect(first.pagination).toMatchObject({ page: 1, limit: 3, total: 7, pages: 3 })
    expect(first.pagination.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(first.data).toHaveLength(3)
    const third = (
      await call(h.app, h.committee, 'GET', `/v1/collections?q=marker ${marker}&limit=3&page=3`)
    ).json()
    expect(third.data).toHaveLength(1)
    const all = new Set([...first.data, ...third.data].map((c: Collection) => c.id))
    expect(all.size).toBe(4)
    const past = (
      await call(h.app, h.committee, 'GET', `/v1/collections?q=marker ${marker}&limit=3&page=5`)
    ).json()
    expect(past).toMatchObject({ data: [], pagination: { page: 5, limit: 3, total: 7, pages: 3 } })
    const defaults = (await call(h.app, h.committee, 'GET', '/v1/collections')).json()
    expect(defaults.pagination).toMatchObject({ page: 1, limit: 20 })
  })

  it('tells the total of an unfiltered list from the kept counts, the same as counting the table', async () => {
    const [all] = await h.db.sql<{ n: number; published: number; addresses: number }[]>`
      select count(*)::int as n, (count(*) filter (where is_published))::int as published,
             (count(*) filter (where is_published and third_party_id is null))::int as addresses
      from collections`
    const total = async (res: Promise<{ json(): { pagination: { total: number } } }>) =>
      (await res).json().pagination.total
    expect(await total(call(h.app, h.committee, 'GET', '/v1/collections?limit=1'))).toBe(all!.n)
    expect(await total(call(h.app, carol, 'GET', '/v1/collections?limit=1'))).toBe(all!.published)
    expect(await total(h.app.inject({ method: 'GET', url: '/v1/addresses?limit=1&is_published=true' }))).toBe(
      all!.addresses,
    )
    const past = await call(h.app, h.committee, 'GET', `/v1/collections?limit=1&page=${all!.n + 5}`)
    expect(past.json()).toMatchObject({ data: [], pagination: { total: all!.n } })
  })

  it('treats every character of q literally, anywhere in the name, ignoring case', async () => {
    const names = [`It's a\\b: x & y* ${marker}`, `100% _cool_ ${marker}`, `Été Ñandú ${marker}`]
    const made = new Map<string, string>()
    for (const name of names) made.set(await createCollection(h.app, dave, { name }), name)
    const found = async (q: string) => {
      const res = await call(
        h.app,
        h.committee,
        'GET',
        `/v1/collections?q=${encodeURIComponent(q)}&limit=100`,
      )
      expect(res.statusCode).toBe(200)
      return (res.json().data as Collection[])
        .map((c) => c.name)
        .filter((name) => [...made.values()].includes(name))
    }
    expect(await found("t's a\\b: x &")).toEqual([names[0]])
    expect(await found('y* ')).toEqual([names[0]])
    expect(await found("'")).toEqual([names[0]])
    expect(await found('\\')).toEqual([names[0]])
    expect(await found('0% _c')).toEqual([names[1]])
    expect(await found('%_')).toEqual([])
    expect(await found('ÉTÉ ñ')).toEqual([names[2]])
    expect(await found(`ú ${marker}`)).toEqual([names[2]])
    expect((await found(marker)).sort()).toEqual([...names].sort())
    for (const id of made.keys()) await call(h.app, dave, 'DELETE', `/v1/collections/${id}`)
  })

  it('/v1/{address}/collections: owned, managed and minted for, to that address or the committee', async () => {
    const own = (await call(h.app, dave, 'GET', `/v1/${dave.address}/collections?limit=100`)).json()
    expect(own.pagination.total).toBe(9)
    expect(own.data.map((c: Collection) => c.name)).toContain('Third-party drop')
    expect(own.data[0]).toHaveProperty('salt')
    const checksummed = `0x${dave.address.slice(2).toUpperCase()}`
    expect(
      (await call(h.app, h.committee, 'GET', `/v1/${checksummed}/collections?limit=2&page=2`)).json(),
    ).toMatchObject({
      pagination: { page: 2, limit: 2, total: 9, pages: 5 },
    })
    refusal(await call(h.app, carol, 'GET', `/v1/${dave.address}/collections`), 403, 'forbidden')
  })

  it('/v1/addresses: contract addresses of standard collections, published by default, no auth, cached', async () => {
    const res = await h.app.inject({ method: 'GET', url: `/v1/addresses?q=${marker}&limit=100` })
    expect(res.statusCode).toBe(200)
    expect(res.headers['cache-control']).toBe('public, max-age=300')
    const body = res.json()
    expect(body.pagination.total).toBe(5)
    expect(body.data.every((a: string) => /^0x[0-9a-f]{40}$/.test(a))).toBe(true)
    expect(body.data).not.toContain((await read(dave, ids[6]!)).contract_address)
  })

  it('/v1/addresses shows nothing unpublished: is_published=false is an empty page, q finds no hidden name', async () => {
    const hidden = await read(dave, ids[6]!)
    expect(hidden.is_published).toBe(false)
    const addresses = async (query: string) => {
      const res = await h.app.inject({ method: 'GET', url: `/v1/addresses?${query}` })
      expect(res.statusCode).toBe(200)
      return res.json() as { data: string[]; pagination: { total: number } }
    }
    expect(await addresses(`q=${marker}&is_published=false`)).toMatchObject({
      data: [],
      pagination: { total: 0 },
    })
    expect(await addresses('is_published=false&limit=100')).toMatchObject({
      data: [],
      pagination: { total: 0 },
    })
    // no prefix oracle: a hidden name's prefixes find nothing, whichever way it is asked
    for (let n = 1; n <= hidden.name.length; n++) {
      const q = encodeURIComponent(hidden.name.slice(0, n))
      for (const flag of ['', '&is_published=false', '&is_published=true']) {
        expect((await addresses(`q=${q}${flag}&limit=100`)).data).not.toContain(hidden.contract_address)
      }
    }
  })
})
