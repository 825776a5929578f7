// Token metadata needs absolute image links. With DATABASE_URL outside production and no LAND_PUBLIC_URL
// (the local chain walkthrough), they point at where the service listens instead of answering 503.
import { startTestService, type TestService } from '@genesis/common/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createGridIndex } from '../src/context.js'
import type { GridIndex } from '../src/grid/grid-index.js'
import { migrationsDir } from '../src/paths.js'

const DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/land'

describe('LAND_PUBLIC_URL', () => {
  it('defaults to the listening address with DATABASE_URL outside production; given or required otherwise', () => {
    expect(loadConfig({ DATABASE_URL, PORT: '4000' }).LAND_PUBLIC_URL).toBe('http://localhost:4000')
    expect(loadConfig({ DATABASE_URL, HOST: '127.0.0.1' }).LAND_PUBLIC_URL).toBe('http://127.0.0.1:3003')
    expect(loadConfig({ DATABASE_URL, HOST: '::1' }).LAND_PUBLIC_URL).toBe('http://[::1]:3003')
    expect(loadConfig({ DATABASE_URL, LAND_PUBLIC_URL: 'https://land.example' }).LAND_PUBLIC_URL).toBe(
      'https://land.example',
    )
    // production: only what it is given
    expect(loadConfig({ DATABASE_URL, NODE_ENV: 'production' }).LAND_PUBLIC_URL).toBeUndefined()
    // the embedded default answers with the request's own origin
    expect(loadConfig({}).LAND_PUBLIC_URL).toBeUndefined()
  })

  describe('served', () => {
    let service: TestService
    let grid: GridIndex
    beforeAll(async () => {
      service = await startTestService({
        migrationsDir,
        build: async (sql) => {
          const config = loadConfig({ DATABASE_URL, PORT: '4000', LAND_PREWARM: 'false' })
          grid = createGridIndex(sql, config)
          await grid.start()
          return buildApp({ sql, config, context: { grid } })
        },
      })
    })
    afterAll(async () => {
      await service?.close()
      await grid?.close()
    })

    it('token metadata answers with links under the listening address, not 503', async () => {
      const res = await service.app.inject({ method: 'GET', url: '/v2/parcels/3/4' })
      expect(res.statusCode).toBe(200)
      expect(res.json().image).toMatch(/^http:\/\/localhost:4000\/v2\/parcels\/3\/4\/map\.png\?/)
    })
  })
})
