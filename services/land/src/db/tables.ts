import type { AssetType, PublicationStatus } from '../domain/constants.js'
import type { LandChanges } from './land-changes.js'

/*
 * The tables the chain indexer writes, each described once: its columns with their PostgreSQL and
 * TypeScript types, its key, and which columns the chain owns. The row types, the upserts, the undo's
 * restore and the reset are derived from these (src/db/table-sql.ts), so a column added here is written,
 * restored and reset everywhere, and one left out of a migration's table fails the tests instead of being
 * silently lost by a reorganisation.
 */

/** The PostgreSQL types of the columns, as a cast writes them. */
export type SqlType = 'smallint' | 'integer' | 'bigint' | 'double precision' | 'text' | 'uuid' | 'timestamptz'

export interface Column<T = unknown> {
  readonly sql: SqlType
  /**
   * The chain owns the column: the indexer's upserts set it, the undo restores it, a reset clears it.
   * The other columns come from the layout or an import, and the indexer leaves them as they are.
   */
  readonly chain: boolean
  /** What a reset writes into a chain-owned column of a row the chain does not own (its default). */
  readonly reset?: T | undefined
  /** Never set: the column's type in a row (timestamps as ISO 8601 strings, bigints as numbers). */
  readonly type?: T
}

const column = <T>(sql: Exclude<SqlType, 'timestamptz'>): Column<T> => ({ sql, chain: false })
const chain = <T>(sql: Exclude<SqlType, 'timestamptz'>, reset?: T): Column<T> => ({ sql, chain: true, reset })

/** A timestamp column: an ISO 8601 string in a row, a Date as postgres reads it. */
interface TimestampColumn extends Column<string | null> {
  readonly sql: 'timestamptz'
}
const chainTimestamp = (reset?: null): TimestampColumn => ({ sql: 'timestamptz', chain: true, reset })

export type Columns = Readonly<Record<string, Column>>

/** A row of a table with these columns (`updated_at` aside). */
export type RowOf<C extends Columns> = { -readonly [K in keyof C]: C[K] extends Column<infer T> ? T : never }

/** The row as postgres reads it: timestamps as Date. */
export type ReadRowOf<C extends Columns> = {
  -readonly [K in keyof C]: C[K] extends TimestampColumn ? Date | null : RowOf<C>[K]
}

/** The names of the tables the indexer writes, as the undo log calls them. */
export type ChainTableName = 'parcels' | 'estates' | 'publications' | 'land_chain_orders'

/** What the statements need of a table (src/db/table-sql.ts): names and types, whatever its row type. */
export interface TableShape {
  readonly name: ChainTableName
  readonly columns: Columns
  /** The primary key's columns. */
  readonly key: readonly string[]
  /** The table has `updated_at`: every write sets it to now(), the undo restores it with the row. */
  readonly stamped: boolean
  /**
   * Whose rows they are. `layout`: every row exists before the chain says anything (the grid's parcels), so
   * a reset gives the chain-owned columns their `reset` value. `chain`: the chain makes the rows, and a reset
   * deletes them.
   */
  readonly rows: 'layout' | 'chain'
  /** Tells `changes` what a change of the row changes on the map (what the grid re-reads). */
  tell(row: Record<string, unknown>, changes: LandChanges): void
}

/** A table's descriptor, typed by its columns. */
export interface TableSpec<C extends Columns = Columns> extends TableShape {
  readonly columns: C
  readonly key: readonly (keyof C & string)[]
  tell(row: RowOf<C>, changes: LandChanges): void
}

const table = <const C extends Columns>(spec: TableSpec<C>): TableSpec<C> => spec

export const parcels = table({
  name: 'parcels',
  columns: {
    x: column<number>('smallint'),
    y: column<number>('smallint'),
    owner: chain<string | null>('text', null),
    district_id: column<string | null>('uuid'),
    estate_id: chain<string | null>('text', null),
    data_version: chain<number>('integer', 0),
    name: chain<string>('text', ''),
    description: chain<string>('text', ''),
    ipns: chain<string>('text', ''),
    auction_price: column<number | null>('double precision'),
    auction_owner: column<string | null>('text'),
    last_transferred_at: chainTimestamp(null),
  },
  key: ['x', 'y'],
  stamped: true,
  rows: 'layout',
  tell: (p, changes) => changes.parcel(p.x, p.y),
})

export const estates = table({
  name: 'estates',
  columns: {
    id: column<string>('text'),
    owner: chain<string | null>('text'),
    name: chain<string>('text'),
    description: chain<string>('text'),
    // an estate's district comes from the layout or an import, never from the chain
    district_id: column<string | null>('uuid'),
    tx_hash: chain<string | null>('text'),
    last_transferred_at: chainTimestamp(),
  },
  key: ['id'],
  stamped: true,
  rows: 'chain',
  tell: (e, changes) => changes.estate(e.id),
})

export const publications = table({
  name: 'publications',
  columns: {
    tx_hash: column<string>('text'),
    tx_status: chain<'pending' | 'confirmed' | 'failed'>('text'),
    owner: chain<string>('text'),
    price: chain<number>('double precision'),
    status: chain<PublicationStatus>('text'),
    buyer: chain<string | null>('text'),
    contract_id: chain<string>('text'),
    block_number: chain<number>('bigint'),
    expires_at: chain<number>('bigint'),
    block_time_created_at: chain<number>('bigint'),
    block_time_updated_at: chain<number | null>('bigint'),
    type: chain<AssetType>('text'),
    asset_id: chain<string>('text'),
    marketplace_id: chain<string>('text'),
  },
  key: ['tx_hash'],
  stamped: true,
  rows: 'chain',
  // the asset whose listing changes
  tell: (p, changes) => changes.publication(p.type, p.asset_id),
})

/** Which publication a marketplace order became. */
export const orders = table({
  name: 'land_chain_orders',
  columns: {
    order_id: column<string>('text'),
    tx_hash: chain<string>('text'),
    type: chain<AssetType>('text'),
    asset_id: chain<string>('text'),
  },
  key: ['order_id'],
  stamped: false,
  rows: 'chain',
  // the map shows publications, not orders
  tell: () => {},
})

/**
 * Every table the indexer writes, in the order the undo restores them: the parcels first, so that none
 * still belongs to an estate the undo deletes (its `on delete set null` would clear it).
 */
export const CHAIN_TABLES = [parcels, estates, publications, orders] as const

export type ChainTable = (typeof CHAIN_TABLES)[number]
export type ParcelRow = RowOf<typeof parcels.columns>
export type EstateRow = RowOf<typeof estates.columns>
export type PublicationRow = RowOf<typeof publications.columns>
export type OrderRow = RowOf<typeof orders.columns>

/** The columns of a table, in their order in the descriptor. */
export const columnsOf = (t: TableShape): string[] => Object.keys(t.columns)

/** The columns the chain owns. */
export const chainColumnsOf = (t: TableShape): string[] =>
  Object.entries(t.columns).flatMap(([name, c]) => (c.chain ? [name] : []))

/** The timestamptz columns (postgres reads them as Date, the service speaks ISO 8601 strings). */
export const timestampColumnsOf = (t: TableShape): string[] =>
  Object.entries(t.columns).flatMap(([name, c]) => (c.sql === 'timestamptz' ? [name] : []))
