import { createHash } from 'node:crypto'
import { useTestDatabase } from '@genesis/common/testing/vitest'
import { beforeAll, describe, expect, it } from 'vitest'
import { PLAZA_DISTRICT_ID, ROAD_DISTRICT_ID } from '../src/domain/constants.js'
import { cellIndex } from '../src/domain/geometry.js'
import { migrationsDir } from '../src/paths.js'
import { generateGenesisCity, readSourceData, type SeedSet } from '../src/seed/genesis-city.js'
import { seed } from '../src/seed.js'

let set: SeedSet
beforeAll(() => {
  set = generateGenesisCity(readSourceData())
})

const fingerprint = (s: SeedSet) => createHash('sha256').update(JSON.stringify(s)).digest('hex')

describe('the Genesis City demo set', () => {
  it('is deterministic', () => {
    expect(fingerprint(generateGenesisCity(readSourceData()))).toBe(fingerprint(set))
  })

  it('has every parcel of the grid once, and the real district layout', () => {
    expect(set.parcels).toHaveLength(90_601)
    expect(new Set(set.parcels.map((p) => cellIndex(p.x, p.y))).size).toBe(90_601)
    const inDistricts = set.parcels.filter((p) => p.district_id !== null)
    expect(inDistricts).toHaveLength(46_121)
    expect(inDistricts.filter((p) => p.district_id === ROAD_DISTRICT_ID)).toHaveLength(9438)
    expect(inDistricts.filter((p) => p.district_id === PLAZA_DISTRICT_ID)).toHaveLength(3588)
    expect(set.districts).toHaveLength(42)
    expect(inDistricts.filter((p) => p.auction_price !== null || p.owner === null)).toEqual([])
  })

  it('leaves a few percent of the other parcels unowned', () => {
    const free = set.parcels.filter((p) => p.district_id === null)
    const share = free.filter((p) => p.owner === null).length / free.length
    expect(share).toBeGreaterThan(0.02)
    expect(share).toBeLessThan(0.07)
  })

  it('groups owned parcels into a few hundred contiguous estates, some large', () => {
    expect(set.estates.length).toBeGreaterThanOrEqual(200)
    expect(set.estates.length).toBeLessThanOrEqual(500)
    const members = new Map<string, Array<{ x: number; y: number; owner: string | null }>>()
    for (const p of set.parcels) {
      if (p.estate_id === null) continue
      expect(p.district_id).toBeNull()
      members.set(p.estate_id, [...(members.get(p.estate_id) ?? []), p])
    }
    const sizes = set.estates.map((e) => members.get(e.id)?.length ?? 0)
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(2)
    expect(sizes.filter((n) => n >= 100).length).toBeGreaterThanOrEqual(3)
    for (const estate of set.estates) {
      const cells = members.get(estate.id)!
      expect(cells.every((p) => p.owner === estate.owner)).toBe(true)
      // Contiguous: a flood fill from one parcel reaches them all.
      const keys = new Set(cells.map((p) => `${p.x},${p.y}`))
      const seen = new Set([`${cells[0]!.x},${cells[0]!.y}`])
      const queue = [cells[0]!]
      while (queue.length > 0) {
        const { x, y } = queue.pop()!
        for (const [dx, dy] of [
          [1, 0],
          [-1, 0],
          [0, 1],
          [0, -1],
        ] as const) {
          const key = `${x + dx},${y + dy}`
          if (keys.has(key) && !seen.has(key)) {
            seen.add(key)
            queue.push({ x: x + dx, y: y + dy, owner: null })
          }
        }
      }
      expect(seen.size).toBe(cells.length)
    }
  })

  it('has open, sold and cancelled publications, some open ones expired, with consistent owners', () => {
    const now = Date.now()
    const byStatus = (status: string) => set.publications.filter((p) => p.status === status)
    expect(byStatus('sold').length).toBeGreaterThan(100)
    expect(byStatus('cancelled').length).toBeGreaterThan(100)
    const open = byStatus('open')
    expect(open.filter((p) => p.expires_at > now).length).toBeGreaterThan(500)
    expect(open.filter((p) => p.expires_at <= now).length).toBeGreaterThan(50)
    expect(new Set(set.publications.map((p) => p.tx_hash)).size).toBe(set.publications.length)
    const owners = new Map(set.parcels.map((p) => [`${p.x},${p.y}`, p.owner]))
    for (const p of set.publications.filter((q) => q.type === 'parcel')) {
      const owner = owners.get(p.asset_id)
      if (p.status === 'open') expect(p.owner).toBe(owner)
      if (p.status === 'sold') expect(p.buyer).not.toBe(p.owner)
    }
    // The buyer of an asset's newest sale owns it now.
    const newestSale = new Map<string, string>()
    for (const p of [...set.publications].sort((a, b) => a.block_time_created_at - b.block_time_created_at)) {
      if (p.type === 'parcel' && p.status === 'sold') newestSale.set(p.asset_id, p.buyer!)
    }
    for (const [asset, buyer] of newestSale) expect(owners.get(asset)).toBe(buyer)
  })

  it('keeps the 4,198 contribution rows of the source (35,241 parcels)', () => {
    expect(set.contributions).toHaveLength(4198)
    expect(set.contributions.reduce((sum, c) => sum + c.land_count, 0)).toBe(35_241)
  })
})

describe('seed()', () => {
  const db = useTestDatabase({ migrationsDir })

  const digest = async () => {
    const [row] = await db.sql<Array<{ digest: string }>>`
      select md5(
        (select string_agg(p::text, '|' order by p.x, p.y) from (select x, y, owner, district_id, estate_id, name,
          auction_price, last_transferred_at from parcels) p) ||
        (select string_agg(e::text, '|' order by e.id) from (select id, owner, name, description, tx_hash,
          last_transferred_at from estates) e) ||
        (select string_agg(p::text, '|' order by p.tx_hash) from (select tx_hash, owner, price, status, buyer,
          expires_at, asset_id from publications) p) ||
        (select string_agg(c::text, '|' order by c.address, c.district_id, c.land_count) from
          (select address, district_id, land_count from contributions) c)
      ) as digest`
    return row!.digest
  }

  it('loads the set and yields the same state when run again', async () => {
    const reported: number[] = []
    const summary = await seed(db.sql, { progress: (done) => reported.push(done) })
    expect(summary).toMatchObject({ parcels: 90_601, districts: 42, contributions: 4198 })
    expect(reported.at(-1)).toBe(
      summary.parcels + summary.districts + summary.estates + summary.publications + summary.contributions,
    )
    const first = await digest()
    await seed(db.sql)
    expect(await digest()).toBe(first)
    const [count] = await db.sql<Array<{ n: number }>>`select count(*)::int as n from parcels`
    expect(count!.n).toBe(90_601)
  })
})
