import type { ChainKeys, ChainRows, OrderRow, Stamped, UndoImage, UndoTable } from '../db/chain-writes.js'
import {
  type EstateRow,
  estates,
  orders,
  type ParcelRow,
  type PublicationRow,
  parcels,
  publications,
  type TableShape,
} from '../db/tables.js'
import { rowNotLoaded } from '../errors.js'

/**
 * The undo log of a batch. Before the first write to a row in an undoable block, the row's image at that
 * moment (null: it did not exist) is kept, once per row and block: a rollback restores the images newest
 * first, so the tables equal what they were before the block. Every write of every table goes through
 * `record`, so no handler can forget it.
 */
class Journal {
  readonly images: UndoImage[] = []
  private readonly seen = new Set<string>()
  private block = 0n
  private undoable = false

  at(block: bigint, undoable: boolean): void {
    this.block = block
    this.undoable = undoable
  }

  record(tbl: UndoTable, key: UndoImage['key'], id: string, before: object | null): void {
    if (!this.undoable) return
    const seen = `${this.block}|${tbl}|${id}`
    if (this.seen.has(seen)) return
    this.seen.add(seen)
    this.images.push({ block: this.block, tbl, key, before })
  }
}

/** A row without the write time, which the table stamps itself. */
type Fresh<Row> = Omit<Row, 'updated_at'>

/** The rows of a table the batch's events named (see RowKeys): what a handler may read or write. */
interface Asked {
  /** Rows by id (loaded if they exist). */
  ids: ReadonlySet<string>
  /** Groups whose every row was loaded. */
  groups?: ReadonlySet<string>
}

interface TableOptions<Row> {
  /** The table's descriptor: its name in the undo log, and the key columns an image is restored by. */
  table: TableShape
  /** A secondary index: rows by this value (null: not indexed). */
  group?(row: Fresh<Row>): string | null
  /** The write time every written row gets (tables with `updated_at`), as to_jsonb writes it. */
  stamp?: string
}

/**
 * One land table's rows of a batch: loaded once, then written event by event. `put` keeps the undo image,
 * stamps the write time and marks the row for writing back. A row the events did not name was not loaded,
 * so reading or writing it throws RowNotLoaded: it would otherwise look absent (and a write of it be undone
 * as the creation of a row that already existed).
 */
export class Table<Row extends object> {
  private readonly rows = new Map<string, Row>()
  private readonly groups = new Map<string, Set<string>>()
  private readonly changed = new Set<string>()

  constructor(
    private readonly journal: Journal,
    private readonly options: TableOptions<Row>,
    loaded: readonly Row[],
    private readonly asked: Asked,
  ) {
    for (const row of loaded) this.place(row)
  }

  /** The row, or undefined when it does not exist. */
  get(id: string): Row | undefined {
    const row = this.rows.get(id)
    if (!row && !this.asked.ids.has(id)) throw rowNotLoaded(this.options.table.name, id)
    return row
  }

  /** A row that exists (a parcel of the grid). */
  row(id: string): Row {
    const row = this.get(id)
    if (!row) throw rowNotLoaded(this.options.table.name, id)
    return row
  }

  /** The rows whose group is `value` (of the rows loaded or written). */
  inGroup(value: string): Row[] {
    if (!this.asked.groups?.has(value)) throw rowNotLoaded(this.options.table.name, `group ${value}`)
    return [...(this.groups.get(value) ?? [])].flatMap((id) => this.rows.get(id) ?? [])
  }

  /** Writes a row: a new one, or the next version of one. */
  put(row: Fresh<Row>): void {
    const { table, stamp } = this.options
    const rowId = idOf(table, row)
    const before = this.get(rowId) ?? null
    this.journal.record(table.name, keyOf(table, row), rowId, before)
    this.place((stamp === undefined ? row : { ...row, updated_at: stamp }) as Row)
    this.changed.add(rowId)
  }

  /** Changes some columns of a row that exists; false when there is none. */
  update(rowId: string, change: Partial<Fresh<Row>>): boolean {
    const row = this.get(rowId)
    if (!row) return false
    this.put({ ...row, ...change })
    return true
  }

  /** The rows written, as they stand now. */
  written(): Row[] {
    return [...this.changed].flatMap((rowId) => this.rows.get(rowId) ?? [])
  }

  private place(row: Row): void {
    const { table, group } = this.options
    const rowId = idOf(table, row)
    if (group) {
      const before = this.rows.get(rowId)
      const from = before ? group(before) : null
      const to = group(row)
      if (from !== to) {
        if (from !== null) this.groups.get(from)?.delete(rowId)
        if (to !== null) {
          const members = this.groups.get(to) ?? new Set<string>()
          this.groups.set(to, members.add(rowId))
        }
      }
    }
    this.rows.set(rowId, row)
  }
}

/** A row's key columns, as the undo log restores it by. */
const keyOf = (table: TableShape, row: object): UndoImage['key'] => {
  const values = row as Record<string, string | number>
  return Object.fromEntries(table.key.map((k) => [k, values[k]!]))
}

/** A row's id in memory: its key's values, comma-separated (`x,y` for a parcel). */
const idOf = (table: TableShape, row: object): string => Object.values(keyOf(table, row)).join(',')

export const cellKey = (x: number, y: number) => `${x},${y}`
export const assetGroup = (type: string, assetId: string) => `${type}|${assetId}`

/**
 * A batch's rows in memory, read with a few queries before the fold and written back with a few set-based
 * statements after it: the handlers read and write these tables exactly as one statement per event would
 * have, and every write keeps its undo image (see Journal).
 */
export class BatchStore {
  private readonly journal = new Journal()
  /** Every parcel of the grid the batch names, by `x,y`; grouped by estate id. */
  readonly parcels: Table<Stamped<ParcelRow>>
  /** Estates by id. */
  readonly estates: Table<Stamped<EstateRow>>
  /** Publications by transaction hash. */
  readonly publications: Table<Stamped<PublicationRow>>
  /** Marketplace orders by id; grouped by asset (`type|asset_id`). */
  readonly orders: Table<OrderRow>

  constructor(
    rows: ChainRows,
    /** The rows the events named (what `rows` were loaded for). */
    keys: ChainKeys,
    /** The transaction's now(), as to_jsonb writes it: the `updated_at` of every row written. */
    now: string,
  ) {
    const journal = this.journal
    this.parcels = new Table(
      journal,
      { table: parcels, group: (p) => p.estate_id, stamp: now },
      rows.parcels,
      {
        ids: new Set(keys.cells.map((c) => cellKey(c.x, c.y))),
        groups: new Set(keys.transferredEstates),
      },
    )
    this.estates = new Table(journal, { table: estates, stamp: now }, rows.estates, {
      ids: new Set(keys.estates),
    })
    // an order's publication is loaded with the order
    const orderTxHashes = rows.land_chain_orders.map((o) => o.tx_hash)
    this.publications = new Table(journal, { table: publications, stamp: now }, rows.publications, {
      ids: new Set([...keys.txHashes, ...orderTxHashes]),
    })
    this.orders = new Table(
      journal,
      { table: orders, group: (o) => assetGroup(o.type, o.asset_id) },
      rows.land_chain_orders,
      {
        ids: new Set(keys.orderIds),
        groups: new Set(keys.assets.map((a) => assetGroup(a.type, a.assetId))),
      },
    )
  }

  /** The block the next writes belong to, and whether they are kept for undo. */
  at(block: bigint, undoable: boolean): void {
    this.journal.at(block, undoable)
  }

  /** What to write back: the final rows and the undo images, in the order taken. */
  result(): ChainRows & { undo: UndoImage[] } {
    return {
      parcels: this.parcels.written(),
      estates: this.estates.written(),
      publications: this.publications.written(),
      land_chain_orders: this.orders.written(),
      undo: this.journal.images,
    }
  }
}
