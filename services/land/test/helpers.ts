import { startTestService, type TestService } from '@genesis/common/testing'
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { expect } from 'vitest'
import { buildApp } from '../src/app.js'
import { AtlasIndex } from '../src/atlas/atlas-view.js'
import { loadConfig } from '../src/config.js'
import { createGridIndex } from '../src/context.js'
import type { GridIndex } from '../src/grid/grid-index.js'
import { migrationsDir } from '../src/paths.js'
import '../src/schemas/formats.js'
import { seed } from '../src/seed.js'

export interface Land extends TestService {
  grid: GridIndex
  /** The app's atlas index (handed in, so that a test can look at it). */
  atlas: AtlasIndex
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
    build: async (sql) => {
      if (options.seeded ?? true) await seed(sql)
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
