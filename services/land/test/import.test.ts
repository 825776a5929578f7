import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { requireRealPostgres } from '@genesis/common/testing'
import { useTestDatabase } from '@genesis/common/testing/vitest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { importPaths } from '../src/import.js'
import { dataDir, migrationsDir, packageRoot } from '../src/paths.js'

const db = useTestDatabase({ migrationsDir })
let dir: string

const DISTRICT = '11111111-2222-4333-8444-555555555555'
const OTHER_DISTRICT = '66666666-7777-4888-8999-aaaaaaaaaaaa'
const ALICE = '0xa11ce00000000000000000000000000000000001'
const BOB = '0xb0b0000000000000000000000000000000000002'
const hash = (digit: string) => `0x${digit.repeat(64)}`

function write(name: string, content: string): string {
  const path = join(dir, name)
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, content)
  return path
}

/** A fingerprint of everything the import can change. */
async function state() {
  const [row] = await db.sql<Array<{ digest: string }>>`
    select md5(
      (select coalesce(string_agg(d::text, '|' order by d.id), '') from (select id, name, description, link, public from districts) d) ||
      (select coalesce(string_agg(e::text, '|' order by e.id), '') from (select id, owner, name, description, district_id, tx_hash, last_transferred_at from estates) e) ||
      (select coalesce(string_agg(p::text, '|' order by p.x, p.y), '') from (select x, y, owner, district_id, estate_id, data_version, name, description, ipns, auction_price, auction_owner, last_transferred_at from parcels) p) ||
      (select coalesce(string_agg(p::text, '|' order by p.tx_hash), '') from (select tx_hash, tx_status, owner, price, status, buyer, contract_id, block_number, expires_at, block_time_created_at, block_time_updated_at, type, asset_id, marketplace_id from publications) p) ||
      (select coalesce(string_agg(c::text, '|' order by c.address, c.district_id, c.land_count), '') from (select address, district_id, land_count from contributions) c)
    ) as digest`
  return row!.digest
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'land-import-'))
})
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
})

const publication = (over: Record<string, unknown>) => ({
  tx_hash: hash('1'),
  tx_status: 'confirmed',
  owner: ALICE,
  price: 1500,
  status: 'open',
  buyer: null,
  contract_id: '0xf87e31492faf9a91b02ee0deaad50d51d56d5d4d',
  block_number: 15_000_000,
  expires_at: Date.UTC(2035, 0, 1),
  block_time_created_at: Date.UTC(2024, 0, 1),
  block_time_updated_at: null,
  type: 'parcel',
  asset_id: '3,4',
  marketplace_id: '0x8e5660b4ab70168b5a6feea0e0315cb49c8cd539',
  ...over,
})

describe('a valid import', () => {
  it('writes the five kinds from JSON (object and array forms) and NDJSON, in one go', async () => {
    const good = join(dir, 'good')
    write(
      'good/01-districts.json',
      JSON.stringify(
        {
          districts: [
            {
              id: DISTRICT,
              name: 'Test Gardens',
              description: 'A test district',
              parcels: ['10,10', '11,10'],
            },
          ],
        },
        null,
        2,
      ),
    )
    write(
      'good/estates.json',
      JSON.stringify([
        {
          id: '900',
          owner: BOB.toUpperCase().replace('0X', '0x'),
          data: {
            name: 'Twin',
            parcels: [
              { x: 1, y: 1 },
              { x: 2, y: 1 },
            ],
          },
        },
      ]),
    )
    write(
      'good/parcels.ndjson',
      [
        JSON.stringify({
          x: 3,
          y: 4,
          owner: ALICE,
          data: { version: 1, name: 'Corner', description: '', ipns: '' },
        }),
        '',
        JSON.stringify({
          x: 1,
          y: 1,
          owner: BOB,
          estate_id: '900',
          auction_price: 12000,
          auction_owner: BOB,
        }),
        JSON.stringify({ x: 2, y: 1, owner: BOB }),
      ].join('\n'),
    )
    write(
      'good/more.ndjson',
      [
        JSON.stringify({ kind: 'publication', ...publication({}) }),
        JSON.stringify({
          kind: 'publications',
          ...publication({ tx_hash: hash('2'), type: 'estate', asset_id: '900', owner: BOB }),
        }),
        JSON.stringify({ kind: 'contribution', address: ALICE, district_id: DISTRICT, land_count: '7' }),
      ].join('\n'),
    )
    const result = await importPaths(db.sql, [good])
    expect(result.problems).toEqual([])
    expect(result.written).toBe(true)
    expect(result.counts).toEqual({ districts: 1, estates: 1, parcels: 3, publications: 2, contributions: 1 })

    const parcels =
      await db.sql`select x, y, owner, estate_id, district_id::text as district_id, name from parcels
      where (x, y) in ((3, 4), (1, 1), (2, 1), (10, 10), (11, 10)) order by x, y`
    expect(parcels).toEqual([
      { x: 1, y: 1, owner: BOB, estate_id: '900', district_id: null, name: '' },
      { x: 2, y: 1, owner: BOB, estate_id: '900', district_id: null, name: '' },
      { x: 3, y: 4, owner: ALICE, estate_id: null, district_id: null, name: 'Corner' },
      { x: 10, y: 10, owner: null, estate_id: null, district_id: DISTRICT, name: '' },
      { x: 11, y: 10, owner: null, estate_id: null, district_id: DISTRICT, name: '' },
    ])
    const [estate] = await db.sql`select owner, name from estates where id = '900'`
    expect(estate).toEqual({ owner: BOB, name: 'Twin' })
    const [{ n }] = (await db.sql`select count(*)::int as n from parcels`) as unknown as [{ n: number }]
    expect(n).toBe(90_601)

    // Importing the same files again changes nothing.
    const before = await state()
    const again = await importPaths(db.sql, [good])
    expect(again.written).toBe(true)
    expect(await state()).toBe(before)
  })

  it('imports the real districts.json of the service as published upstream', async () => {
    const result = await importPaths(db.sql, [join(dataDir, 'districts.json')])
    expect(result.problems).toEqual([])
    expect(result.counts.districts).toBe(42)
    const [row] = await db.sql<
      Array<{ n: number }>
    >`select count(*)::int as n from parcels where district_id is not null
      and district_id <> ${DISTRICT}`
    expect(row!.n).toBe(46_121)
  })
})

describe('an invalid import', () => {
  it('reports every bad row with its file and line, and writes nothing', async () => {
    const before = await state()
    const bad = join(dir, 'bad')
    const parcelsJson = write(
      'bad/parcels.json',
      `[
  { "x": 5, "y": 5, "owner": "${ALICE}" },
  { "x": 151, "y": 0 },
  {
    "x": 6,
    "y": 6,
    "owner": "not an address"
  },
  { "x": 7, "y": 7, "estate_id": "does-not-exist" },
  { "x": 5, "y": 5 },
  { "x": 8, "y": 8, "colour": "red" }
]
`,
    )
    const mixed = write(
      'bad/mixed.ndjson',
      [
        JSON.stringify({ kind: 'contributions', address: ALICE, district_id: OTHER_DISTRICT, land_count: 1 }),
        '{ not json',
        JSON.stringify({ kind: 'publications', ...publication({ tx_hash: hash('3'), asset_id: '200,0' }) }),
        JSON.stringify({ kind: 'publications', ...publication({ tx_hash: hash('4'), status: 'listed' }) }),
        JSON.stringify({ kind: 'wearables', id: 1 }),
        // Moving a parcel to another estate is an update; giving it to two estates at once is not.
        JSON.stringify({ kind: 'estates', id: '901', data: { parcels: [{ x: 1, y: 1 }] } }),
        JSON.stringify({ kind: 'estates', id: '902', data: { parcels: [{ x: 1, y: 1 }] } }),
      ].join('\n'),
    )
    const broken = write('bad/districts.json', '{\n  "districts": [\n    { "id": "x" \n  ]\n}')
    const result = await importPaths(db.sql, [bad])
    expect(result.written).toBe(false)
    const where = result.problems.map((p) => `${p.file}:${p.line}`)
    expect(where).toEqual(
      expect.arrayContaining([
        `${parcelsJson}:3`,
        `${parcelsJson}:4`,
        `${parcelsJson}:9`,
        `${parcelsJson}:10`,
        `${parcelsJson}:11`,
        `${mixed}:1`,
        `${mixed}:2`,
        `${mixed}:3`,
        `${mixed}:4`,
        `${mixed}:5`,
        `${mixed}:7`,
      ]),
    )
    expect(where.some((w) => w.startsWith(`${broken}:`))).toBe(true)
    const text = result.problems.map((p) => p.message).join('\n')
    expect(text).toContain('/x')
    expect(text).toContain('unknown estate_id does-not-exist')
    expect(text).toContain('duplicate parcel 5,5')
    expect(text).toContain('colour')
    expect(text).toContain(`unknown district_id ${OTHER_DISTRICT}`)
    expect(text).toContain('200,0')
    expect(text).toContain('unknown record kind')
    expect(text).toContain('also in estate 901')
    expect(where).not.toContain(`${mixed}:6`)
    // The one valid parcel row was not written either.
    expect(await state()).toBe(before)
  })

  it('exits non-zero from the command line and prints file:line for each problem', (ctx) => {
    requireRealPostgres(ctx, db)
    const file = write(
      'cli/parcels.ndjson',
      `${JSON.stringify({ x: 0, y: 0 })}\n${JSON.stringify({ x: 0, y: 999 })}\n`,
    )
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(packageRoot, 'src/import.ts'), file], {
      cwd: packageRoot,
      env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent' },
      encoding: 'utf8',
    })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain(`${file}:2:`)
    expect(run.stderr).toContain('Nothing imported')
  })
})
