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
import { keptAndCounted, keptAndCountedByReview } from './counts.js'
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

it('indexes name search by the suffixes of each name, so q stays fast on many collections', async () => {
  await seedCollections(db.sql, 2_000)
  // On a small table the planner rightly prefers scanning; forbidding that shows the index serves the
  // search. (bench/run.ts seeds 100,000 rows, where the planner picks the index by itself.)
  const plan = await db.sql.begin(async (tx) => {
    await tx`set local enable_seqscan = off`
    await tx`set local enable_indexscan = off`
    return tx.unsafe(
      "explain select c.id from collections c where collection_name_suffixes(c.name) @@ collection_name_prefix('samurai outfit') order by c.created_at desc limit 20",
    )
  })
  const text = plan.map((row) => Object.values(row)[0]).join('\n')
  expect(text).toContain('Bitmap Index Scan on collections_name_suffixes')
  // the index agrees with the definition of the search: a case-insensitive substring
  const [disagree] = await db.sql<{ n: number }[]>`
    select count(*)::int as n from collections c, (values ('samurai outfit'), ('AI OUT'), ('t 1'), ('99')) as t (q)
    where (collection_name_suffixes(c.name) @@ collection_name_prefix(t.q)) <> (strpos(lower(c.name), lower(t.q)) > 0)`
  expect(disagree!.n).toBe(0)
})

describe('the generic plans the service runs', () => {
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

  it('finds a search through the suffix index, never by walking created_at', async () => {
    for (const isPublished of [undefined, true]) {
      const text = await plan({ q: 'Samurai', isPublished })
      expect(text).toContain('Bitmap Index Scan on collections_name_suffixes')
      expect(text).not.toMatch(walksCreatedAt)
      expect(text).not.toContain('Seq Scan on collections')
    }
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
    expect(await plan({ q: 'Samurai', isApproved: true })).toContain('collections_name_suffixes')
    const member = await plan({ member: owner, pendingReview: true })
    expect(member).toContain('collections_eth_address')
    expect(member).not.toContain('Seq Scan on collections')
  })

  it("reads the committee's queue through an index of pending reviews or of names, never a scan", async () => {
    const queue = await planOf(pendingCurationsQuery(false), [20, 0])
    expect(queue).toContain('curations_pending_oldest')
    expect(queue).not.toContain('Seq Scan')
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
