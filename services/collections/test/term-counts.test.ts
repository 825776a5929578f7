import { migrate } from '@genesis/common'
import { createTestDatabase, requireRealPostgres, type TestDatabase } from '@genesis/common/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { KEEP_FROM, KEPT_TERMS_MAX, keepTermCount, touchKeptTerm } from '../src/db/term-counts.js'
import { migrationsDir } from '../src/paths.js'
import { keptAndCountedTerms } from './counts.js'
import { call, createCollection, createIdentity, randomUUID, uniqueName, useHarness } from './helpers.js'
import { seedCollections } from './seed.js'

describe('a common term kept by the writes', () => {
  const h = useHarness()
  /** In most seeded names ("<style> <theme> <kind> <n>"): more matches than KEEP_FROM. */
  const COMMON = 'e'
  beforeAll(async () => {
    await seedCollections(h.db.sql, 2_500)
  })

  const list = async (query: string, who = h.committee) => {
    const res = await call(h.app, who, 'GET', `/v1/collections?${query}`)
    expect(res.statusCode).toBe(200)
    return res.json() as { data: { id: string }[]; pagination: { total: number; next_cursor: string | null } }
  }
  const addresses = async (query: string) => {
    const res = await h.app.inject({ method: 'GET', url: `/v1/addresses?${query}` })
    expect(res.statusCode).toBe(200)
    return res.json() as { data: string[]; pagination: { total: number } }
  }

  it('answers every list of the term as counting did, once three addresses searched it and its count is kept', async () => {
    const anybody = await createIdentity()
    const queries: [string, typeof anybody][] = [
      [`q=${COMMON}`, h.committee],
      [`q=${COMMON.toUpperCase()}&is_published=false`, h.committee],
      [`q=${COMMON}&is_published=true&limit=7&page=3`, h.committee],
      [`q=${COMMON}`, anybody],
    ]
    const counted = await Promise.all(queries.map(([query, who]) => list(query, who)))
    expect(counted[0]!.pagination.total).toBeGreaterThanOrEqual(KEEP_FROM)
    const countedAddresses = await addresses(`q=${COMMON}&limit=5`)
    // one address alone keeps nothing, however often it asks
    expect(await h.db.sql`select 1 from collection_terms where term = ${COMMON}`).toHaveLength(0)

    // searched from two more addresses, the next search starts keeping it, in the background
    for (const [i, remoteAddress] of ['198.51.100.1', '198.51.100.2'].entries()) {
      const res = await h.app.inject({
        method: 'GET',
        url: `/v1/addresses?q=${COMMON}&limit=${2 + i}`,
        remoteAddress,
      })
      expect(res.statusCode).toBe(200)
    }
    await expect
      .poll(async () => (await h.db.sql`select 1 from collection_term_counts where term = ${COMMON}`).length)
      .toBe(4)
    expect(await keepTermCount(h.db.sql, COMMON)).toBe(true)
    const { kept, counted: recount } = await keptAndCountedTerms(h.db.sql)
    expect(kept.map((k) => k.term)).toEqual([COMMON, COMMON, COMMON, COMMON])
    expect(kept).toEqual(recount)

    // a statement on collections, writing nothing, moves the answers version: the lists are built anew
    await h.db.sql`update collections set name = name where false`
    const read = await Promise.all(queries.map(([query, who]) => list(query, who)))
    expect(read).toEqual(counted)
    expect(await addresses(`q=${COMMON}&limit=5`)).toEqual(countedAddresses)
    // a rare term is counted each time, and not kept
    expect((await list('q=samurai outfit 1')).pagination.total).toBeLessThan(KEEP_FROM)
    expect(await h.db.sql`select 1 from collection_term_counts where term <> ${COMMON}`).toHaveLength(0)
  })

  it('follows creates, renames and deletes through the service, and the totals with them', async () => {
    const owner = await createIdentity()
    const before = (await list(`q=${COMMON}`)).pagination.total
    const made = await Promise.all(
      Array.from({ length: 4 }, (_, i) => createCollection(h.app, owner, { name: uniqueName(`Zebra ${i}`) })),
    )
    // "Zebra": one more match each, even with more than one "e" in the name
    expect((await list(`q=${COMMON}`)).pagination.total).toBe(before + 4)
    const rename = (id: string, name: string) =>
      call(h.app, owner, 'PUT', `/v1/collections/${id}`, { id, name }).then((r) => r.statusCode)
    expect(await rename(made[0]!, uniqueName('Tiger'))).toBe(204) // still holds it
    expect(await rename(made[1]!, `Potato ${randomUUID().slice(0, 8).replace(/e/g, 'a')}`)).toBe(204)
    expect((await call(h.app, owner, 'DELETE', `/v1/collections/${made[2]}`)).statusCode).toBe(204)
    expect((await list(`q=${COMMON}`)).pagination.total).toBe(before + 2)
    const { kept, counted } = await keptAndCountedTerms(h.db.sql)
    expect(kept).toEqual(counted)
  })

  it('stays exact while creates, renames and deletes race with each other and with keeping new terms', async (ctx) => {
    // On the PGlite stand-in every request runs one after another: nothing would race.
    requireRealPostgres(ctx, h.db)
    const owners = await Promise.all(Array.from({ length: 4 }, () => createIdentity()))
    for (let round = 0; round < 5; round++) {
      // a word of its own each round, kept (with its prefixes) while the writes run
      const word = `qx${round}${randomUUID()
        .slice(0, 4)
        .replace(/[^a-z]/g, 'k')}`
      const terms = [word, word.slice(0, 4), word.slice(1, 5)]
      const named = (i: number) => `${i % 2 === 0 ? word.toUpperCase() : word} Item ${round}-${i}`
      const ids = await Promise.all(
        Array.from({ length: 16 }, (_, i) => createCollection(h.app, owners[i % 4]!, { name: named(i) })),
      )
      const writes = ids.flatMap((id, i) => {
        const owner = owners[i % 4]!
        switch (i % 4) {
          case 0:
            return [call(h.app, owner, 'DELETE', `/v1/collections/${id}`)]
          case 1:
            // out of the terms, then a create with them
            return [
              call(h.app, owner, 'PUT', `/v1/collections/${id}`, { id, name: uniqueName('Plain') }),
              (async () => {
                const fresh = randomUUID()
                return call(h.app, owner, 'PUT', `/v1/collections/${fresh}`, {
                  id: fresh,
                  name: `${word}${word} twice ${round}-${i}`,
                })
              })(),
            ]
          case 2:
            // within the terms: the count stays
            return [call(h.app, owner, 'PUT', `/v1/collections/${id}`, { id, name: `${named(i)} renamed` })]
          default:
            return [
              call(h.app, owner, 'PUT', `/v1/collections/${id}`, { id, name: `the ${word} renamed ${i}` }),
            ]
        }
      })
      let settled = false
      const done = Promise.all(writes).finally(() => {
        settled = true
      })
      // Each term is asked for again and again while the writes run (a keep gives up after its 100 ms lock
      // timeout); on a loaded machine every try may lose, so once the writes are over it is asked once more.
      const keeping = terms.map(async (term, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 3))
        while (!settled) {
          if (await keepTermCount(h.db.sql, term, { retry: true })) return true
        }
        return keepTermCount(h.db.sql, term, { retry: true })
      })
      const statuses = (await done).map((r) => r.statusCode)
      expect(statuses.every((s) => s === 204)).toBe(true)
      expect(await Promise.all(keeping)).toEqual([true, true, true])
      const { kept, counted } = await keptAndCountedTerms(h.db.sql)
      expect(kept).toEqual(counted)
      // and the service answers the counts a search would
      for (const term of terms) {
        const total = (await list(`q=${term}`)).pagination.total
        expect(total).toBe(counted.filter((c) => c.term === term).reduce((n, c) => n + c.n, 0))
      }
    }
  })
})

describe('collection_term_counts under every kind of write', () => {
  let db: TestDatabase
  beforeAll(async () => {
    db = await createTestDatabase()
    await migrate(db.sql, migrationsDir)
    await seedCollections(db.sql, 1_500)
  })
  afterAll(() => db.drop())

  const exact = async () => {
    const { kept, counted } = await keptAndCountedTerms(db.sql)
    expect(kept).toEqual(counted)
    return kept
  }
  const keep = async (term: string, most = 1_000) =>
    (await db.sql<{ kept: boolean }[]>`select collection_term_counts_keep(${term}, ${most}) as kept`)[0]!.kept

  it('keeps the terms it is asked for, up to the bound, each once', async () => {
    expect(await keep('Racer')).toBe(true)
    expect(await keep('racer')).toBe(true)
    expect(await keep('ninja')).toBe(true)
    expect(await keep('pixel', 2)).toBe(false)
    const kept = await exact()
    expect(kept.map((k) => k.term)).toEqual([...Array(4).fill('ninja'), ...Array(4).fill('racer')])
    expect(kept.reduce((n, k) => n + k.n, 0)).toBeGreaterThan(0)
  })

  it('keeps no term past the bound, and does not ask again for a term it could not keep for a while', async () => {
    const fillers = Array.from({ length: KEPT_TERMS_MAX }, (_, i) => `filler ${i}`)
    await db.sql`insert into collection_terms (term) select unnest(${fillers}::text[])`
    try {
      expect(await keepTermCount(db.sql, 'wizard')).toBe(false)
    } finally {
      await db.sql`delete from collection_terms where term like 'filler %'`
    }
    // room again, but the searches of the next minute do not ask
    expect(await keepTermCount(db.sql, 'wizard')).toBe(false)
    expect(await keepTermCount(db.sql, 'wizard', { retry: true })).toBe(true)
    await exact()
  })

  it("gives a full table's places to new terms once kept ones stop being asked, never while they are asked", async () => {
    const fillers = Array.from({ length: KEPT_TERMS_MAX }, (_, i) => `stale ${i}`)
    await db.sql`insert into collection_terms (term) select unnest(${fillers}::text[])`
    await db.sql`insert into collection_term_counts (term, is_published, is_standard, n)
                 select unnest(${fillers}::text[]), true, true, 0`
    try {
      // all of them asked lately: no place
      expect(await keepTermCount(db.sql, 'paladin', { retry: true })).toBe(false)
      // none asked for eight days: they go, with their counts, and the new term is kept
      await db.sql`update collection_terms set last_asked_at = now() - interval '8 days' where term like 'stale %'`
      // but one of them is read meanwhile: it stays
      touchKeptTerm(db.sql, 'STALE 7')
      await expect
        .poll(
          async () =>
            (
              await db.sql`select 1 from collection_terms where term = 'stale 7' and last_asked_at > now() - interval '1 minute'`
            ).length,
        )
        .toBe(1)
      expect(await keepTermCount(db.sql, 'paladin', { retry: true })).toBe(true)
      const left = await db.sql<
        { term: string }[]
      >`select term from collection_terms where term like 'stale %'`
      expect(left.map((r) => r.term)).toEqual(['stale 7'])
      expect(
        await db.sql`select 1 from collection_term_counts where term like 'stale %' and term <> 'stale 7'`,
      ).toHaveLength(0)
    } finally {
      await db.sql`delete from collection_term_counts where term like 'stale %'`
      await db.sql`delete from collection_terms where term like 'stale %'`
    }
    await exact()
  })

  it('follows bulk inserts, third-party collections, publications, renames, other updates, deletes and truncation', async () => {
    await keep('é ß')
    await keep('r 1')
    await keep(' ')
    await exact()
    await db.sql`insert into third_parties (id, managers) values ('urn:decentraland:sepolia:collections-thirdparty:tp', '{0xabc}')`
    await db.sql`
      insert into collections (id, name, eth_address, urn, third_party_id, urn_suffix)
      select gen_random_uuid(), 'Racer Ninja RACER ' || n, ${`0x${'1'.repeat(40)}`},
             'urn:decentraland:sepolia:collections-thirdparty:tp:' || n,
             'urn:decentraland:sepolia:collections-thirdparty:tp', n::text
      from generate_series(1, 7) as n`
    await db.sql`
      insert into collections (id, name, eth_address, salt, contract_address, urn)
      select gen_random_uuid(), n, ${`0x${'0'.repeat(39)}2`}, '0x', '0x' || md5(n), 'urn:decentraland:sepolia:collections-v2:' || md5(n)
      from unnest(array['Thé ß', 'THÉ SS', 'Racer', 'RaCeRaCeR']) as n`
    await exact()
    await db.sql`update collections set is_published = true where not is_published and name like '%1'`
    await db.sql`update collections set name = name || ' racer' where name like '%2'`
    await db.sql`update collections set name = replace(name, 'Racer', 'Rover') where name like '%Racer%3'`
    await db.sql`update collections set is_approved = true, lock = now() where name like '%7'`
    await db.sql`update collections set name = 'racer ' || name, is_published = not is_published where name like '%8'`
    await exact()
    await db.sql`delete from collections where name like '%3' or name like 'Racer Ninja%'`
    await exact()
    await db.sql`truncate collections cascade`
    const kept = await exact()
    expect(kept.every((k) => k.n === 0)).toBe(true)
  })
})
