import type { Sql } from '@genesis/common'
import type { Estate, Parcel } from '@genesis/wire/land'
import { loadEstatesById, loadOpenPublications, loadParcelsAt } from '../db/assets.js'
import { assetKey, blankParcel, type ParcelRecord } from '../db/rows.js'
import { cellIndex, cellOfParcelId } from '../domain/geometry.js'
import { activePublication } from './records.js'
import { toEstate, toParcel } from './serialize.js'
import type { GridView } from './view.js'

/**
 * Listings read their page of assets from the database (so they reflect every committed write at once)
 * and render it with the same serialisers as the index; proximity tags come from the index's layout.
 * A page is a list of asset ids (parcels as canonical `x,y`), read as such by both queries.
 */
export async function parcelsFromDatabase(
  sql: Sql,
  view: GridView,
  ids: string[],
  now: number,
): Promise<Parcel[]> {
  const [records, open] = await Promise.all([
    loadParcelsAt(sql, ids),
    loadOpenPublications(sql, now, { type: 'parcel', ids }),
  ])
  const byCell = new Map<number, ParcelRecord>()
  for (const record of records) byCell.set(cellIndex(record.x, record.y), record)
  return ids.map((id) => {
    const { x, y } = cellOfParcelId(id)
    const cell = cellIndex(x, y)
    return toParcel(
      byCell.get(cell) ?? blankParcel(x, y),
      view.data.tags[cell] ?? {},
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
