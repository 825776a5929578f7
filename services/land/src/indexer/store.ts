import type { ChainRows, OrderRow, Stamped, UndoImage, UndoTable } from '../db/chain-writes.js'
import type { EstateRow, ParcelRecord, PublicationRecord } from '../db/rows.js'

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

interface TableOptions<Row> {
  /** The table's name in the undo log. */
  name: UndoTable
  /** The row's key in memory. */
  id(row: Fresh<Row>): string
  /** The row's key as the undo log restores it (its primary key columns). */
  key(row: Fresh<Row>): UndoImage['key']
  /** A secondary index: rows by this value (null: not indexed). */
  group?(row: Fresh<Row>): string | null
  /** The write time every written row gets (tables with `updated_at`), as to_jsonb writes it. */
  stamp?: string
}

/**
 * One land table's rows of a batch: loaded once, then written event by event. `put` keeps the undo image,
 * stamps the write time and marks the row for writing back.
 */
export class Table<Row extends object> {
  private readonly rows = new Map<string, Row>()
  private readonly groups = new Map<string, Set<string>>()
  private readonly changed = new Set<string>()

  constructor(
    private readonly journal: Journal,
    private readonly options: TableOptions<Row>,
    loaded: readonly Row[],
  ) {
    for (const row of loaded) this.place(row)
  }

  get(id: string): Row | undefined {
    return this.rows.get(id)
  }

  /** The rows whose group is `value` (of the rows loaded or written). */
  inGroup(value: string): Row[] {
    return [...(this.groups.get(value) ?? [])].map((id) => this.rows.get(id)!)
  }

  /** Writes a row: a new one, or the next version of one. */
  put(row: Fresh<Row>): void {
    const { name, id, key, stamp } = this.options
    const rowId = id(row)
    this.journal.record(name, key(row), rowId, this.rows.get(rowId) ?? null)
    this.place((stamp === undefined ? row : { ...row, updated_at: stamp }) as Row)
    this.changed.add(rowId)
  }

  /** Changes some columns of a row that exists; false when there is none. */
  update(rowId: string, change: Partial<Fresh<Row>>): boolean {
    const row = this.rows.get(rowId)
    if (!row) return false
    this.put({ ...row, ...change })
    return true
  }

  /** The rows written, as they stand now. */
  written(): Row[] {
    return [...this.changed].map((rowId) => this.rows.get(rowId)!)
  }

  private place(row: Row): void {
    const { id, group } = this.options
    const rowId = id(row)
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
  readonly parcels: Table<Stamped<ParcelRecord>>
  /** Estates by id. */
  readonly estates: Table<Stamped<EstateRow>>
  /** Publications by transaction hash. */
  readonly publications: Table<Stamped<PublicationRecord>>
  /** Marketplace orders by id; grouped by asset (`type|asset_id`). */
  readonly orders: Table<OrderRow>

  constructor(
    rows: ChainRows,
    /** The transaction's now(), as to_jsonb writes it: the `updated_at` of every row written. */
    now: string,
  ) {
    const journal = this.journal
    this.parcels = new Table(
      journal,
      {
        name: 'parcels',
        id: (p) => cellKey(p.x, p.y),
        key: (p) => ({ x: p.x, y: p.y }),
        group: (p) => p.estate_id,
        stamp: now,
      },
      rows.parcels,
    )
    this.estates = new Table(
      journal,
      { name: 'estates', id: (e) => e.id, key: (e) => ({ id: e.id }), stamp: now },
      rows.estates,
    )
    this.publications = new Table(
      journal,
      { name: 'publications', id: (p) => p.tx_hash, key: (p) => ({ tx_hash: p.tx_hash }), stamp: now },
      rows.publications,
    )
    this.orders = new Table(
      journal,
      {
        name: 'land_chain_orders',
        id: (o) => o.order_id,
        key: (o) => ({ order_id: o.order_id }),
        group: (o) => assetGroup(o.type, o.asset_id),
      },
      rows.orders,
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
      orders: this.orders.written(),
      undo: this.journal.images,
    }
  }
}
