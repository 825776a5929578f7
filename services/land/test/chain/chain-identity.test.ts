// A land that follows a chain starts from that chain alone: a development node started afresh at the same
// URL (`pnpm chain` again: anvil keeps no state) is another chain, and land indexes it again by itself; on a
// chain that is not a development one, another chain's data is refused until `reindex` empties it; owners
// that no chain brought (seeded, imported) are refused too, and the server says so in one line and exits.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import type { Sql } from '@genesis/common'
import { chainTestsSkipReason } from '@genesis/contracts'
import type { Parcel } from '@genesis/wire/land'
import { afterEach, describe, expect, it } from 'vitest'
import { seed } from '../../src/seed.js'
import { chainEnv, cursorBlock, indexedRows, perTest, type Replica, type World, within } from './helpers.js'

const skip = chainTestsSkipReason()
const packageRoot = join(import.meta.dirname, '../..')

const t = perTest()
afterEach(() => t.closeAll())
const { world, database, replica } = t
const ownerOf = async (r: Replica, x: number, y: number) =>
  (await r.get<Parcel>(`/parcels/${x}/${y}`)).body.data.owner
const genesisOf = async (sql: Sql) =>
  (await sql<Array<{ genesis_hash: string }>>`select genesis_hash from land_chain_identity`)[0]?.genesis_hash

/** Runs one of land's entry points in its own process: its exit code and everything it printed. */
function run(script: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(packageRoot, script)], {
      cwd: packageRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => {
      output += chunk
    })
    child.stderr.on('data', (chunk) => {
      output += chunk
    })
    child.on('exit', (code) => resolve({ code, output }))
  })
}

describe.skipIf(skip)('one chain per database', () => {
  it('a development node started afresh at the same URL: recognised, emptied and indexed again by itself', async () => {
    const first = await world()
    const port = first.anvil.port
    const a = first.alice.address.toLowerCase()
    await first.send(first.land, 'assignMultipleParcels', [0, 1], [20, 20], a)
    const db = await database()
    const r = await replica(db.url, chainEnv(first.d, first.anvil.url))
    await within(20_000, async () => (await ownerOf(r, 1, 20)) === a, 'first chain indexed')
    const firstGenesis = await genesisOf(db.sql)
    expect(firstGenesis).toMatch(/^0x[0-9a-f]{64}$/)

    // `pnpm chain` again: a new node on the same port, the same contracts at the same addresses
    await first.close()
    const second = await world({ port })
    expect(second.d.landRegistry).toBe(first.d.landRegistry)
    const b = second.bob.address.toLowerCase()
    await second.send(second.land, 'assignMultipleParcels', [5], [20], b)

    await within(30_000, async () => (await ownerOf(r, 5, 20)) === b, 'second chain indexed')
    expect(await ownerOf(r, 1, 20)).toBeNull()
    expect(r.indexer.refused).toBeNull()
    expect(await genesisOf(db.sql)).not.toBe(firstGenesis)
    // the same rows as a land that only ever saw the second chain
    const fresh = await database()
    const other = await replica(fresh.url, chainEnv(second.d, second.anvil.url))
    const head = (await second.provider.getBlock('latest'))!.number
    await within(20_000, async () => ((await cursorBlock(other.sql)) ?? -1) >= head, 'fresh index')
    await within(20_000, async () => ((await cursorBlock(r.sql)) ?? -1) >= head, 'caught up')
    expect(await indexedRows(r.sql)).toEqual(await indexedRows(other.sql))
  }, 180_000)

  it('elsewhere, another chain’s data is refused, untouched, until `reindex` empties it', async () => {
    const first = await world()
    const port = first.anvil.port
    const a = first.alice.address.toLowerCase()
    await first.send(first.land, 'assignMultipleParcels', [0], [21], a)
    const db = await database()
    const env = (w: World) => chainEnv(w.d, w.anvil.url, { LAND_DEV_CHAIN: 'false' })
    const r = await replica(db.url, env(first))
    await within(20_000, async () => (await ownerOf(r, 0, 21)) === a, 'first chain indexed')

    await first.close()
    const second = await world({ port })
    const b = second.bob.address.toLowerCase()
    await second.send(second.land, 'assignMultipleParcels', [6], [21], b)
    await within(30_000, async () => r.indexer.refused !== null, 'refused')
    expect(r.indexer.refused).toMatch(
      /^land: the database holds the data of another chain \(chain \d+, genesis 0x[0-9a-f]{8}…, LAND registry 0x[0-9a-f]{40}\) than LAND_RPC_URL's .*pnpm --filter @genesis\/land reindex/,
    )
    expect(r.indexer.writing).toBe(false)
    expect(await ownerOf(r, 0, 21)).toBe(a)
    await r.close()

    const reindexed = await run('src/reindex.ts', { ...env(second), DATABASE_URL: db.url, LOG_LEVEL: 'warn' })
    expect(reindexed).toMatchObject({ code: 0 })
    const again = await replica(db.url, env(second))
    await within(30_000, async () => (await ownerOf(again, 6, 21)) === b, 'second chain indexed')
    expect(await ownerOf(again, 0, 21)).toBeNull()
    expect(again.indexer.refused).toBeNull()
  }, 180_000)

  it('owners no chain brought (imported) are refused, even on a development chain', async () => {
    const w = await world()
    const db = await database()
    await db.sql`update parcels set owner = ${`0x${'1'.repeat(40)}`} where x = 0 and y = 0`
    const r = await replica(db.url, chainEnv(w.d, w.anvil.url))
    await within(20_000, async () => r.indexer.refused !== null, 'refused')
    expect(r.indexer.refused).toMatch(/did not come from the chain \(seeded or imported\).*reindex/)
    expect(await cursorBlock(r.sql)).toBeNull()
  }, 60_000)

  it('the server on the quick start’s seeded data says why in one line and exits 1', async () => {
    const w = await world()
    const db = await database()
    await seed(db.sql)
    const started = await run('src/server.ts', {
      ...chainEnv(w.d, w.anvil.url, { LOG_LEVEL: 'info' }),
      DATABASE_URL: db.url,
      PORT: '0',
      HOST: '127.0.0.1',
    })
    expect(started.code).toBe(1)
    const refusals = started.output.split('\n').filter((line) => line.includes('did not come from the chain'))
    expect(refusals).toHaveLength(1)
    expect(refusals[0]).toContain('pnpm --filter @genesis/land reindex')
  }, 120_000)
})
