import { useTestDatabase } from '@genesis/common/testing/vitest'
import { encodeTokenId } from '@genesis/contracts/land'
import { describe, expect, it } from 'vitest'
import { resetChainData, undoAbove } from '../src/db/chain-state.js'
import { type ChainKeys, loadChainRows, writeChainRows } from '../src/db/chain-writes.js'
import { upsertRows } from '../src/db/table-sql.js'
import {
  CHAIN_TABLES,
  type ChainTableName,
  chainColumnsOf,
  columnsOf,
  type EstateRow,
  estates,
  type OrderRow,
  orders,
  type ParcelRow,
  type PublicationRow,
  parcels,
  publications,
  type TableShape,
  timestampColumnsOf,
} from '../src/db/tables.js'
import { RowNotLoaded } from '../src/errors.js'
import type { Contracts } from '../src/indexer/events.js'
import { handlers } from '../src/indexer/handlers/index.js'
import { BatchStore } from '../src/indexer/store.js'
import { migrationsDir } from '../src/paths.js'

/*
 * The descriptors of src/db/tables.ts against the tables themselves: every column described, and every
 * chain-owned column written by the indexer and put back by the undo of a reorganisation.
 */

const db = useTestDatabase({ migrationsDir })

const alice = `0x${'a'.repeat(40)}`
const bob = `0x${'b'.repeat(40)}`
const carol = `0x${'c'.repeat(40)}`
const hash = (digit: string) => `0x${digit.repeat(64)}`

/** Every table the indexer writes, whatever its row type. */
const TABLES: readonly TableShape[] = CHAIN_TABLES

interface Fixture {
  parcels: ParcelRow
  estates: EstateRow
  publications: PublicationRow
  land_chain_orders: OrderRow
}
const fixtureRow = (fixture: Fixture, table: TableShape) => fixture[table.name] as Record<string, unknown>

/**
 * One row of each table as it stands at the ancestor (`before`), and as a block above it leaves it
 * (`after`): different in every chain-owned column (checked below, so a column added to a descriptor must
 * be added here, which its type demands too).
 */
const before: Fixture = {
  parcels: {
    x: 5,
    y: 5,
    owner: alice,
    district_id: null,
    estate_id: '1',
    data_version: 0,
    name: 'Before',
    description: 'as it was',
    ipns: 'ipns-before',
    auction_price: 10,
    auction_owner: alice,
    last_transferred_at: '2020-01-01T00:00:00.000Z',
  },
  estates: {
    id: '1',
    owner: alice,
    name: 'Gardens',
    description: 'green',
    district_id: null,
    tx_hash: hash('1'),
    last_transferred_at: '2020-02-01T00:00:00.000Z',
  },
  publications: {
    tx_hash: hash('2'),
    tx_status: 'confirmed',
    owner: alice,
    price: 100,
    status: 'open',
    buyer: null,
    contract_id: alice,
    block_number: 1,
    expires_at: 2_000_000_000_000,
    block_time_created_at: 1_600_000_000_000,
    block_time_updated_at: null,
    type: 'parcel',
    asset_id: '5,5',
    marketplace_id: alice,
  },
  land_chain_orders: { order_id: hash('3'), tx_hash: hash('2'), type: 'parcel', asset_id: '5,5' },
}

const after: Fixture = {
  parcels: {
    ...before.parcels,
    owner: bob,
    estate_id: null,
    data_version: 1,
    name: 'After',
    description: 'as a block left it',
    ipns: 'ipns-after',
    last_transferred_at: '2021-01-01T00:00:00.000Z',
    // not the chain's: the indexer's write leaves them as they are
    auction_price: 20,
    auction_owner: bob,
  },
  estates: {
    id: '1',
    owner: bob,
    name: 'Meadows',
    description: 'yellow',
    district_id: null,
    tx_hash: hash('4'),
    last_transferred_at: '2021-02-01T00:00:00.000Z',
  },
  publications: {
    tx_hash: hash('2'),
    tx_status: 'pending',
    owner: bob,
    price: 200,
    status: 'sold',
    buyer: carol,
    contract_id: bob,
    block_number: 2,
    expires_at: 2_100_000_000_000,
    block_time_created_at: 1_700_000_000_000,
    block_time_updated_at: 1_700_000_001_000,
    type: 'estate',
    asset_id: '1',
    marketplace_id: bob,
  },
  land_chain_orders: { order_id: hash('3'), tx_hash: hash('5'), type: 'estate', asset_id: '1' },
}

/** A row a block above the ancestor creates: the undo deletes it. */
const created: EstateRow = { ...after.estates, id: '2' }

const keys: ChainKeys = {
  cells: [{ x: 5, y: 5 }],
  estates: ['1', '2'],
  transferredEstates: [],
  txHashes: [hash('2')],
  orderIds: [hash('3')],
  assets: [],
}

/** The row of `table` with the fixture's key, every column and `updated_at` (null: none). */
async function rowOf(name: ChainTableName, fixture: object) {
  const table = TABLES.find((t) => t.name === name)!
  const values = fixture as Record<string, unknown>
  const where = table.key.map((k) => `${k} = '${String(values[k])}'`).join(' and ')
  const [row] = await db.sql.unsafe<Array<{ r: Record<string, unknown> }>>(
    `select to_jsonb(t) as r from ${name} t where ${where}`,
  )
  return row?.r ?? null
}

/** These columns of the row, timestamps as instants (to_jsonb and toISOString spell them differently). */
const pick = (table: TableShape, row: Record<string, unknown> | null, columns: readonly string[]) => {
  const timestamps = [...timestampColumnsOf(table), 'updated_at']
  const value = (c: string) => row?.[c]
  return Object.fromEntries(
    columns.map((c) => {
      const v = value(c)
      return [c, timestamps.includes(c) && typeof v === 'string' ? Date.parse(v) : v]
    }),
  )
}

describe('the chain tables’ descriptors', () => {
  it('describe every column of the tables, with their types and primary keys', async () => {
    const udt: Record<string, string> = {
      int2: 'smallint',
      int4: 'integer',
      int8: 'bigint',
      float8: 'double precision',
      text: 'text',
      uuid: 'uuid',
      timestamptz: 'timestamptz',
    }
    for (const table of TABLES) {
      const columns = await db.sql<Array<{ column_name: string; udt_name: string }>>`
        select column_name, udt_name from information_schema.columns
        where table_schema = current_schema() and table_name = ${table.name} order by ordinal_position`
      const described = Object.fromEntries(columnsOf(table).map((c) => [c, table.columns[c]!.sql]))
      if (table.stamped) described.updated_at = 'timestamptz'
      expect(Object.fromEntries(columns.map((c) => [c.column_name, udt[c.udt_name]])), table.name).toEqual(
        described,
      )
      const key = await db.sql<Array<{ column_name: string }>>`
        select a.attname as column_name from pg_index i
        join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
        where i.indrelid = ${table.name}::regclass and i.indisprimary order by a.attnum`
      expect(
        key.map((k) => k.column_name),
        table.name,
      ).toEqual([...table.key])
    }
  })

  it('the fixtures differ in every chain-owned column (so the test below checks each)', () => {
    for (const table of TABLES) {
      for (const column of chainColumnsOf(table)) {
        const was = fixtureRow(before, table)[column]
        const is = fixtureRow(after, table)[column]
        expect(is, `${table.name}.${column}`).not.toEqual(was)
      }
    }
  })

  it('a block writes every chain-owned column, and undoing it restores every column as it was', async () => {
    await db.sql.begin(async (q) => {
      await resetChainData(q)
      await upsertRows(q, estates, [before.estates], 'all')
      await upsertRows(q, parcels, [before.parcels], 'all')
      await upsertRows(q, publications, [before.publications], 'all')
      await upsertRows(q, orders, [before.land_chain_orders], 'all')
    })
    const images = Object.fromEntries(
      await Promise.all(
        TABLES.map(async (t) => [t.name, await rowOf(t.name, fixtureRow(before, t))] as const),
      ),
    )

    // block 2, above the ancestor 1: every row of the fixture changed, one estate created
    await db.sql.begin(async (q) => {
      const { rows, now } = await loadChainRows(q, keys)
      const store = new BatchStore(rows, keys, now)
      store.at(2n, true)
      store.parcels.put(after.parcels)
      store.estates.put(after.estates)
      store.estates.put(created)
      store.publications.put(after.publications)
      store.orders.put(after.land_chain_orders)
      await writeChainRows(q, store.result())
    })
    for (const table of TABLES) {
      const row = await rowOf(table.name, fixtureRow(after, table))
      const chainOwned = chainColumnsOf(table)
      const others = columnsOf(table).filter((c) => !chainOwned.includes(c))
      expect(pick(table, row, chainOwned), `${table.name} as written`).toEqual(
        pick(table, fixtureRow(after, table), chainOwned),
      )
      expect(pick(table, row, others), `${table.name}, not the chain's`).toEqual(
        pick(table, fixtureRow(before, table), others),
      )
    }

    const restored = await db.sql.begin((q) => undoAbove(q, 1n))
    expect(restored).toBe(TABLES.length + 1)
    for (const table of TABLES) {
      const every = [...columnsOf(table), ...(table.stamped ? ['updated_at'] : [])]
      const row = await rowOf(table.name, fixtureRow(before, table))
      expect(pick(table, row, every), `${table.name} undone`).toEqual(
        pick(table, images[table.name] ?? null, every),
      )
    }
    expect(await rowOf('estates', created)).toBeNull()
  })
})

describe('a row the events did not name', () => {
  const contracts: Contracts = {
    land: `0x${'1'.repeat(40)}`,
    estates: `0x${'2'.repeat(40)}`,
    marketplace: `0x${'3'.repeat(40)}`,
  }
  const where = { block: 1n, time: 1_700_000_000_000, txHash: hash('9'), address: contracts.land }
  const store = (named: ChainKeys) =>
    new BatchStore({ parcels: [], estates: [], publications: [], land_chain_orders: [] }, named, '2024-01-01')
  const none: ChainKeys = {
    cells: [],
    estates: [],
    transferredEstates: [],
    txHashes: [],
    orderIds: [],
    assets: [],
  }

  it('is RowNotLoaded when a handler reads it, naming the table and the key', () => {
    const transfer = { from: alice, to: contracts.estates, tokenId: encodeTokenId(7, 7) }
    // the parcel's keys were not asked for: the handler's read of it fails by name, not with a TypeError
    const read = () =>
      handlers['LANDRegistry:Transfer'].apply(transfer, { ...where, db: store(none), contracts })
    expect(read).toThrow(RowNotLoaded)
    expect(read).toThrow(/parcels 7,7/)
  })

  it('is RowNotLoaded when written, or when its group is listed; absent but named is undefined', () => {
    const db = store({ ...none, estates: ['1'] })
    expect(db.estates.get('1')).toBeUndefined()
    expect(() => db.estates.get('2')).toThrow(RowNotLoaded)
    expect(() => db.estates.put({ ...before.estates, id: '2' })).toThrow(RowNotLoaded)
    expect(() => db.parcels.inGroup('1')).toThrow(RowNotLoaded)
    expect(() => db.orders.inGroup('parcel|5,5')).toThrow(RowNotLoaded)
  })
})
