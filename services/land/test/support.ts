import { type App, migrate } from '@genesis/common'
import { createTestDatabase, type TestDatabase } from '@genesis/common/testing'
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { expect } from 'vitest'
import { buildApp } from '../src/app.js'
import { GridIndex } from '../src/grid/grid-index.js'
import { migrationsDir } from '../src/paths.js'
import '../src/schemas/formats.js'
import { seed } from '../src/seed.js'

export interface Land {
  db: TestDatabase
  grid: GridIndex
  app: App
  close(): Promise<void>
}

/** A fresh database with the migrations, optionally the Genesis City set, the index built and the app. */
export async function startLand(
  options: { seeded?: boolean; listen?: boolean; debounceMs?: number } = {},
): Promise<Land> {
  const db = await createTestDatabase()
  await migrate(db.sql, migrationsDir)
  if (options.seeded ?? true) await seed(db.sql)
  const grid = new GridIndex(db.sql, { debounceMs: options.debounceMs ?? 20 })
  if (options.listen) await grid.listen()
  await grid.start()
  const app = await buildApp({ sql: db.sql, grid })
  await app.ready()
  return {
    db,
    grid,
    app,
    close: async () => {
      await app.close()
      await grid.close()
      await db.drop()
    },
  }
}

/** Asserts that a value matches a TypeBox schema, listing the mismatches when it does not. */
export function expectSchema(schema: TSchema, value: unknown) {
  const errors = [...Value.Errors(schema, value)].slice(0, 5).map((e) => `${e.path}: ${e.message}`)
  expect(errors).toEqual([])
}

/** Polls until the condition holds (the index refreshes asynchronously after NOTIFY). */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
