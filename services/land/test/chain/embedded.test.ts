import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chainTestsSkipReason } from '@genesis/contracts'
import type { ChainStatus, Parcel } from '@genesis/wire/land'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chainEnv, startWorld, type World, within } from './helpers.js'

const skip = chainTestsSkipReason()
const VISIBLE_MS = Number(process.env.CHAIN_VISIBLE_MS ?? 2000)
const packageRoot = join(import.meta.dirname, '../..')

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })

/** land as `pnpm start` runs it without DATABASE_URL: the embedded PGlite under DATA_DIR, in its own process. */
describe.skipIf(skip)('land on the embedded database follows the chain', () => {
  let w: World
  let server: ChildProcess
  let dataDir: string
  let base: string
  let output = ''
  // The grid's own lines, counted over the whole run (output keeps only the end).
  const gridLines = { built: 0, patched: 0 }

  const get = async <T>(path: string) => {
    const res = await fetch(`${base}${path}`)
    return { status: res.status, body: (await res.json()) as { data: T } }
  }
  const ownerOf = async (x: number, y: number) => (await get<Parcel>(`/parcels/${x}/${y}`)).body.data.owner

  beforeAll(async () => {
    w = await startWorld()
    dataDir = mkdtempSync(join(tmpdir(), 'land-embedded-'))
    const port = await freePort()
    base = `http://127.0.0.1:${port}`
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'DATABASE_URL'))
    server = spawn(process.execPath, ['--import', 'tsx', join(packageRoot, 'src/server.ts')], {
      cwd: packageRoot,
      env: {
        ...env,
        // info: the grid's 'land index built' and 'land index patched' lines are counted
        ...chainEnv(w.d, w.anvil.url, { LOG_LEVEL: 'info' }),
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        // the layout (districts) is not what this test is about: every parcel row exists from the migration
        LAND_AUTO_SEED: 'never',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let partial = ''
    server.stdout?.on('data', (chunk) => {
      output = (output + chunk).slice(-4000)
      const lines = (partial + chunk).split('\n')
      partial = lines.pop() ?? ''
      for (const line of lines) {
        if (line.includes('"msg":"land index built"')) gridLines.built++
        if (line.includes('"msg":"land index patched"')) gridLines.patched++
      }
    })
    server.stderr?.on('data', (chunk) => {
      output = (output + chunk).slice(-4000)
    })
    // PGlite's start, the migrations and the layout take a while on a busy machine
    try {
      await within(
        240_000,
        async () => {
          if (server.exitCode !== null) throw new Error(`land exited (${server.exitCode})`)
          const res = await fetch(`${base}/status`).catch(() => null)
          return res?.status === 200 && ((await res.json()) as { data: ChainStatus }).data.block !== null
        },
        'land on the embedded database indexing',
      )
    } catch (err) {
      throw new Error(`${String(err)}; land said: ${output}`)
    }
  }, 300_000)
  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve))
      server.kill('SIGTERM')
      await exited
    }
    await w?.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it('sees an assignment and then a transfer in /parcels, and /status follows the head', async () => {
    const alice = w.alice.address.toLowerCase()
    const bob = w.bob.address.toLowerCase()
    await w.send(w.land, 'assignMultipleParcels', [30, 31], [-20, -20], alice)
    // the first batch after start-up is not held to the steady-state bound
    await within(10_000, async () => (await ownerOf(30, -20)) === alice, 'assignment')
    // The indexer names the rows it wrote and the grid re-reads those, as on PostgreSQL: no rebuild of the
    // whole grid for a batch (guards: onChange back to a full refresh). Log lines may trail the answers.
    const patched = (count: number) => async () => gridLines.patched > count
    await within(10_000, patched(0), "the assignment's patch")
    const builtBefore = gridLines.built
    const patchedBefore = gridLines.patched
    const { blockNumber } = await w.send(w.as(w.land, w.alice), 'transferLand', 30, -20, bob)
    await within(VISIBLE_MS, async () => (await ownerOf(30, -20)) === bob, 'transfer')
    await within(10_000, patched(patchedBefore), "the transfer's patch")
    expect(gridLines.built).toBe(builtBefore)
    expect(await ownerOf(31, -20)).toBe(alice)
    await within(VISIBLE_MS, async () => (await get<ChainStatus>('/status')).body.data.block! >= blockNumber)
    const { status, body } = await get<ChainStatus>('/status')
    expect(status).toBe(200)
    expect(body.data.source).toBe('chain')
    // the grid (and so the map) follows the embedded database too: it has no NOTIFY, the indexer tells it
    const map = await get<{ assets: { parcels: Parcel[] } }>('/map?nw=30,-20&se=30,-20')
    expect(map.body.data.assets.parcels[0]?.owner).toBe(bob)
    // a land that follows a chain keeps its own embedded store, apart from the quick start's demo set
    expect(existsSync(join(dataDir, 'pglite-chain'))).toBe(true)
    expect(existsSync(join(dataDir, 'pglite'))).toBe(false)
  })
})
