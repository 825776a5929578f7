import type { Sql } from '@genesis/common'
import { loadEstatesById, loadOpenPublications, loadParcelsAt } from '../db/assets.js'
import { cellIndex } from '../render/types.js'
import type { Estate, Parcel } from '../schemas/resources.js'
import { activePublication, assetKey, blankParcel } from './records.js'
import { toEstate, toParcel } from './serialize.js'
import type { GridView } from './view.js'

/**
 * Listings read their page of assets from the database (so they reflect every committed write at once)
 * and render it with the same serialisers as the index; proximity tags come from the index's layout.
 */
export async function parcelsFromDatabase(
  sql: Sql,
  view: GridView,
  cells: Array<{ x: number; y: number }>,
  now: number,
): Promise<Parcel[]> {
  const ids = cells.map((c) => `${c.x},${c.y}`)
  const [records, open] = await Promise.all([
    loadParcelsAt(sql, cells),
    loadOpenPublications(sql, now, { type: 'parcel', ids }),
  ])
  const byId = new Map(records.map((r) => [`${r.x},${r.y}`, r]))
  return cells.map((c, i) => {
    const id = ids[i] as string
    const record = byId.get(id) ?? blankParcel(c.x, c.y)
    return toParcel(
      record,
      view.data.tags[cellIndex(c.x, c.y)] ?? {},
      activePublication(open.get(assetKey('parcel', id)), now),
    )
  })
}

export async function estatesFromDatabase(sql: Sql, ids: string[], now: number): Promise<Estate[]> {
  const [records, open] = await Promise.all([
    loadEstatesById(sql, ids),
    loadOpenPublications(sql, now, { type: 'estate', ids }),
  ])
  return records.map((r) => toEstate(r, activePublication(open.get(assetKey('estate', r.id)), now)))
}

/** `"12,-3"` → { x: 12, y: -3 } for asset ids the database already holds in canonical form. */
export const cellOfAssetId = (assetId: string) => {
  const [x, y] = assetId.split(',').map(Number)
  return { x: x as number, y: y as number }
}
