import { join } from 'node:path'
import { startTestService, type TestDatabaseSeed, type TestService } from '@genesis/common/testing'
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { expect } from 'vitest'
import { buildApp } from '../src/app.js'
import { AtlasIndex } from '../src/atlas/atlas-view.js'
import { loadConfig } from '../src/config.js'
import { createGridIndex } from '../src/context.js'
import type { GridIndex } from '../src/grid/grid-index.js'
import { dataDir, migrationsDir, packageRoot } from '../src/paths.js'
import '@genesis/wire/formats'
import { seed } from '../src/seed.js'

export interface Land extends TestService {
  grid: GridIndex
  /** The app's atlas index (handed in, so that a test can look at it). */
  atlas: AtlasIndex
}

/**
 * The Genesis City demo set as a test database's seed: written once into the package's template database,
 * which every seeded test database is a copy of. It is made from the data files and code that reaches from
 * src/seed into the rest of src/: a change anywhere in src/ makes a new template.
 */
export const demoSeed: TestDatabaseSeed = {
  name: 'demo',
  inputs: [dataDir, join(packageRoot, 'src')],
  write: async (sql) => {
    await seed(sql)
  },
}

/** A fresh database with the migrations, optionally the Genesis City set, the index built and the app. */
export async function startLand(
  options: { seeded?: boolean; listen?: boolean; debounceMs?: number } = {},
): Promise<Land> {
  const config = loadConfig({
    LAND_REFRESH_DEBOUNCE_MS: String(options.debounceMs ?? 20),
    LAND_PREWARM: 'false',
  })
  let grid: GridIndex | undefined
  let atlas: AtlasIndex | undefined
  const service = await startTestService({
    migrationsDir,
    ...((options.seeded ?? true) ? { seed: demoSeed } : {}),
    build: async (sql) => {
      grid = createGridIndex(sql, config)
      if (options.listen) await grid.listen()
      await grid.start()
      atlas = new AtlasIndex(grid)
      return buildApp({ sql, config, context: { grid, atlas } })
    },
  })
  await service.app.ready()
  const started = grid!
  const atlasIndex = atlas!
  return {
    ...service,
    grid: started,
    atlas: atlasIndex,
    close: async () => {
      await service.close()
      atlasIndex.close()
      await started.close()
    },
  }
}

/** Asserts that a value matches a TypeBox schema, listing the mismatches when it does not. */
export function expectSchema(schema: TSchema, value: unknown) {
  const errors = [...Value.Errors(schema, value)].slice(0, 5).map((e) => `${e.path}: ${e.message}`)
  expect(errors).toEqual([])
}

/**
 * Polls until the condition holds (the index refreshes asynchronously after NOTIFY). The deadline is on
 * performance.now(), which keeps running while a test holds Date still.
 */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
