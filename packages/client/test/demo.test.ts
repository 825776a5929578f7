import { spawn } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runDemo } from '../demo/flows.js'
import { ADMIN_TOKEN, type Running, startServices } from './services.js'

const packageDir = fileURLToPath(new URL('..', import.meta.url))
let services: Running

beforeAll(async () => {
  services = await startServices()
})
afterAll(() => services?.close())

/** `pnpm demo` as a person runs it, pointed at the in-process services. */
function runCli(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'demo/main.ts'], {
    cwd: packageDir,
    env: {
      ...process.env,
      CLAIMS_URL: services.urls.claims,
      COLLECTIONS_URL: services.urls.collections,
      LAND_URL: services.urls.land,
      CLAIMS_ADMIN_TOKEN: ADMIN_TOKEN,
      COMMITTEE_PRIVATE_KEY: services.committeeKey,
      // no chain env file from a `pnpm chain` running on this machine
      DATA_DIR: join(tmpdir(), `client-demo-${process.pid}`),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })))
}

describe('pnpm demo', () => {
  it('walks through every flow, each step answering as documented', async () => {
    const lines: string[] = []
    const config = services.collectionsConfig
    const { steps } = await runDemo({
      urls: services.urls,
      adminToken: ADMIN_TOKEN,
      committeeKey: services.committeeKey,
      network: config.CHAIN_NETWORK,
      registry: {
        name: config.THIRD_PARTY_REGISTRY_NAME,
        address: config.THIRD_PARTY_REGISTRY_ADDRESS,
        chainId: config.THIRD_PARTY_REGISTRY_CHAIN_ID,
      },
      print: (line) => lines.push(line),
    })
    expect(steps).toEqual(
      expect.arrayContaining([
        'the operator grants two rewards to a new user',
        'the user claims them and gets the calldata',
        'the user reports the transaction hash',
        'a creator makes a collection',
        'adds two items',
        'locks it for publication',
        'accepts the terms of service',
        'publishes it',
        'publishes the item with a cheque for one slot',
        'the committee reads the approval data',
        'districts',
        'parcels on sale, cheapest first',
        'the map around 0,0',
      ]),
    )
    expect(lines.filter((line) => line.startsWith('  ✓'))).toHaveLength(steps.length)
  })

  it('the command exits 0 after every flow', async () => {
    const { code, stdout, stderr } = await runCli({})
    expect(stderr).toBe('')
    expect(stdout).toMatch(/Demo complete: \d+ steps answered as documented/)
    expect(code).toBe(0)
  })

  it('exits 1 naming the step and the answer when one is not as documented', async () => {
    const { code, stderr } = await runCli({ CLAIMS_ADMIN_TOKEN: 'not-the-operator-token-at-all' })
    expect(code).toBe(1)
    expect(stderr).toContain('✗ the operator grants two rewards to a new user')
    expect(stderr).toContain('401 unauthorized')
  })

  it('exits 1 with what to do when the services are not running', async () => {
    const { code, stderr } = await runCli({ LAND_URL: 'http://127.0.0.1:9' })
    expect(code).toBe(1)
    expect(stderr).toMatch(/not ready: land .*Start the services first \(pnpm start/)
  })
})
