import type { Queryable } from '@genesis/common'
import type { LandChanges } from './land-changes.js'
import { chunks, upsertRows } from './table-sql.js'
import {
  type ChainTableName,
  type EstateRow,
  estates,
  type OrderRow,
  orders,
  type ParcelRow,
  type PublicationRow,
  parcels,
  publications,
} from './tables.js'

/*
 * The indexer's reads and writes of the land tables, a batch at a time. Rows travel as `to_jsonb` images
 * (every column, as the undo log stores them), so an image taken in memory restores exactly what the table
 * held. The statements are the tables' own (src/db/tables.ts), so every chain-owned column is written.
 */

/** A row as to_jsonb gives it and the undo log stores it: every column, `updated_at` included. */
export type Stamped<Row> = Row & { updated_at: string }

export type { OrderRow }

/** A batch's rows of each table the indexer writes, by the table's name. */
export interface ChainRows {
  parcels: Stamped<ParcelRow>[]
  estates: Stamped<EstateRow>[]
  publications: Stamped<PublicationRow>[]
  land_chain_orders: OrderRow[]
}

/** The tables whose rows the indexer changes, and so whose images the undo log holds. */
export type UndoTable = ChainTableName

/** The image of a row before the first change to it in an undoable block (null: it did not exist). */
export interface UndoImage {
  block: bigint
  tbl: UndoTable
  key: Record<string, string | number>
  before: object | null
}

export interface ChainKeys {
  cells: Array<{ x: number; y: number }>
  estates: string[]
  /** Estates whose parcels all change owner with them. */
  transferredEstates: string[]
  txHashes: string[]
  orderIds: string[]
  assets: Array<{ type: string; assetId: string }>
}

/**
 * The rows a batch can read or change: the parcels it names and those of the estates it transfers, the
 * estates, the orders by id and by asset, and their publications; with the transaction's now().
 */
export async function loadChainRows(
  q: Queryable,
  keys: ChainKeys,
): Promise<{ rows: ChainRows; now: string }> {
  const [clock] = await q<Array<{ now: string }>>`select to_jsonb(now()) #>> '{}' as now`
  const parcels = await q<Array<{ r: Stamped<ParcelRow> }>>`
    select to_jsonb(p) as r from parcels p
    where (x, y) in (select * from unnest(${keys.cells.map((c) => c.x)}::smallint[],
        ${keys.cells.map((c) => c.y)}::smallint[]))
      or estate_id = any(${keys.transferredEstates}::text[])`
  const estates = await q<Array<{ r: Stamped<EstateRow> }>>`
    select to_jsonb(e) as r from estates e where id = any(${keys.estates}::text[])`
  const orders = await q<Array<{ r: OrderRow }>>`
    select to_jsonb(o) as r from land_chain_orders o
    where order_id = any(${keys.orderIds}::text[])
      or (type, asset_id) in (select * from unnest(${keys.assets.map((a) => a.type)}::text[],
        ${keys.assets.map((a) => a.assetId)}::text[]))`
  const txHashes = [...new Set([...keys.txHashes, ...orders.map(({ r }) => r.tx_hash)])]
  const publications = await q<Array<{ r: Stamped<PublicationRow> }>>`
    select to_jsonb(p) as r from publications p where tx_hash = any(${txHashes}::text[])`
  return {
    rows: {
      parcels: parcels.map(({ r }) => r),
      estates: estates.map(({ r }) => r),
      publications: publications.map(({ r }) => r),
      land_chain_orders: orders.map(({ r }) => r),
    },
    now: clock!.now,
  }
}

/**
 * Writes a batch's final rows (their chain-owned columns) and its undo images: a few statements, whatever
 * the number of events. The rows written are told to `collected` (what the grid index re-reads).
 */
export async function writeChainRows(
  q: Queryable,
  changes: ChainRows & { undo: UndoImage[] },
  collected?: LandChanges,
): Promise<void> {
  if (collected) {
    for (const p of changes.parcels) parcels.tell(p, collected)
    for (const e of changes.estates) estates.tell(e, collected)
    for (const p of changes.publications) publications.tell(p, collected)
  }
  // estates first: a parcel's estate_id refers to one (checked at commit anyway)
  await upsertRows(q, estates, changes.estates, 'chain')
  await upsertRows(q, parcels, changes.parcels, 'chain')
  await upsertRows(q, publications, changes.publications, 'chain')
  await upsertRows(q, orders, changes.land_chain_orders, 'chain')
  for (const u of chunks(changes.undo)) {
    const images = u.map((i) => ({ b: i.block.toString(), t: i.tbl, k: i.key, v: i.before }))
    // in the order taken: a rollback restores by id, newest first
    await q`
      insert into land_chain_undo (block_number, tbl, key, before)
      select (e ->> 'b')::bigint, e ->> 't', e -> 'k', nullif(e -> 'v', 'null'::jsonb)
      from jsonb_array_elements(${q.json(images as never)}) with ordinality as i (e, n)
      order by n
      on conflict (block_number, tbl, key) do nothing`
  }
}
