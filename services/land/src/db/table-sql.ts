import type { Queryable } from '@genesis/common'
import type { LandChanges } from './land-changes.js'
import { chainColumnsOf, columnsOf, type RowOf, type TableShape, type TableSpec } from './tables.js'

/*
 * The statements every table the indexer writes shares, made from its descriptor (src/db/tables.ts): the
 * column lists are never written by hand, so no statement can leave a column out.
 */

type Fragment = ReturnType<Queryable['unsafe']>

const CHUNK = 5000

/** The rows in slices of `size`: one statement each, so that no statement's parameters grow without bound. */
export function chunks<T>(rows: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = []
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size))
  return out
}

/** The fragments with `separator` between them (one fragment, as a parameter of another). */
function joined(q: Queryable, parts: readonly Fragment[], separator: ', ' | ' and ' | ' or '): Fragment[] {
  return parts.map((part, i) => (i === 0 ? part : q`${q.unsafe(separator)}${part}`))
}

/** `alias.column, …` */
const qualified = (q: Queryable, alias: string, columns: readonly string[]) =>
  joined(
    q,
    columns.map((c) => q`${q.unsafe(alias)}.${q(c)}`),
    ', ',
  )

/** `column = from.column, …`: an update of these columns (and `updated_at`, given as `stamp`). */
const assignments = (
  q: Queryable,
  columns: readonly string[],
  from: 'excluded' | 'r',
  stamp: Fragment | null,
) =>
  joined(
    q,
    [
      ...columns.map((c) => q`${q(c)} = ${q.unsafe(from)}.${q(c)}`),
      ...(stamp ? [q`updated_at = ${stamp}`] : []),
    ],
    ', ',
  )

/** `t.key = r.key and …`: the row of the table `t` with the key of `r`. */
const sameKey = (q: Queryable, t: TableShape, r: 'k' | 'r') =>
  joined(
    q,
    t.key.map((k) => q`t.${q(k)} = ${q.unsafe(r)}.${q(k)}`),
    ' and ',
  )

/** A value in a column's type: a parameter cast to it (a null parameter has no type of its own). */
const typedValue = (q: Queryable, t: TableShape, column: string, value: unknown) =>
  q`${value as string | number | null}::${q.unsafe(t.columns[column]!.sql)}`

/**
 * Inserts the rows, or updates the row of the same key: every column but the key (`all`, the seed's and
 * the import's) or the chain-owned ones (`chain`, the indexer's). `updated_at` is the write time. The
 * chain's rows of a layout table all exist (the grid's parcels): they are updated in place, which spares
 * an initial sync's batches of the whole grid an insert attempt per row.
 */
export async function upsertRows<C extends TableSpec['columns']>(
  q: Queryable,
  t: TableSpec<C>,
  rows: readonly RowOf<C>[],
  set: 'all' | 'chain',
  onChunk: (n: number) => void = () => {},
): Promise<void> {
  const columns = columnsOf(t)
  const key: string[] = [...t.key]
  const update = set === 'chain' ? chainColumnsOf(t) : columns.filter((c) => !key.includes(c))
  const stamp = t.stamped ? q`now()` : null
  for (const chunk of chunks(rows)) {
    const from = q`jsonb_populate_recordset(null::${q(t.name)}, ${q.json(chunk as never)}) r`
    await (set === 'chain' && t.rows === 'layout'
      ? q`
        update ${q(t.name)} t set ${assignments(q, update, 'r', stamp)}
        from ${from} where ${sameKey(q, t, 'r')}`
      : q`
        insert into ${q(t.name)} (${q(columns)}) select ${qualified(q, 'r', columns)} from ${from}
        on conflict (${q(key)}) do update set ${assignments(q, update, 'excluded', stamp)}`)
    onChunk(chunk.length)
  }
}

/**
 * Restores every row the indexer changed above block `ancestor` to its image there, in one statement: the
 * oldest undo image of each key above the ancestor is the row as it was at the ancestor; a null image (the
 * row did not exist) deletes the row, any other puts its chain-owned columns and `updated_at` back. Returns
 * how many rows it deleted or restored, and tells them to `collected`.
 */
export async function restoreRows(
  q: Queryable,
  t: TableShape,
  ancestor: bigint,
  collected?: LandChanges,
): Promise<number> {
  const stamped = t.stamped ? ['updated_at'] : []
  const columns = [...columnsOf(t), ...stamped]
  const key: string[] = [...t.key]
  const rows = await q<Array<{ r: Record<string, unknown> }>>`
    with images as (
      select distinct on (key) key, before from land_chain_undo
      where block_number > ${ancestor.toString()} and tbl = ${t.name} order by key, id),
    gone as (
      delete from ${q(t.name)} t using images i, jsonb_populate_record(null::${q(t.name)}, i.key) k
      where i.before is null and ${sameKey(q, t, 'k')}
      returning to_jsonb(t) as r),
    back as (
      insert into ${q(t.name)} as t (${q(columns)})
      select ${qualified(q, 'r', columns)}
      from images i, jsonb_populate_record(null::${q(t.name)}, i.before) r
      where i.before is not null
      on conflict (${q(key)}) do update set ${assignments(q, [...chainColumnsOf(t), ...stamped], 'excluded', null)}
      returning to_jsonb(t) as r)
    select r from gone union all select r from back`
  if (collected) for (const { r } of rows) t.tell(r, collected)
  return rows.length
}

/**
 * Empties what the chain brought into the table: deletes the rows the chain makes, or gives the chain-owned
 * columns of the layout's rows their reset value (only where one differs, so untouched rows are not
 * rewritten).
 */
export async function resetRows(q: Queryable, t: TableShape): Promise<void> {
  if (t.rows === 'chain') {
    await q`delete from ${q(t.name)}`
    return
  }
  const owned = chainColumnsOf(t)
  const reset = (c: string) => typedValue(q, t, c, t.columns[c]!.reset ?? null)
  const sets = joined(
    q,
    owned.map((c) => q`${q(c)} = ${reset(c)}`),
    ', ',
  )
  const differs = joined(
    q,
    owned.map((c) => q`${q(c)} is distinct from ${reset(c)}`),
    ' or ',
  )
  await q`
    update ${q(t.name)} set ${sets}${t.stamped ? q`, updated_at = now()` : q``}
    where ${differs}`
}

/**
 * The table's columns as the service reads them (`select ${selectList(...)} from ...`): uuids as text,
 * bigints as numbers (all of them far below 2^53).
 */
export function selectList(q: Queryable, t: TableShape): Fragment[] {
  return joined(
    q,
    columnsOf(t).map((c) => {
      const { sql } = t.columns[c]!
      if (sql === 'uuid') return q`${q(c)}::text as ${q(c)}`
      if (sql === 'bigint') return q`${q(c)}::float8 as ${q(c)}`
      return q`${q(c)}`
    }),
    ', ',
  )
}
