import { isEmbedded, type Queryable, type Sql } from '@genesis/common'

/**
 * The right to write the chain's data, held by one replica at a time: a session advisory lock on a
 * connection reserved for it, which also carries every transaction of the holder, so that a holder whose
 * session ended (and with it the lock) cannot commit anything. On the embedded database one process owns
 * the data (its directory is locked), so the lease is the pool's one connection and needs no lock.
 */
export interface WriterLease {
  /** Reads on the lease's own connection. */
  readonly sql: Queryable
  /** Runs `work` in one transaction on the lease: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>
  /** False once the lease's connection is gone (the lock with it): released, acquire again. */
  holds(): Promise<boolean>
  release(): Promise<void>
}

type Reserved = Sql & { release(): void }

/** The lease on `key`, or null while another session holds it. */
export async function acquireWriterLease(sql: Sql, key: bigint): Promise<WriterLease | null> {
  if (isEmbedded(sql)) return embeddedLease(sql)
  const conn = (await sql.reserve()) as Reserved
  try {
    const [row] = await conn<
      Array<{ ok: boolean }>
    >`select pg_try_advisory_lock(${key.toString()}::bigint) as ok`
    if (!row?.ok) {
      conn.release()
      return null
    }
  } catch (err) {
    conn.release()
    throw err
  }
  return reservedLease(conn, key)
}

function embeddedLease(sql: Sql): WriterLease {
  return {
    sql,
    transaction: async <T>(work: (tx: Queryable) => Promise<T>) => (await sql.begin(work)) as T,
    holds: async () => true,
    release: async () => {},
  }
}

function reservedLease(conn: Reserved, key: bigint): WriterLease {
  let released = false
  const release = () => {
    if (released) return
    released = true
    conn.release()
  }
  return {
    sql: conn,
    // a reserved connection has no begin(): the statements are sent on it in order
    async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      await conn`begin`
      try {
        const result = await work(conn)
        await conn`commit`
        return result
      } catch (err) {
        await conn`rollback`.catch(() => {})
        throw err
      }
    },
    async holds() {
      if (released) return false
      try {
        await conn`select 1`
        return true
      } catch {
        release()
        return false
      }
    },
    async release() {
      if (released) return
      await conn`select pg_advisory_unlock(${key.toString()}::bigint)`.catch(() => {})
      release()
    },
  }
}
