import type { Queryable } from '@genesis/common'
import type { LandChanges } from './land-changes.js'
import { resetRows, restoreRows } from './table-sql.js'
import { CHAIN_TABLES } from './tables.js'

/** Where the indexer is: the last indexed block. */
export interface ChainCursor {
  blockNumber: bigint
  blockHash: string
  blockTime: Date
  /** When the indexer last saw nothing newer on the chain. */
  syncedAt: Date
}

interface CursorRow {
  block_number: string
  block_hash: string
  block_time: Date
  synced_at: Date
}

/** How stale the data is: since the indexer last saw the chain had nothing newer, or since the block's time. */
export const lagOf = (cursor: ChainCursor, now = Date.now()): number =>
  Math.max(0, now - Math.max(cursor.syncedAt.getTime(), cursor.blockTime.getTime())) / 1000

export async function readCursor(q: Queryable): Promise<ChainCursor | null> {
  const [row] = await q<CursorRow[]>`
    select block_number::text, block_hash, block_time, synced_at from land_chain_cursor`
  return row
    ? {
        blockNumber: BigInt(row.block_number),
        blockHash: row.block_hash,
        blockTime: row.block_time,
        syncedAt: row.synced_at,
      }
    : null
}

export async function writeCursor(
  q: Queryable,
  block: { number: bigint; hash: string; time: Date },
  synced: boolean,
): Promise<void> {
  await q`
    insert into land_chain_cursor (id, block_number, block_hash, block_time, synced_at, updated_at)
    values (true, ${block.number.toString()}, ${block.hash}, ${block.time}, ${synced ? new Date() : new Date(0)}, now())
    on conflict (id) do update set block_number = excluded.block_number, block_hash = excluded.block_hash,
      block_time = excluded.block_time, updated_at = now(),
      synced_at = case when ${synced} then excluded.synced_at else land_chain_cursor.synced_at end`
}

/** The indexer looked and the chain has nothing past the cursor. */
export async function markSynced(q: Queryable): Promise<void> {
  await q`update land_chain_cursor set synced_at = now()`
}

export interface IndexedBlock {
  number: bigint
  hash: string
  time: Date
  /** Its changes have undo images. */
  undoable: boolean
}

export async function rememberBlocks(q: Queryable, blocks: IndexedBlock[]): Promise<void> {
  if (blocks.length === 0) return
  await q`
    insert into land_chain_blocks (number, hash, time, undoable)
    select n, h, t, u::boolean
    from unnest(${blocks.map((b) => b.number.toString())}::bigint[], ${blocks.map((b) => b.hash)}::text[],
      ${blocks.map((b) => b.time.toISOString())}::timestamptz[], ${blocks.map((b) => String(b.undoable))}::text[])
      as b (n, h, t, u)
    on conflict (number) do update set hash = excluded.hash, time = excluded.time, undoable = excluded.undoable`
}

/** Indexed blocks at or below `below`, newest first: candidates for the common ancestor of a reorganisation. */
export async function recentBlocks(q: Queryable): Promise<IndexedBlock[]> {
  const rows = await q<Array<{ number: string; hash: string; time: Date; undoable: boolean }>>`
    select number::text, hash, time, undoable from land_chain_blocks order by number desc`
  return rows.map((r: { number: string; hash: string; time: Date; undoable: boolean }) => ({
    number: BigInt(r.number),
    hash: r.hash,
    time: r.time,
    undoable: r.undoable,
  }))
}

/**
 * Forgets block hashes and undo images older than `floor` (final enough), keeping the newest block below it as
 * the anchor a deeper check can still stop at.
 */
export async function pruneBelow(q: Queryable, floor: bigint): Promise<void> {
  await q`delete from land_chain_undo where block_number < ${floor.toString()}`
  await q`
    delete from land_chain_blocks
    where number < (select max(number) from land_chain_blocks where number < ${floor.toString()})`
}

/**
 * Rolls every change made in blocks above `ancestor` back, set-based: per table, one statement restores
 * each row changed since to its image before the first of those changes (the oldest undo image of its key
 * above the ancestor), deleting the rows that did not exist then; then forgets those blocks. Returns how many
 * rows it restored; the rows restored are told to `collected`.
 */
export async function undoAbove(q: Queryable, ancestor: bigint, collected?: LandChanges): Promise<number> {
  let restored = 0
  // in CHAIN_TABLES' order: the parcels leave a deleted estate before it goes
  for (const t of CHAIN_TABLES) {
    restored += await restoreRows(q, t, ancestor, collected)
  }
  const a = ancestor.toString()
  await q`delete from land_chain_undo where block_number > ${a}`
  await q`delete from land_chain_blocks where number > ${a}`
  return restored
}

/** Forgets everything the indexer has applied, so that it starts over from LAND_START_BLOCK. */
export async function forgetIndexing(sql: Queryable): Promise<void> {
  await sql`truncate land_chain_cursor, land_chain_blocks, land_chain_undo, land_chain_orders, land_chain_identity`
}

/** The chain the data comes from: its id, its genesis block and the contracts followed (lower-case). */
export interface ChainIdentity {
  chainId: string
  genesisHash: string
  land: string
  estates: string
  marketplace: string
}

export async function readChainIdentity(q: Queryable): Promise<ChainIdentity | null> {
  const [row] = await q<ChainIdentity[]>`
    select chain_id as "chainId", genesis_hash as "genesisHash", land, estates, marketplace
    from land_chain_identity`
  return row ?? null
}

export async function writeChainIdentity(q: Queryable, chain: ChainIdentity): Promise<void> {
  await q`
    insert into land_chain_identity (id, chain_id, genesis_hash, land, estates, marketplace)
    values (true, ${chain.chainId}, ${chain.genesisHash}, ${chain.land}, ${chain.estates}, ${chain.marketplace})
    on conflict (id) do update set chain_id = excluded.chain_id, genesis_hash = excluded.genesis_hash,
      land = excluded.land, estates = excluded.estates, marketplace = excluded.marketplace, recorded_at = now()`
}

/** True when the land tables hold what a chain brings (owners, estates, listings). */
export async function holdsChainData(q: Queryable): Promise<boolean> {
  const [row] = await q<Array<{ holds: boolean }>>`
    select exists (select 1 from parcels where owner is not null or estate_id is not null or name <> '')
      or exists (select 1 from estates) or exists (select 1 from publications) as holds`
  return row?.holds ?? false
}

/**
 * Empties what a chain brings (owners, estates, listings, names) and forgets the indexing, keeping the
 * layout (districts, contributions, auction results): the state a land that follows a chain starts from.
 */
export async function resetChainData(q: Queryable): Promise<void> {
  for (const t of CHAIN_TABLES) await resetRows(q, t)
  await forgetIndexing(q)
}
