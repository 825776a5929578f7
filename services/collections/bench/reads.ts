/**
 * `pnpm --filter @genesis/collections bench:reads`: a small read against a bare Fastify answering it with
 * the same code (bench/reads-serve.ts), in the same run (common's bench/against-bare.ts): one collection,
 * its full view, asked for by its owner in a really signed request (headers signed once, sent again within
 * their age, as a dapp does). Target: the service at ≥ 0.85 of bare Fastify.
 */
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { migrate } from '@genesis/common'
import { createIdentity, createTestDatabase, signedHeaders } from '@genesis/common/testing'
import { againstBare } from '../../../packages/common/bench/against-bare.js'
import { COLLECTIONS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'

const owner = await createIdentity()
const db = await createTestDatabase({ settings: COLLECTIONS_DB_SETTINGS })
try {
  await migrate(db.sql, migrationsDir)
  await againstBare({
    script: fileURLToPath(new URL('./reads-serve.ts', import.meta.url)),
    env: { DATABASE_URL: db.url },
    prepare: async (service) => {
      const id = randomUUID()
      const path = `/v1/collections/${id}`
      const body = JSON.stringify({ id, name: 'Bench collection' })
      const created = await fetch(`${service}${path}`, {
        method: 'PUT',
        headers: { ...signedHeaders(owner, 'PUT', path), 'content-type': 'application/json' },
        body,
      })
      if (created.status !== 204) throw new Error(`creating the collection answered ${created.status}`)
      return [
        {
          name: 'GET /v1/collections/:id (its owner, signed)',
          path,
          headers: signedHeaders(owner, 'GET', path),
        },
      ]
    },
  })
} finally {
  await db.drop()
}
