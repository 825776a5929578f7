import { readdirSync } from 'node:fs'
import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrate } from '@genesis/common'
import { createTestDatabase, type TestDatabase } from '@genesis/common/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CollectionFilter, listQuery } from '../src/db/collections.js'
import { pendingCurationsQuery } from '../src/db/reviews.js'
import { COLLECTIONS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'
import { keptAndCounted, keptAndCountedByReview, keptAndCountedTerms } from './counts.js'
import { seedCollections } from './seed.js'

let db: TestDatabase
beforeAll(async () => {
  db = await createTestDatabase()
  await migrate(db.sql, migrationsDir)
})
afterAll(() => db.drop())

it('applies the migrations once, and again without harm', async () => {
  await migrate(db.sql, migrationsDir)
  const tables = await db.sql<{ table_name: string }[]>`
    select table_name from information_schema.tables where table_schema = 'public' order by table_name`
  expect(tables.map((t) => t.table_name)).toEqual(
    expect.arrayContaining([
      'collections',
      'items',
      'slot_usage_cheques',
      'third_parties',
      'tos_acceptances',
    ]),
  )
})

it('searches names through the table of their suffixes, which agrees with a case-insensitive substring', async () => {
  await seedCollections(db.sql, 2_000)
  await db.sql`
    insert into collections (id, name, eth_address, salt, contract_address, urn)
    select gen_random_uuid(), n, ${`0x${'0'.repeat(39)}2`}, '0x', '0x' || md5(n), 'urn:decentraland:sepolia:collections-v2:' || md5(n)
    from unnest(array['Ünïcode Straße', '100% _real_', 'ÀÉÎ ÕÜ', 'a''b\\c', 'x' || chr(1114111) || 'y']) as n`
  // the index agrees with the definition of the search: a case-insensitive substring
  const terms = [
    'samurai outfit',
    'AI OUT',
    't 1',
    '99',
    'straße',
    'ÜNÏ',
    '% _',
    '_r',
    "'b\\",
    String.fromCodePoint(0x10ffff),
    'éî õ',
  ]
  const [disagree] = await db.sql<{ n: number }[]>`
    select count(*)::int as n from collections c, unnest(${terms}::text[]) as t (q)
    where exists (select 1 from collection_name_suffixes s
                  where s.collection_id = c.id and s.suffix >= lower(t.q) collate "C"
                    and s.suffix < collection_name_prefix_end(lower(t.q)) collate "C")
          <> (strpos(lower(c.name), lower(t.q)) > 0)`
  expect(disagree!.n).toBe(0)
})

describe('the generic plans the service runs', () => {
  // as autovacuum leaves them: pages all-visible, which an index-only scan counts on
  beforeAll(async () => {
    await db.sql`vacuum analyze collections, collection_name_suffixes`
  })
  const owner = `0x${(7).toString(16).padStart(40, '0')}`
  const plan = async (filter: CollectionFilter) => {
    const query = listQuery(filter, { limit: 20, offset: 0 })
    return planOf(query.text, query.params)
  }
  const planOf = async (text: string, params: (string | number)[]) => {
    const query = { text, params }
    const args = query.params.map((p) => (typeof p === 'number' ? String(p) : `'${p}'`)).join(', ')
    const rows = await db.sql.begin(async (tx) => {
      for (const [name, value] of Object.entries(COLLECTIONS_DB_SETTINGS))
        await tx`select set_config(${name}, ${value}, true)`
      // on a small table scanning would be right; forbidding it shows which indexes the shape allows
      await tx`set local enable_seqscan = off`
      await tx.unsafe(`prepare list as ${query.text}`)
      const explained = await tx.unsafe(`explain execute list(${args})`)
      await tx`deallocate list`
      return explained
    })
    return rows.map((row) => Object.values(row)[0]).join('\n')
  }
  const walksCreatedAt = /Index Scan (Backward )?using collections_(published_)?created_at/

  it("reads a search's total kept or counts it in the suffix index alone, and reads its page by one of two ways the total decides", async () => {
    for (const filter of [{}, { isPublished: true }, { isPublished: false }, { standardOnly: true }]) {
      const text = await plan({ q: 'Samurai', ...filter })
      // the count, and the rare term's page: ranges of the suffix index, no row visited
      expect(text.match(/Index Only Scan using collection_name_suffixes_search/g)).toHaveLength(2)
      // the common term's page: created_at walked newest first; each way behind a one-time filter
      expect(text).toMatch(walksCreatedAt)
      expect(text.match(/One-Time Filter/g)).toHaveLength(2)
      expect(text).not.toContain('Seq Scan on collections ')
      expect(text).not.toContain('Seq Scan on collection_name_suffixes')
      // the page's rows only are read from collections, by key
      expect(text).toContain('Index Scan using collections_pkey')
      // a kept term's total: its keys in collection_term_counts
      expect(text).toContain('collection_term_counts_pkey')
    }
    // deeper pages by the cursor: the same range, then the rows after the cursor's
    const query = listQuery(
      { q: 'Samurai' },
      {
        limit: 20,
        offset: 0,
        after: { createdAt: '2026-01-01T00:00:00.000000Z', id: '00000000-0000-4000-8000-000000000007' },
      },
    )
    const after = await planOf(query.text, query.params)
    expect(after).toContain('Index Only Scan using collection_name_suffixes_search')
  })

  it("finds a member's collections through the owner, managers and minters indexes", async () => {
    const text = await plan({ member: owner })
    for (const index of ['collections_eth_address', 'collections_managers', 'collections_minters'])
      expect(text).toContain(index)
    expect(text).not.toContain('Seq Scan on collections')
    expect(text).not.toContain('Gather')
  })

  it('walks the partial index of a review filter that selects few, its total from collection_counts', async () => {
    // a catalogue where few collections are approved, reviewed or waiting for review
    await db.sql`update collections set is_approved = true, reviewed_at = created_at where name like '%7'`
    await db.sql`update collections set pending_review = true where name like '%13'`
    await db.sql`analyze collections`
    const cases: [CollectionFilter, string][] = [
      [{ isApproved: true }, 'collections_approved_created_at'],
      [{ isPublished: true, isApproved: true }, 'collections_approved_created_at'],
      [{ reviewed: true }, 'collections_reviewed_created_at'],
      [{ isPublished: true, reviewed: true }, 'collections_reviewed_created_at'],
      [{ pendingReview: true }, 'collections_pending_review_created_at'],
      [{ isPublished: true, pendingReview: true }, 'collections_pending_review_created_at'],
    ]
    for (const [filter, index] of cases) {
      const text = await plan(filter)
      expect(text, JSON.stringify(filter)).toContain(index)
      expect(text).toContain('collection_counts')
      expect(text).not.toContain('Seq Scan on collections ')
    }
    // with a search or a member, the narrowing index still comes first
    expect(await plan({ q: 'Samurai', isApproved: true })).toContain('collection_name_suffixes_search')
    const member = await plan({ member: owner, pendingReview: true })
    expect(member).toContain('collections_eth_address')
    expect(member).not.toContain('Seq Scan on collections')
  })

  it("reads the committee's queue through an index of pending reviews or of names, never a scan", async () => {
    const queue = await planOf(pendingCurationsQuery(false), [20, 0])
    expect(queue).toContain('curations_pending_oldest')
    // its total from the kept counts (32 rows), not a count of the queue
    expect(queue).toContain('collection_counts')
    expect(queue).not.toMatch(/Seq Scan on (curations|collections)/)
    // a search starts from what is pending (few): the pending reviews, or the collections waiting for review
    // intersected with the name suffixes (the plan on 100,000 collections, BENCHMARKS.md)
    const searched = await planOf(pendingCurationsQuery(true), [20, 0, 'samurai'])
    expect(searched).toMatch(
      /curations_one_pending|curations_pending_oldest|collections_pending_review_created_at/,
    )
    expect(searched).not.toContain('Seq Scan')
  })

  it('walks created_at for an unnarrowed page, its total read from collection_counts', async () => {
    const text = await plan({ isPublished: true })
    expect(text).toMatch(/Index Scan using collections_published_created_at/)
    expect(text).toContain('collection_counts')
    expect(text).not.toContain('Seq Scan on collections ')
  })
})

it('fills the name suffixes of the collections already there, then follows inserts, renames, publications and deletes', async () => {
  const before = await createTestDatabase()
  const upTo5 = await mkdtemp(join(tmpdir(), 'collections-migrations-'))
  const suffixesAgree = async () => {
    const [row] = await before.sql<{ n: number }[]>`
      with expected as (
        select c.id, i, substr(lower(c.name), i) as suffix, c.created_at, c.is_published, c.third_party_id is null as standard
        from collections c, generate_series(1, char_length(c.name)) as i
      ), kept as (
        select collection_id, position::int, suffix::text, created_at, is_published, is_standard from collection_name_suffixes
      )
      select count(*)::int as n from ((select * from expected except all select * from kept)
                                      union all (select * from kept except all select * from expected)) as d`
    return row!.n
  }
  try {
    for (const entry of [
      '00001_initial',
      '00002_collection_counts',
      '00003_name_suffix_search',
      '00004_curations',
      '00005_answers_version',
    ]) {
      await cp(join(migrationsDir, entry), join(upTo5, entry), { recursive: true })
    }
    await migrate(before.sql, upTo5)
    await seedCollections(before.sql, 2_500)
    await migrate(before.sql, migrationsDir)
    const [filled] = await before.sql<
      { n: number }[]
    >`select count(distinct collection_id)::int as n from collection_name_suffixes`
    expect(filled!.n).toBe(2_500)
    expect(await suffixesAgree()).toBe(0)

    await before.sql`insert into third_parties (id, managers) values ('urn:decentraland:sepolia:collections-thirdparty:tp', '{0xabc}')`
    await before.sql`
      insert into collections (id, name, eth_address, urn, third_party_id, urn_suffix)
      select gen_random_uuid(), 'TP ' || n, ${`0x${'1'.repeat(40)}`},
             'urn:decentraland:sepolia:collections-thirdparty:tp:' || n,
             'urn:decentraland:sepolia:collections-thirdparty:tp', n::text
      from generate_series(1, 7) as n`
    await before.sql`update collections set is_published = true where not is_published and name like '%1'`
    await before.sql`update collections set name = name || ' x' where name like '%2'`
    await before.sql`update collections set name = left(name, 3) || ' ' || md5(name) where name like '%6'`
    await before.sql`update collections set is_approved = true, lock = now() where name like '%7'`
    await before.sql`delete from collections where name like '%3'`
    expect(await suffixesAgree()).toBe(0)
    // the index is gone, the search functions of the previous version stay (a replica not yet replaced)
    const [gin] = await before.sql<
      { index: string | null }[]
    >`select to_regclass('collections_name_suffixes')::text as index`
    expect(gin!.index).toBeNull()
  } finally {
    await rm(upTo5, { recursive: true, force: true })
    await before.drop()
  }
})

it('adds the kept term counts to a populated table without waiting for its readers, then keeps terms exactly', async () => {
  const before = await createTestDatabase()
  const upTo8 = await mkdtemp(join(tmpdir(), 'collections-migrations-'))
  try {
    for (const entry of readdirSync(migrationsDir).filter((e) => e < '00009')) {
      await cp(join(migrationsDir, entry), join(upTo8, entry), { recursive: true })
    }
    await migrate(before.sql, upTo8)
    await seedCollections(before.sql, 3_000)
    // a long read of collections stays open through the migration: nothing in it waits for one
    const reader = await before.sql.reserve()
    try {
      await reader`begin`
      await reader`select count(*) from collections`
      await migrate(before.sql, migrationsDir)
      await reader`commit`
    } finally {
      reader.release()
    }
    const [table] = await before.sql<{ n: number }[]>`select count(*)::int as n from collection_term_counts`
    expect(table!.n).toBe(0)
    const [kept] = await before.sql<
      { kept: boolean }[]
    >`select collection_term_counts_keep('Racer', 10) as kept`
    expect(kept!.kept).toBe(true)
    await before.sql`update collections set name = 'racer ' || name where name like '%5'`
    await before.sql`delete from collections where name like '%Racer%7'`
    const terms = await keptAndCountedTerms(before.sql)
    expect(terms.kept).toEqual(terms.counted)
    expect(terms.kept.reduce((n, k) => n + k.n, 0)).toBeGreaterThan(100)
  } finally {
    await rm(upTo8, { recursive: true, force: true })
    await before.drop()
  }
})

it('keeps standard names unique ignoring case and blanks, in the database itself', async () => {
  const insert = (name: string, n: number) => db.sql`
    insert into collections (id, name, eth_address, salt, contract_address, urn)
    values (gen_random_uuid(), ${name}, ${`0x${'0'.repeat(39)}1`}, '0x', ${`0x${String(n).padStart(40, '0')}`},
            ${`urn:decentraland:sepolia:collections-v2:${n}`})`
  await insert('Unique Name', 1)
  await expect(insert('UNIQUE name', 2)).rejects.toMatchObject({
    code: '23505',
    constraint_name: 'collections_standard_name_key',
  })
})

it('starts collection_counts from the rows already there, then follows inserts, updates and deletes', async () => {
  const before = await createTestDatabase()
  const firstOnly = await mkdtemp(join(tmpdir(), 'collections-migrations-'))
  try {
    await cp(join(migrationsDir, '00001_initial'), join(firstOnly, '00001_initial'), { recursive: true })
    await migrate(before.sql, firstOnly)
    await seedCollections(before.sql, 300)
    await migrate(before.sql, migrationsDir)
    let { kept, counted } = await keptAndCounted(before.sql)
    expect(kept).toEqual(counted)
    expect(kept.find((k) => k.is_published && k.is_standard)?.n).toBe(240)

    await before.sql`insert into third_parties (id, managers) values ('urn:decentraland:sepolia:collections-thirdparty:tp', '{0xabc}')`
    await before.sql`
      insert into collections (id, name, eth_address, urn, third_party_id, urn_suffix)
      select gen_random_uuid(), 'TP ' || n, ${`0x${'1'.repeat(40)}`},
             'urn:decentraland:sepolia:collections-thirdparty:tp:' || n,
             'urn:decentraland:sepolia:collections-thirdparty:tp', n::text
      from generate_series(1, 7) as n`
    await before.sql`update collections set is_published = true where not is_published and name like '%1'`
    await before.sql`update collections set name = name || ' x' where name like '%2'`
    await before.sql`delete from collections where name like '%3'`
    ;({ kept, counted } = await keptAndCounted(before.sql))
    expect(kept).toEqual(counted)
    // the review state (00004) moves collections between keys too
    await before.sql`update collections set is_approved = true, reviewed_at = now() where name like '%4'`
    await before.sql`update collections set pending_review = true where name like '%5'`
    await before.sql`update collections set pending_review = false, reviewed_at = now() where name like '%25'`
    const byReview = await keptAndCountedByReview(before.sql)
    expect(byReview.kept).toEqual(byReview.counted)
    expect(byReview.kept.filter((k) => k.is_approved).reduce((n, k) => n + k.n, 0)).toBeGreaterThan(0)
    expect(kept.find((k) => !k.is_standard && k.is_published)?.n).toBe(1)
    await before.sql`truncate collections cascade`
    ;({ kept, counted } = await keptAndCounted(before.sql))
    expect(kept).toEqual(counted)
  } finally {
    await rm(firstOnly, { recursive: true, force: true })
    await before.drop()
  }
})
