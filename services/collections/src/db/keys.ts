import { isEmbedded, type Sql, uniqueViolation } from '@genesis/common'

/**
 * Columns whose value the service computes from the row (a confusable skeleton, a keccak256 digest: not
 * PostgreSQL functions) and on which a unique index keeps a promise. Rows written before the column
 * existed, or by a replica of an earlier version during a rolling deploy, have none: `completeKeys` fills
 * them before the service serves.
 */
interface KeyColumn {
  /** For the log. */
  what: string
  table: 'collections' | 'slot_usage_cheques'
  column: 'name_key' | 'digest'
  idType: 'uuid' | 'bigint'
  /** The unique index, and what follows `on <table>` in its definition. */
  index: string
  indexed: string
  /** Where keys must differ (a condition on the table); of rows sharing a key, the oldest keeps it. */
  scope: string
  oldestFirst: string
  /** Up to `limit` rows without a key whose id sorts after `after`, in id order, each with its key. */
  unkeyed(sql: Sql, after: string | null, limit: number): Promise<{ id: string; key: string }[]>
}

type ChequeDigestOf = (thirdPartyId: string, cheque: { qty: number; salt: string }) => string

/** How the service computes each key (the domain's rules: this module only stores what they give). */
export interface KeyFunctions {
  nameKey: (name: string) => string
  chequeDigest: ChequeDigestOf
}

export interface KeysLog {
  info(details: object, message: string): void
  warn(details: object, message: string): void
}

const BATCH = 1000
// Serialises replicas that start together (the migrations' lock is another number).
const KEYS_LOCK = 7_262_022

export const NAME_KEY_INDEX = 'collections_standard_name_key_form'
export const CHEQUE_DIGEST_INDEX = 'slot_usage_cheques_digest_key'

const nameKeys = (nameKey: (name: string) => string): KeyColumn => ({
  what: 'collection name keys',
  table: 'collections',
  column: 'name_key',
  idType: 'uuid',
  index: NAME_KEY_INDEX,
  indexed: '(name_key) where third_party_id is null',
  scope: 'third_party_id is null',
  oldestFirst: 'created_at, id',
  unkeyed: async (sql, after, limit) => {
    const rows = await sql<{ id: string; name: string }[]>`
      select id::text, name from collections
      where name_key is null ${after === null ? sql`` : sql`and id > ${after}::uuid`}
      order by id limit ${limit}`
    return rows.map((row) => ({ id: row.id, key: nameKey(row.name) }))
  },
})

const chequeDigests = (chequeDigest: ChequeDigestOf): KeyColumn => ({
  what: 'cheque digests',
  table: 'slot_usage_cheques',
  column: 'digest',
  idType: 'bigint',
  index: CHEQUE_DIGEST_INDEX,
  indexed: '(digest)',
  scope: 'true',
  oldestFirst: 'id',
  unkeyed: async (sql, after, limit) => {
    const rows = await sql<{ id: string; third_party_id: string; qty: number; salt: string }[]>`
      select id::text, third_party_id, qty, salt from slot_usage_cheques
      where digest is null ${after === null ? sql`` : sql`and id > ${after}::bigint`}
      order by id limit ${limit}`
    return rows.map((row) => ({
      id: row.id,
      key: chequeDigest(row.third_party_id, { qty: row.qty, salt: row.salt }),
    }))
  },
})

/** Whether the index exists and is valid (a concurrent build that failed leaves an invalid one). */
async function indexState(sql: Sql, index: string): Promise<'valid' | 'invalid' | 'missing'> {
  const [row] = await sql<{ valid: boolean }[]>`
    select indisvalid as valid from pg_index where indexrelid = to_regclass(${index})`
  return row === undefined ? 'missing' : row.valid ? 'valid' : 'invalid'
}

/** Every row without a key gets one, in batches of short statements; nothing checks uniqueness yet. */
async function fillAll(sql: Sql, spec: KeyColumn): Promise<number> {
  let after: string | null = null
  let filled = 0
  for (;;) {
    const rows = await spec.unkeyed(sql, after, BATCH)
    if (rows.length === 0) return filled
    await sql.unsafe(
      `update ${spec.table} t set ${spec.column} = v.key
       from (select unnest($1::text[]) as id, unnest($2::text[]) as key) v
       where t.id = v.id::${spec.idType} and t.${spec.column} is null`,
      [rows.map((r) => r.id), rows.map((r) => r.key)],
    )
    filled += rows.length
    after = rows[rows.length - 1]!.id
  }
}

/**
 * Rows that took the same key before keys existed (lookalike names, re-spelled cheques) cannot all keep
 * it: the oldest does, the others are left without a key, and the log names them.
 */
async function releaseDuplicates(sql: Sql, spec: KeyColumn, log: KeysLog): Promise<void> {
  const released = await sql.unsafe<{ id: string }[]>(
    `update ${spec.table} set ${spec.column} = null
     where id in (select id from (select id, row_number() over (partition by ${spec.column}
                                                                 order by ${spec.oldestFirst}) as n
                                  from ${spec.table} where ${spec.column} is not null and ${spec.scope}) d
                  where n > 1)
     returning id::text`,
  )
  if (released.length > 0) {
    log.warn(
      { table: spec.table, ids: released.map((r) => r.id) },
      `${released.length} rows share the key of an older row and were left without one (${spec.what})`,
    )
  }
}

/** With the unique index in place: one row at a time, a row whose key is taken stays without one. */
async function fillChecked(sql: Sql, spec: KeyColumn): Promise<{ filled: number; taken: number }> {
  let after: string | null = null
  let filled = 0
  let taken = 0
  for (;;) {
    const rows = await spec.unkeyed(sql, after, BATCH)
    if (rows.length === 0) return { filled, taken }
    for (const row of rows) {
      try {
        await sql.unsafe(
          `update ${spec.table} set ${spec.column} = $1 where id = $2::${spec.idType} and ${spec.column} is null`,
          [row.key, row.id],
        )
        filled++
      } catch (error) {
        if (uniqueViolation(error) !== spec.index) throw error
        taken++
      }
    }
    after = rows[rows.length - 1]!.id
  }
}

async function completeKey(sql: Sql, spec: KeyColumn, log: KeysLog): Promise<void> {
  // The embedded database has one connection and no other writer: nothing to build around.
  const concurrently = isEmbedded(sql) ? '' : 'concurrently'
  const state = await indexState(sql, spec.index)
  if (state !== 'valid') {
    // An invalid index may still check new entries: it goes before the keys are filled.
    if (state === 'invalid') await sql.unsafe(`drop index ${concurrently} if exists ${spec.index}`)
    const filled = await fillAll(sql, spec)
    await releaseDuplicates(sql, spec, log)
    await sql.unsafe(`create unique index ${concurrently} ${spec.index} on ${spec.table} ${spec.indexed}`)
    if (filled > 0) log.info({ table: spec.table, filled }, `${spec.what}: filled, unique index built`)
  }
  // Rows written meanwhile by a replica that does not know the column, and rows released above.
  const checked = await fillChecked(sql, spec)
  if (checked.filled > 0 || checked.taken > 0) {
    log.info({ table: spec.table, ...checked }, `${spec.what}: rows without a key examined`)
  }
}

/**
 * Fills the service-computed keys of rows that have none and makes sure their unique indexes exist
 * (built concurrently: writes go on meanwhile). Idempotent and cheap once done; replicas that start
 * together take turns. Run before the service serves (server.ts) and by the pre-deploy `migrate` job;
 * `sql` should have no query deadline, as an index build on a big table is one long statement.
 */
export async function completeKeys(sql: Sql, options: KeyFunctions & { log: KeysLog }): Promise<void> {
  const specs = [nameKeys(options.nameKey), chequeDigests(options.chequeDigest)]
  if (isEmbedded(sql)) {
    for (const spec of specs) await completeKey(sql, spec, options.log)
    return
  }
  const lock = await sql.reserve()
  try {
    await lock`select pg_advisory_lock(${KEYS_LOCK})`
    for (const spec of specs) await completeKey(sql, spec, options.log)
  } finally {
    await lock`select pg_advisory_unlock(${KEYS_LOCK})`.catch(() => {})
    lock.release()
  }
}
