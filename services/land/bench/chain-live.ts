/**
 * `pnpm --filter @genesis/land bench:chain-live` (from services/land): land following a live chain.
 * - Steady-state lag: anvil mines one block a second with one LAND transfer in each; the time from the
 *   transfer's receipt existing (polled every 10 ms) to `GET /parcels/x/y` answering the new owner (polled
 *   every 10 ms), over BENCH_TRANSFERS blocks (default 30): median and p95.
 * - Reads while indexing: autocannon on `GET /parcels/0/0` and a cached `GET /map.png`, rounds alternating
 *   a chain at rest (the indexer polling, nothing to index) with a chain taking transfers as fast as it
 *   mines them (the indexer writing a batch and the index rebuilding after each); the ratio is the median
 *   of the per-round ratios.
 * The service runs in its own process (src/server.ts through tsx) on a fresh PostgreSQL database, with
 * its default LAND_POLL_MS unless the environment sets one.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { migrate } from '@genesis/common'
import { createTestDatabase } from '@genesis/common/testing'
import { contractAt, deployLand, startAnvil } from '@genesis/contracts'
import autocannon from 'autocannon'
import type { Contract } from 'ethers'
import { migrationsDir, packageRoot } from '../src/paths.js'

const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 30)
const ROUNDS = 5
const DURATION_S = 2
const load = () =>
  loadavg()
    .map((v) => v.toFixed(2))
    .join(' ')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

console.log(`load average at start: ${load()}`)
const anvil = await startAnvil()
const provider = anvil.provider()
const db = await createTestDatabase()
let server: ChildProcess | undefined
try {
  const admin = anvil.devWallet(0, provider)
  const alice = anvil.devWallet(1, provider)
  const bob = anvil.devWallet(2, provider)
  const d = await deployLand(admin)
  const land = contractAt('LANDRegistry', d.landRegistry, admin)
  const xs = Array.from({ length: 50 }, (_, i) => i - 25)
  await (
    await land.getFunction('assignMultipleParcels')(
      xs,
      xs.map(() => 5),
      alice.address,
    )
  ).wait()
  await migrate(db.sql, migrationsDir)

  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  server = spawn(process.execPath, ['--import', 'tsx', join(packageRoot, 'src/server.ts')], {
    cwd: packageRoot,
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      LAND_RPC_URL: anvil.url,
      LAND_REGISTRY_ADDRESS: d.landRegistry,
      ESTATE_REGISTRY_ADDRESS: d.estateRegistry,
      MARKETPLACE_ADDRESS: d.marketplace,
      LAND_START_BLOCK: String(d.startBlock),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const ownerOf = async (x: number, y: number) => {
    const res = await fetch(`${base}/parcels/${x}/${y}`).catch(() => null)
    if (res?.status !== 200) return undefined
    return ((await res.json()) as { data: { owner: string | null } }).data.owner
  }
  for (;;) {
    if ((await ownerOf(0, 5)) === alice.address.toLowerCase()) break
    await sleep(200)
  }
  console.log(`land is following the chain (poll ${process.env.LAND_POLL_MS ?? 'default'} ms)`)

  // 1. steady-state lag: one block a second, one transfer in each
  await provider.send('evm_setAutomine', [false])
  await provider.send('evm_setIntervalMining', [1])
  const lags: number[] = []
  const aliceLand = land.connect(alice) as Contract
  const bobLand = land.connect(bob) as Contract
  let aliceNonce = await provider.getTransactionCount(alice.address)
  let bobNonce = await provider.getTransactionCount(bob.address)
  for (let i = 0; i < TRANSFERS; i++) {
    const x = xs[i % xs.length]!
    // there and back: parcel x goes alice → bob on even passes, bob → alice on odd ones
    const forward = Math.floor(i / xs.length) % 2 === 0
    const to = forward ? bob.address : alice.address
    const tx = forward
      ? await aliceLand.getFunction('transferLand')(x, 5, to, { nonce: aliceNonce++, gasLimit: 200_000n })
      : await bobLand.getFunction('transferLand')(x, 5, to, { nonce: bobNonce++, gasLimit: 200_000n })
    let mined = 0
    while (!(await provider.send('eth_getTransactionReceipt', [tx.hash]))) await sleep(10)
    mined = Date.now()
    while ((await ownerOf(x, 5)) !== to.toLowerCase()) await sleep(10)
    lags.push(Date.now() - mined)
  }
  await provider.send('evm_setIntervalMining', [0])
  await provider.send('evm_setAutomine', [true])
  console.log(
    `steady-state lag over ${TRANSFERS} blocks (1 block/s, a transfer each): median ${quantile(lags, 0.5)} ms, ` +
      `p95 ${quantile(lags, 0.95)} ms, max ${Math.max(...lags)} ms; load average ${load()}`,
  )

  // 2. reads with the chain at rest and while the indexer works
  const png = '/map.png?width=512&height=512&size=10&center=0,0'
  await fetch(`${base}${png}`)
  let busy = false
  let finished = false
  let sent = 0
  const writer = (async () => {
    let i = 0
    while (!finished) {
      if (!busy) {
        await sleep(20)
        continue
      }
      const x = xs[i % xs.length]!
      const owner = await land.getFunction('ownerOfLand')(x, 5)
      const from = owner.toLowerCase() === alice.address.toLowerCase() ? aliceLand : bobLand
      const to = from === aliceLand ? bob.address : alice.address
      await (await from.getFunction('transferLand')(x, 5, to)).wait()
      sent++
      i++
    }
  })()
  void writer.catch((err) => console.error('writer stopped:', err))
  const run = async (path: string) =>
    (await autocannon({ url: `${base}${path}`, duration: DURATION_S, connections: 10, workers: 1 })).requests
      .average
  const figures: Record<string, { rest: number[]; indexing: number[]; ratios: number[] }> = {}
  for (const path of ['/parcels/0/0', png]) {
    const f = { rest: [] as number[], indexing: [] as number[], ratios: [] as number[] }
    figures[path] = f
    for (let round = 0; round < ROUNDS; round++) {
      // the order alternates from round to round
      const order = round % 2 === 0 ? [false, true] : [true, false]
      const pair: Record<string, number> = {}
      for (const indexing of order) {
        busy = indexing
        if (indexing) await sleep(300) // the indexer is into its batches
        pair[String(indexing)] = await run(path)
        busy = false
        await sleep(300)
      }
      f.rest.push(pair.false!)
      f.indexing.push(pair.true!)
      f.ratios.push(pair.true! / pair.false!)
    }
  }
  console.log(`transfers indexed during the read rounds: ${sent}; load average ${load()}`)
  for (const [path, f] of Object.entries(figures)) {
    console.log(
      `GET ${path}: at rest ${quantile(f.rest, 0.5).toFixed(0)} req/s, while indexing ` +
        `${quantile(f.indexing, 0.5).toFixed(0)} req/s, ratio ${quantile(f.ratios, 0.5).toFixed(3)} ` +
        `(rounds: ${f.ratios.map((r) => r.toFixed(2)).join(', ')})`,
    )
  }
  finished = true
  await writer
} finally {
  server?.kill('SIGTERM')
  provider.destroy()
  await db.drop().catch(() => {})
  await anvil.close()
}
