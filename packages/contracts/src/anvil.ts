import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import {
  closeSync,
  createReadStream,
  createWriteStream,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'
import { HDNodeWallet, JsonRpcProvider, Mnemonic, Network, Wallet } from 'ethers'

/** Anvil's well-known development mnemonic: its accounts hold 10000 ETH each on a fresh node. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk'

/** The chain id our local nodes use: Polygon Amoy, a chain id the services accept and collections' default. */
export const LOCAL_CHAIN_ID = 80002

/** The private key of anvil's development account `index`. */
export const devPrivateKey = (index: number): string =>
  HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(ANVIL_MNEMONIC), `m/44'/60'/0'/0/${index}`).privateKey

const require = createRequire(import.meta.url)

/** The anvil binary shipped by @foundry-rs/anvil's platform package (ANVIL_BIN overrides it). */
export function anvilBinary(): string {
  if (process.env.ANVIL_BIN) return process.env.ANVIL_BIN
  const arch = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[process.arch] ?? process.arch
  const wrapper = createRequire(require.resolve('@foundry-rs/anvil/package.json'))
  return wrapper.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/bin/anvil`)
}

/** Null when anvil runs here, else why it does not. */
export function anvilUnavailableReason(): string | null {
  let binary: string
  try {
    binary = anvilBinary()
  } catch (error) {
    return `no anvil binary for ${process.platform}-${process.arch} (${(error as Error).message.split('\n')[0]})`
  }
  const run = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 10_000 })
  if (run.error) return `${binary} cannot run: ${run.error.message}`
  if (run.status !== 0) return `${binary} --version exited ${run.status}: ${run.stderr.trim()}`
  return null
}

/**
 * For chain test files: null when anvil runs, else the reason, printed once, so that the file can
 * `describe.skipIf(reason)`. Under CI=true a missing anvil is an error, not a skip.
 */
export function chainTestsSkipReason(): string | null {
  const reason = anvilUnavailableReason()
  if (reason === null) return null
  if (process.env.CI === 'true') throw new Error(`chain tests cannot run under CI: ${reason}`)
  console.warn(`skipping the chain tests: ${reason}`)
  return reason
}

export interface AnvilOptions {
  /** Default: a free loopback port (anvil binds port 0). */
  port?: number
  chainId?: number
  /**
   * A state anvil wrote (`anvil_dumpState`'s bytes, gzipped, or `--dump-state`'s JSON) to start from: its
   * accounts, blocks, transactions and logs, up to its block number.
   */
  loadState?: string
  /** More command-line arguments for anvil (e.g. `--gas-limit`). */
  args?: string[]
}

export interface Anvil {
  readonly url: string
  readonly port: number
  readonly chainId: number
  /** A provider on this node (fixed network, no polling cache). */
  provider(): JsonRpcProvider
  /** Anvil's funded development account `index`, connected to `provider`. */
  devWallet(index: number, provider: JsonRpcProvider): Wallet
  /** Stops the node; its state is kept in a file, for `start()` to bring back. */
  stop(): Promise<void>
  /** Starts it again on the same port, with the state it had when stopped. */
  start(): Promise<void>
  /** Stops the node for good and removes its state. */
  close(): Promise<void>
}

/**
 * Starts anvil on loopback and resolves once it answers JSON-RPC. Without a port anvil binds a free one (port 0)
 * and says which. The chain state lives in a temporary file (anvil --state), so that a test can take the node
 * away and bring it back on the same port unchanged.
 */
export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  let port = options.port ?? 0
  const chainId = options.chainId ?? LOCAL_CHAIN_ID
  const stateDir = mkdtempSync(join(tmpdir(), 'anvil-'))
  const stateFile = join(stateDir, 'state.json')
  const binary = anvilBinary()
  let child: ChildProcess | null = null
  const killOnExit = () => child?.kill('SIGKILL')
  process.once('exit', killOnExit)

  const start = async () => {
    const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId)]
    args.push('--state', stateFile, ...(options.args ?? []))
    const proc = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    child = proc
    let output = ''
    const listening = new Promise<number>((resolve, reject) => {
      // Read until the "Listening on" line; after it the output (a log line per call) is drained and dropped.
      let found = false
      const read = (chunk: Buffer) => {
        if (found) return
        output += chunk
        const bound = /Listening on 127\.0\.0\.1:(\d+)/.exec(output)
        if (bound) {
          found = true
          resolve(Number(bound[1]))
        }
      }
      proc.stdout?.on('data', read)
      proc.stderr?.on('data', read)
      proc.once('exit', (code) =>
        reject(new Error(`anvil exited (${code}) before listening: ${output.slice(-2000)}`)),
      )
    })
    port = await withTimeout(listening, 15_000, 'anvil did not start listening')
    await waitForRpc(`http://127.0.0.1:${port}`)
  }

  const stop = async () => {
    const proc = child
    child = null
    if (!proc || proc.exitCode !== null) return
    // SIGTERM: anvil writes its state file on the way out
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve())
      proc.kill('SIGTERM')
    })
  }

  const close = async () => {
    await stop()
    process.removeListener('exit', killOnExit)
    rmSync(stateDir, { recursive: true, force: true })
  }
  try {
    // --state loads the file it dumps to: the given state goes there, so that stop() and start() keep it too
    if (options.loadState) await copyState(options.loadState, stateFile)
    await start()
  } catch (error) {
    await close()
    throw error
  }
  const network = Network.from(chainId)
  const url = `http://127.0.0.1:${port}`
  return {
    url,
    port,
    chainId,
    provider: () => new JsonRpcProvider(url, network, { staticNetwork: network, cacheTimeout: -1 }),
    devWallet: (index, provider) => new Wallet(devPrivateKey(index), provider),
    stop,
    start,
    close,
  }
}

/** Copies an anvil state file, unzipping it when it is gzipped. */
async function copyState(from: string, to: string): Promise<void> {
  const head = Buffer.alloc(2)
  const fd = openSync(from, 'r')
  try {
    readSync(fd, head, 0, 2, 0)
  } finally {
    closeSync(fd)
  }
  const gzipped = head[0] === 0x1f && head[1] === 0x8b
  if (gzipped) await pipeline(createReadStream(from), createGunzip(), createWriteStream(to))
  else await pipeline(createReadStream(from), createWriteStream(to))
}

const withTimeout = <T>(promise: Promise<T>, ms: number, message: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${message} within ${ms} ms`)), ms)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })

/** Polls eth_chainId until the node answers (anvil takes a moment to bind). */
async function waitForRpc(url: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      })
      if (res.ok) return
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`anvil did not answer at ${url} within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
