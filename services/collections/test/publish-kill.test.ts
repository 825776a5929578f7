// A publish is one transaction: the service killed (SIGKILL) in the middle of one leaves the collection as
// it was, and the service, started again, publishes it. The real server process on a real PostgreSQL.
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  createIdentity,
  createTestDatabase,
  lockWaiters,
  requireRealPostgres,
  signedHeaders,
  type TestDatabase,
} from '@genesis/common/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const server = fileURLToPath(new URL('../src/server.ts', import.meta.url))
const ITEMS = 1500

let db: TestDatabase
beforeAll(async () => {
  db = await createTestDatabase()
})
afterAll(async () => {
  await db?.drop()
})

/** The collections server in its own process: its base URL once it listens. */
async function startServer(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--conditions=genesis-source', '--import', 'tsx', server], {
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_FORMAT: 'json',
      DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /"address":"(http:[^"]+)"/.exec(output)
      if (match) resolve(match[1]!)
    })
    child.once('exit', (code) => reject(new Error(`collections exited early (${code}): ${output}`)))
  })
  return { child, url }
}

const send = (
  url: string,
  who: Awaited<ReturnType<typeof createIdentity>>,
  method: 'PUT' | 'POST',
  path: string,
  body: unknown,
) =>
  fetch(`${url}${path}`, {
    method,
    headers: {
      ...signedHeaders(who, method, path, { metadata: { nonce: randomBytes(8).toString('hex') } }),
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  })

describe('a publish cut by SIGKILL', () => {
  it('leaves the collection unpublished and every item without a token id; a new start publishes it', async (ctx) => {
    // the interleaving is forced with a row lock other sessions wait on, as only a real server shows it
    requireRealPostgres(ctx, db)
    const dataDir = mkdtempSync(join(tmpdir(), 'genesis-publish-kill-'))
    ctx.onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }))
    const owner = await createIdentity()
    const first = await startServer(dataDir)
    const id = crypto.randomUUID()
    expect(
      (
        await send(first.url, owner, 'PUT', `/v1/collections/${id}`, {
          id,
          name: `Kill ${randomBytes(4).toString('hex')}`,
        })
      ).status,
    ).toBe(204)
    await db.sql`
      insert into items (id, collection_id, name, type, content_hash, created_at)
      select gen_random_uuid(), ${id}, 'Item ' || i, 'wearable', 'bafkrei' || repeat('a', 52),
             now() - interval '1 hour' + i * interval '1 millisecond'
      from generate_series(1, ${ITEMS}) as i`
    expect(
      (
        await send(first.url, owner, 'POST', `/v1/collections/${id}/tos`, {
          email: 'creator@example.com',
          event: 'publish_collection_tos',
          hashes: [`bafkrei${'a'.repeat(52)}`],
        })
      ).status,
    ).toBe(204)
    const itemIds = (await db.sql<{ id: string }[]>`select id from items where collection_id = ${id}`).map(
      (r) => r.id,
    )

    // the last item's row held here: the publish numbers the others, then waits on it, mid-transaction
    const holder = await db.sql.reserve()
    try {
      await holder`begin`
      await holder`select 1 from items where id = ${itemIds.at(-1)!} for update`
      const publishing = send(first.url, owner, 'POST', `/v1/collections/${id}/publish`, { itemIds }).catch(
        () => null,
      )
      await lockWaiters(db.sql, 1)
      first.child.kill('SIGKILL')
      await once(first.child, 'exit')
      expect(await publishing).toBeNull() // the connection died with the process
      await holder`commit`
    } finally {
      holder.release()
    }
    // the transaction the dead process left is rolled back: nothing of the publish is there
    await expect
      .poll(
        async () =>
          (
            await db.sql`select 1 from pg_stat_activity where datname = current_database() and state = 'idle in transaction'`
          ).length,
      )
      .toBe(0)
    const [collection] = await db.sql<
      { is_published: boolean }[]
    >`select is_published from collections where id = ${id}`
    expect(collection?.is_published).toBe(false)
    const [numbered] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from items where collection_id = ${id} and blockchain_item_id is not null`
    expect(numbered?.n).toBe(0)

    // started again on the same database, the same publish goes through whole
    const second = await startServer(dataDir)
    try {
      const published = await send(second.url, owner, 'POST', `/v1/collections/${id}/publish`, { itemIds })
      expect(published.status, await published.text()).toBe(204)
      const [after] = await db.sql<{ n: number; published: boolean }[]>`
        select count(*) filter (where blockchain_item_id is not null)::int as n,
               bool_and(c.is_published) as published
        from items join collections c on c.id = items.collection_id where collection_id = ${id}`
      expect(after).toEqual({ n: ITEMS, published: true })
    } finally {
      second.child.kill('SIGTERM')
      await once(second.child, 'exit')
    }
  }, 120_000)
})
