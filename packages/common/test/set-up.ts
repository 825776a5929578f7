// Set-up shared by the kit's test files, through vitest's hooks (apart from fixtures.ts, which the child
// processes of some tests import too).
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { type App, createApp, ok, recordSignature, replayRefused } from '../src/index.js'
import type { TestDatabase } from '../src/testing/index.js'
import { startBeforeAll, useTestDatabase } from '../src/testing/vitest.js'
import { emptyMigrations } from './fixtures.js'

/** A fresh database with the kit's own tables only, for the tests of the file (or of the describe). */
export const useKitDatabase = (): TestDatabase => useTestDatabase({ migrationsDir: emptyMigrations() })

export interface SignedDemo {
  db: TestDatabase
  /** Two replicas on the one database, as a deployment runs them. */
  app: App
  replica: App
}

/**
 * A demo service's signed routes under /v1, in two replicas on one fresh database, for the file's tests:
 * POST /things and /things/:id (a name in the body) and GET /things, which the kit's replay store guards;
 * POST /notes and /notes/:id, which record the signature in their own write, as the claims create does,
 * and note the signer in kit_test_notes; GET /maybe, signed or not.
 */
export function useSignedDemo(options: { authMaxAgeS: number }): SignedDemo {
  const db = useKitDatabase()
  const build = async (): Promise<App> => {
    const demo = await createApp({ name: 'demo', version: '1.0.0', sql: db.sql, ...options })
    await demo.register(
      async (scope) => {
        const named = {
          config: { auth: 'signed' },
          schema: { body: Type.Object({ name: Type.String() }) },
        } as const
        const signer = async (request: FastifyRequest) => ok({ signer: request.signer })
        scope.post('/things', named, signer)
        scope.post('/things/:id', named, signer)
        scope.get('/things', { config: { auth: 'signed' } }, signer)
        scope.get('/maybe', { config: { auth: 'optional' } }, signer)
        const note = async (request: FastifyRequest) => {
          const [row] = await db.sql<{ fresh: boolean }[]>`
            with used as (${recordSignature(db.sql, request.usedSignature!)}),
            note as (insert into kit_test_notes (signer) select ${request.signer} where exists (select from used))
            select exists (select from used) as fresh`
          if (!row?.fresh) throw replayRefused()
          return ok({ signer: request.signer })
        }
        scope.post('/notes', { config: { auth: 'signed', replay: 'route' } }, note)
        scope.post('/notes/:id', { config: { auth: 'signed', replay: 'route' } }, note)
      },
      { prefix: '/v1' },
    )
    return demo
  }
  const apps = startBeforeAll(
    async () => {
      await db.sql`create table kit_test_notes (signer text not null)`
      return { app: await build(), replica: await build() }
    },
    {
      stop: async ({ app, replica }) => {
        await app.close()
        await replica.close()
      },
    },
  )
  return {
    db,
    get app() {
      return apps.app
    },
    get replica() {
      return apps.replica
    },
  }
}
