import type { SeedSet } from '../../src/seed/genesis-city.js'

/** The first `limit` parcels, the estates wholly among them and the listings of what is left. */
export function slice(set: SeedSet, limit: number): SeedSet {
  const parcels = set.parcels.slice(0, limit)
  const kept = new Set(parcels.map((p) => `${p.x},${p.y}`))
  const estateParcels = new Map<string, string[]>()
  for (const p of set.parcels) {
    if (p.estate_id)
      estateParcels.set(p.estate_id, [...(estateParcels.get(p.estate_id) ?? []), `${p.x},${p.y}`])
  }
  const estates = set.estates.filter((e) => (estateParcels.get(e.id) ?? []).every((c) => kept.has(c)))
  const estateIds = new Set(estates.map((e) => e.id))
  return {
    ...set,
    parcels: parcels.map((p) => (p.estate_id && !estateIds.has(p.estate_id) ? { ...p, estate_id: null } : p)),
    estates,
    publications: set.publications.filter((p) =>
      p.type === 'parcel' ? kept.has(p.asset_id) : estateIds.has(p.asset_id),
    ),
  }
}
