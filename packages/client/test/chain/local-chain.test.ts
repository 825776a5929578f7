import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chainTestsSkipReason } from '@genesis/contracts'
import { chainEnvFile, readChainEnv } from '@genesis/contracts/chain-env'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Command, freePorts, repositoryRoot, run, shellEnv, stopCommand } from '../commands.js'

/*
 * The local-chain path as docs/local-chain.md walks it, with the commands a person types: `pnpm chain` (anvil and
 * our contracts), `pnpm start` in another terminal (it reads the environment `pnpm chain` wrote), then
 * `pnpm demo --chain` (a claim granted, claimed, its voucher sent from a development wallet and settled
 * from the chain), Genesis City on the chain and a parcel bought with the snippet of land's README, seen
 * by land. On the way, a second `pnpm start` is refused in one line before any banner, and a Ctrl-C stops
 * everything with exit 0. Each command gets its own DATA_DIR and ports, so nothing here touches a
 * developer's running services.
 */

const skip = chainTestsSkipReason()

/** The snippet of land's README that buys the cheapest parcel on sale with a development wallet. */
function landReadmePurchase(): string {
  const readme = readFileSync(join(repositoryRoot, 'services/land/README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## Try it on a local chain'))
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!)
  const purchase = blocks.find((block) => block.includes('executeOrder'))
  if (!purchase) throw new Error("land's README has no purchase snippet in its local-chain walkthrough")
  return purchase
}

describe.skipIf(skip)('the local chain, as docs/local-chain.md walks it', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'genesis-local-chain-'))
  let chain: Command | undefined
  let services: Command | undefined
  let ports: { anvil: number; claims: number; collections: number; land: number }
  let env: NodeJS.ProcessEnv
  const url = (port: number) => `http://127.0.0.1:${port}`

  beforeAll(async () => {
    const [anvil, claims, collections, land] = await freePorts(4)
    ports = { anvil: anvil!, claims: claims!, collections: collections!, land: land! }
    env = shellEnv({
      DATA_DIR: dataDir,
      ANVIL_PORT: String(ports.anvil),
      CLAIMS_PORT: String(ports.claims),
      COLLECTIONS_PORT: String(ports.collections),
      LAND_PORT: String(ports.land),
    })
    chain = run('pnpm', ['chain'], env)
    await chain.waitFor(/Ctrl-C stops the node\./, 120_000)
    services = run('pnpm', ['start'], env)
    await services.waitFor(/All services ready in/, 240_000)
  }, 400_000)

  afterAll(async () => {
    await stopCommand(services)
    await stopCommand(chain)
    rmSync(dataDir, { recursive: true, force: true })
  }, 60_000)

  it('pnpm chain prints export lines and writes them to the file pnpm start reads', () => {
    expect(chain!.stdout()).toMatch(
      new RegExp(`^export RPC_URL_80002=http://127\\.0\\.0\\.1:${ports.anvil}$`, 'm'),
    )
    expect(chain!.stdout()).toMatch(/^export CLAIMS_CONFIRMATIONS=0$/m)
    const file = chainEnvFile(env)
    expect(file).toBe(join(dataDir, 'chain.env'))
    expect(readChainEnv(file)).toMatchObject({
      RPC_URL_80002: url(ports.anvil),
      LAND_RPC_URL: url(ports.anvil),
      CLAIMS_CONFIRMATIONS: '0',
    })
    expect(services!.stdout()).toContain(`Following the local chain ${url(ports.anvil)} (chain 80002`)
  })

  /** A `pnpm start` that must be refused: its one line of refusal (pnpm adds its own failure line). */
  async function refusedStart(startEnv: NodeJS.ProcessEnv): Promise<string> {
    const start = run('pnpm', ['start'], startEnv)
    const { code } = await start.exited
    expect(code).toBe(1)
    expect(start.stdout()).not.toContain('All services ready')
    // nothing from a service either: none was started
    expect(start.stdout()).not.toMatch(/"level"|Creating the embedded/)
    expect(start.stderr()).not.toMatch(/EmbeddedDatabaseInUse|at .*\.ts:\d+/)
    const ours = start
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('pnpm start:'))
    expect(ours).toHaveLength(1)
    return ours[0]!
  }

  it('a second pnpm start refuses in one line, naming the running one, before any banner', async () => {
    // (what the running process runs is read from /proc: Linux only)
    expect(await refusedStart(env)).toMatch(
      new RegExp(
        `^pnpm start: already running as process \\d+( \\(node scripts/start-all\\.mjs in [^)]+\\))?, ` +
          `with ${dataDir}\\. Stop it first`,
      ),
    )
    // Another DATA_DIR, the same ports: the port in use is named.
    const elsewhere = mkdtempSync(join(tmpdir(), 'genesis-local-chain-other-'))
    try {
      expect(await refusedStart({ ...env, DATA_DIR: elsewhere })).toMatch(
        new RegExp(
          `^pnpm start: claims is already running \\(port ${ports.claims} is in use` +
            `( by process \\d+)?(: node src/server\\.ts in [^)]+)?\\)\\. Stop it first`,
        ),
      )
    } finally {
      rmSync(elsewhere, { recursive: true, force: true })
    }
  }, 120_000)

  it('pnpm demo --chain settles a claim on the chain, step by step', async () => {
    const demo = run('pnpm', ['demo', '--chain'], {
      ...env,
      CLAIMS_URL: url(ports.claims),
      COLLECTIONS_URL: url(ports.collections),
      LAND_URL: url(ports.land),
    })
    const { code } = await demo.exited
    expect(demo.stderr(), demo.stdout()).not.toContain('✗')
    expect(code).toBe(0)
    for (const step of [
      'the claims service signs vouchers as the signer the dispenser trusts',
      'the operator grants two rewards on chain 80002 to a development wallet',
      'the user sends it from their wallet',
      'the service settles it from the chain: successful',
      'the items are the user’s on the rewards collection',
    ])
      expect(demo.stdout()).toContain(`✓ ${step}`)
    expect(demo.stdout()).toContain('the claim settled on chain')
  }, 180_000)

  it('land, following the chain, sees a parcel bought with the README’s snippet', async () => {
    const chainEnv = shellEnv({ ...readChainEnv(chainEnvFile(env)), DATA_DIR: dataDir })
    // A slice of Genesis City, for time (the README puts the whole city on chain).
    const city = run('pnpm', ['--filter', '@genesis/land', 'chain:demo'], {
      ...chainEnv,
      DEMO_PARCELS: '300',
    })
    const written = await city.exited
    expect(written.code, city.stderr()).toBe(0)
    // Land indexes the listings it put on chain.
    const cheapest = async () => {
      const answer = await fetch(`${url(ports.land)}/v1/parcels?limit=1&sort_by=price`)
      return (
        (await answer.json()) as { data: { parcels: { publication: { contract_id: string } | null }[] } }
      ).data.parcels[0]
    }
    const deadline = Date.now() + 60_000
    while ((await cheapest())?.publication?.contract_id !== chainEnv.LAND_REGISTRY_ADDRESS) {
      if (Date.now() > deadline) throw new Error('land did not index the listings put on the chain')
      await new Promise((resolve) => setTimeout(resolve, 500))
    }

    const snippet = landReadmePurchase().replaceAll('http://localhost:3003', url(ports.land))
    const purchase = run('bash', ['-c', snippet], chainEnv, join(repositoryRoot, 'services/land'))
    const bought = await purchase.exited
    expect(bought.code, purchase.stderr()).toBe(0)
    const [, x, y, buyer] = /bought (-?\d+),(-?\d+) for .* now owned by (0x[0-9a-fA-F]{40})/.exec(
      purchase.stdout(),
    )!
    const parcelUrl = `${url(ports.land)}/v1/parcels/${x}/${y}`
    const seen = Date.now() + 30_000
    for (;;) {
      const { data } = (await (await fetch(parcelUrl)).json()) as {
        data: { owner: string; publication: { status: string } | null }
      }
      if (data.owner === buyer!.toLowerCase() && data.publication?.status !== 'open') break
      if (Date.now() > seen) throw new Error(`land still shows ${JSON.stringify(data)} at ${parcelUrl}`)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }, 180_000)

  it('a Ctrl-C stops the services gracefully and pnpm start exits 0, without a pnpm error', async () => {
    services!.interrupt()
    const { code } = await services!.exited
    expect(services!.stdout()).toMatch(/shutdown complete/)
    expect(services!.stderr()).not.toContain('ELIFECYCLE')
    expect(code).toBe(0)
  }, 60_000)

  it('a Ctrl-C stops pnpm chain with exit 0 and no pnpm error, its env file removed', async () => {
    // nothing of turbo's on the way: the contracts were built (or the build said so in one line)
    expect(chain!.stdout()).not.toMatch(/Tasks:|turbo \d/)
    chain!.interrupt()
    const { code } = await chain!.exited
    expect(chain!.stderr()).not.toContain('ELIFECYCLE')
    expect(code).toBe(0)
    expect(readChainEnv(chainEnvFile(env))).toBeNull()
  }, 60_000)
})
