import type { Queryable } from '@genesis/common'
import type { AssetType } from '../domain/constants.js'
import type { LandChanges } from './land-changes.js'
import type { EstateRow, ParcelRecord, PublicationRecord } from './rows.js'
import { chunks } from './writes.js'

/*
 * The indexer's reads and writes of the land tables, a batch at a time. Rows travel as `to_jsonb` images
 * (every column, as the undo log stores them), so an image taken in memory restores exactly what the table
 * held.
 */

/** A row as to_jsonb gives it and the undo log stores it: every column, `updated_at` included. */
export type Stamped<Row> = Row & { updated_at: string }

/** Which publication a marketplace order became. */
export interface OrderRow {
  order_id: string
  tx_hash: string
  type: AssetType
  asset_id: string
}

export interface ChainRows {
  parcels: Stamped<ParcelRecord>[]
  estates: Stamped<EstateRow>[]
  publications: Stamped<PublicationRecord>[]
  orders: OrderRow[]
}

/** The tables whose rows the indexer changes, and so whose images the undo log holds. */
export type UndoTable = 'parcels' | 'estates' | 'publications' | 'land_chain_orders'

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
  const parcels = await q<Array<{ r: Stamped<ParcelRecord> }>>`
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
  const publications = await q<Array<{ r: Stamped<PublicationRecord> }>>`
    select to_jsonb(p) as r from publications p where tx_hash = any(${txHashes}::text[])`
  return {
    rows: {
      parcels: parcels.map(({ r }) => r),
      estates: estates.map(({ r }) => r),
      publications: publications.map(({ r }) => r),
      orders: orders.map(({ r }) => r),
    },
    now: clock!.now,
  }
}

/**
 * Writes a batch's final rows and its undo images: a few statements, whatever the number of events. The
 * rows written are told to `collected` (what the grid index re-reads).
 */
export async function writeChainRows(
  q: Queryable,
  changes: ChainRows & { undo: UndoImage[] },
  collected?: LandChanges,
): Promise<void> {
  if (collected) {
    for (const p of changes.parcels) collected.parcel(p.x, p.y)
    for (const e of changes.estates) collected.estate(e.id)
    for (const p of changes.publications) collected.publication(p.type, p.asset_id)
  }
  // estates first: a parcel's estate_id refers to one (checked at commit anyway)
  if (changes.estates.length > 0) {
    await q`
      insert into estates
      select * from jsonb_populate_recordset(null::estates, ${q.json(changes.estates as never)})
      on conflict (id) do update set owner = excluded.owner, name = excluded.name,
        description = excluded.description, tx_hash = excluded.tx_hash,
        last_transferred_at = excluded.last_transferred_at, updated_at = now()`
  }
  for (const p of chunks(changes.parcels)) {
    await q`
      update parcels p set owner = r.owner, estate_id = r.estate_id, data_version = r.data_version,
        name = r.name, description = r.description, ipns = r.ipns, last_transferred_at = r.last_transferred_at,
        updated_at = now()
      from unnest(${p.map((r) => r.x)}::smallint[], ${p.map((r) => r.y)}::smallint[],
        ${p.map((r) => r.owner)}::text[], ${p.map((r) => r.estate_id)}::text[],
        ${p.map((r) => r.data_version)}::int[], ${p.map((r) => r.name)}::text[],
        ${p.map((r) => r.description)}::text[], ${p.map((r) => r.ipns)}::text[],
        ${p.map((r) => r.last_transferred_at)}::timestamptz[])
        as r (x, y, owner, estate_id, data_version, name, description, ipns, last_transferred_at)
      where p.x = r.x and p.y = r.y`
  }
  if (changes.publications.length > 0) {
    await q`
      insert into publications
      select * from jsonb_populate_recordset(null::publications, ${q.json(changes.publications as never)})
      on conflict (tx_hash) do update set status = excluded.status, buyer = excluded.buyer,
        block_time_updated_at = excluded.block_time_updated_at, updated_at = now()`
  }
  if (changes.orders.length > 0) {
    await q`
      insert into land_chain_orders
      select * from jsonb_populate_recordset(null::land_chain_orders, ${q.json(changes.orders as never)})
      on conflict (order_id) do update set tx_hash = excluded.tx_hash, type = excluded.type,
        asset_id = excluded.asset_id`
  }
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
