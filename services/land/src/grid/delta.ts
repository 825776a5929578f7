import type { Sql } from '@genesis/common'
import { loadEstatesById, loadOpenPublications, loadParcelsAt } from '../db/assets.js'
import { readCursor } from '../db/chain-state.js'
import type { LandDelta } from '../db/land-changes.js'
import type { EstateRecord, ParcelRecord, PublicationRecord } from '../db/rows.js'
import { cellIndex, cellOfParcelId } from '../domain/geometry.js'
import { type GridData, groupsOf, tileKind } from './data.js'

/** The rows a delta re-read, all from one snapshot of the database. */
interface DeltaRows {
  parcels: Map<string, ParcelRecord>
  /** null: the estate is gone. */
  estates: Map<string, EstateRecord | null>
  /** The assets' open publications (an empty list: none left). */
  open: Map<string, PublicationRecord[]>
  /** The indexed block in the same snapshot. */
  blockHash: string | null
}

const cellId = (p: { x: number; y: number }) => `${p.x},${p.y}`

/**
 * Reads the rows a delta names, and with them every row whose answer they can move: an estate whose parcel
 * joined or left it (its parcel list), and every parcel of a touched estate, as it was and as it is (a
 * deleted estate's parcels lose their estate_id through the foreign key, which names no row). Repeats until
 * nothing new is named, in one repeatable-read snapshot.
 */
async function readDelta(sql: Sql, base: GridData, delta: LandDelta, now: number): Promise<DeltaRows> {
  return sql.begin('isolation level repeatable read read only', async (tx) => {
    const parcels = new Map<string, ParcelRecord>()
    const estates = new Map<string, EstateRecord | null>()
    let cells = new Set(delta.parcels)
    let ids = new Set(delta.estates)
    while (cells.size > 0 || ids.size > 0) {
      const nextCells = new Set<string>()
      const nextIds = new Set<string>()
      const wantCell = (id: string) => {
        if (!parcels.has(id) && !cells.has(id)) nextCells.add(id)
      }
      const wantEstate = (id: string | null | undefined) => {
        if (id != null && !estates.has(id) && !ids.has(id)) nextIds.add(id)
      }
      for (const record of await loadParcelsAt(tx, [...cells])) parcels.set(cellId(record), record)
      for (const id of cells) {
        const { x, y } = cellOfParcelId(id)
        wantEstate(base.cells[cellIndex(x, y)]?.estate_id)
        wantEstate(parcels.get(id)?.estate_id)
      }
      const found = new Map((await loadEstatesById(tx, [...ids])).map((e) => [e.id, e]))
      for (const id of ids) {
        const estate = found.get(id) ?? null
        estates.set(id, estate)
        for (const p of base.estates.get(id)?.parcels ?? []) wantCell(cellId(p))
        for (const p of estate?.parcels ?? []) wantCell(cellId(p))
      }
      cells = nextCells
      ids = nextIds
    }
    const open = new Map<string, PublicationRecord[]>()
    for (const type of ['parcel', 'estate'] as const) {
      const prefix = `${type}:`
      const assets = delta.assets.filter((key) => key.startsWith(prefix))
      const found = await loadOpenPublications(tx, now, {
        type,
        ids: assets.map((k) => k.slice(prefix.length)),
      })
      for (const key of assets) open.set(key, found.get(key) ?? [])
    }
    const blockHash = (await readCursor(tx))?.blockHash ?? null
    return { parcels, estates, open, blockHash }
  })
}

/** What a delta changed, for the log and for GridView's carried-over answers. */
export interface DeltaResult {
  data: GridData
  parcels: number
  estates: number
  assets: number
}

/**
 * A new GridData: `base` with the rows the delta names re-read from the database. Unchanged cells, estates
 * and publications are the very objects of `base` (the views compare them by identity to reuse answers).
 * Null when the delta moves a parcel between districts: proximity tags and district figures then need a
 * full build (the indexer never does that).
 */
export async function applyDelta(
  sql: Sql,
  base: GridData,
  delta: LandDelta,
  now: number,
): Promise<DeltaResult | null> {
  const rows = await readDelta(sql, base, delta, now)
  const cells = base.cells.slice()
  const kind = base.kind.slice()
  let estateMoved = false
  for (const record of rows.parcels.values()) {
    const i = cellIndex(record.x, record.y)
    const before = base.cells[i]!
    if (before.district_id !== record.district_id) return null
    if (before.estate_id !== record.estate_id) estateMoved = true
    cells[i] = record
    kind[i] = tileKind(record)
  }
  const estates = new Map(base.estates)
  let estateSetChanged = false
  for (const [id, record] of rows.estates) {
    if (record === null) estateSetChanged = estates.delete(id) || estateSetChanged
    else {
      if (!estates.has(id)) estateSetChanged = true
      estates.set(id, record)
    }
  }
  const open = new Map(base.open)
  for (const [key, publications] of rows.open) {
    if (publications.length === 0) open.delete(key)
    else open.set(key, publications)
  }
  const group =
    estateMoved || estateSetChanged
      ? groupsOf(
          cells,
          [...estates.keys()],
          base.districts.map((d) => d.id),
        )
      : base.group
  return {
    data: {
      cells,
      estates,
      districts: base.districts,
      open,
      tags: base.tags,
      kind,
      group,
      blockHash: rows.blockHash,
    },
    parcels: rows.parcels.size,
    estates: rows.estates.size,
    assets: rows.open.size,
  }
}
