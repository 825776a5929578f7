/**
 * `pnpm --filter @genesis/land bench:chain-live` (from services/land): land following a live chain.
 * - Steady-state lag: anvil mines one block a second with one LAND transfer in each; the time from the
 *   transfer's receipt existing (polled every 10 ms) to `GET /parcels/x/y` answering the new owner (polled
 *   every 10 ms), over BENCH_TRANSFERS blocks (default 30): median and p95.
 * - Reads while indexing: autocannon on `GET /parcels/0/0` and a cached `GET /map.png`, in rounds that take
 *   turns (the order rotating from round to round) between a chain at rest (no blocks: the indexer polling,
 *   nothing to index), the steady state above (a block a second, a transfer in each: the figure the target
 *   is about) and a flood (transfers back to back, each mined at once: the indexer, anvil and this
 *   process's writer all busy); each ratio is the median of the per-round ratios to the round at rest.
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
  type Mode = 'rest' | 'steady' | 'flood'
  let mode: Mode = 'rest'
  let finished = false
  let inFlight = false
  const sent: Record<Mode, number> = { rest: 0, steady: 0, flood: 0 }
  const setMode = async (next: Mode) => {
    mode = 'rest'
    while (inFlight) await sleep(10) // the transfer in flight is mined in the mode it was sent in
    await provider.send('evm_setIntervalMining', [next === 'steady' ? 1 : 0])
    await provider.send('evm_setAutomine', [next === 'flood'])
    mode = next
  }
  const writer = (async () => {
    let i = 0
    while (!finished) {
      const now = mode
      if (now === 'rest') {
        await sleep(20)
        continue
      }
      const x = xs[i % xs.length]!
      inFlight = true
      const owner = await land.getFunction('ownerOfLand')(x, 5)
      const from = owner.toLowerCase() === alice.address.toLowerCase() ? aliceLand : bobLand
      const to = from === aliceLand ? bob.address : alice.address
      const tx = await from.getFunction('transferLand')(x, 5, to, { gasLimit: 200_000n })
      // the next transfer after this one's block: one a block in the steady state, back to back in a flood
      while (!(await provider.send('eth_getTransactionReceipt', [tx.hash]))) await sleep(10)
      inFlight = false
      sent[now]++
      i++
    }
  })()
  void writer.catch((err) => console.error('writer stopped:', err))
  const run = async (path: string) =>
    (await autocannon({ url: `${base}${path}`, duration: DURATION_S, connections: 10, workers: 1 })).requests
      .average
  const modes: Mode[] = ['rest', 'steady', 'flood']
  const figures: Record<string, Record<Mode, number[]>> = {}
  for (const path of ['/parcels/0/0', png]) {
    const f: Record<Mode, number[]> = { rest: [], steady: [], flood: [] }
    figures[path] = f
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < modes.length; k++) {
        const m = modes[(round + k) % modes.length]!
        await setMode(m)
        if (m !== 'rest') await sleep(1200) // the indexer is into its batches
        f[m].push(await run(path))
      }
    }
  }
  await setMode('rest')
  finished = true
  await writer
  await provider.send('evm_setAutomine', [true])
  console.log(
    `transfers indexed during the read rounds: ${sent.steady} at a block a second, ${sent.flood} back to back; ` +
      `load average ${load()}`,
  )
  for (const [path, f] of Object.entries(figures)) {
    const ratios = (m: Mode) => f[m].map((v, i) => v / f.rest[i]!)
    const row = (m: Mode) =>
      `${m === 'steady' ? 'at a block a second' : 'in a flood'} ${quantile(f[m], 0.5).toFixed(0)} req/s, ` +
      `ratio ${quantile(ratios(m), 0.5).toFixed(3)} (rounds: ${ratios(m)
        .map((r) => r.toFixed(2))
        .join(', ')})`
    console.log(
      `GET ${path}: at rest ${quantile(f.rest, 0.5).toFixed(0)} req/s; ${row('steady')}, target >= 0.9; ` +
        `${row('flood')}`,
    )
  }
} finally {
  server?.kill('SIGTERM')
  provider.destroy()
  await db.drop().catch(() => {})
  await anvil.close()
}
