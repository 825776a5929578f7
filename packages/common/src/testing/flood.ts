import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { Agent, request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type AuthLink, AuthLinkType } from '@dcl/crypto'
import { hashMessage } from 'ethers'
import secp256k1 from 'secp256k1'
import { isSeq, parseAllDocuments } from 'yaml'
import {
  AUTH_CHAIN_HEADER_PREFIX,
  AUTH_METADATA_HEADER,
  AUTH_TIMESTAMP_HEADER,
  signedFetchPayload,
} from '../auth/headers.js'
import { keccak256Bytes, signDigest } from '../auth/native-crypto.js'
import { imageRuntime } from './image.js'

/** One request of a flood, built before the flood starts so that the client spends no CPU meanwhile. */
export interface FloodRequest {
  method: string
  /** Path and query, e.g. `/api/claim-transactions?limit=100`. */
  path: string
  headers?: Record<string, string>
  body?: string | Buffer
}

export interface FloodAnswer {
  status: number
  /** The envelope's `code`, when the answer is an error envelope. */
  code: string | undefined
  retryAfter: string | undefined
  bytes: number
}

export interface FloodOptions {
  baseUrl: string
  /** Every request of the flood; `concurrency` of them are in flight at any time. */
  requests: FloodRequest[]
  /** Requests in flight at once (default: all of them). */
  concurrency?: number
  /** The process whose resident memory is sampled: the service's (default: this process). */
  pid?: number
  /** Polled one probe after another while the flood lasts (default `/health/live`). */
  livenessPath?: string
  /** Pause between two liveness probes and between two RSS samples (default 50 ms). */
  pollMs?: number
  /** A request or probe that takes longer fails the flood (default 25 s). */
  requestTimeoutMs?: number
}

export interface FloodResult {
  answers: FloodAnswer[]
  /** How many answers had each status, e.g. `{ 401: 40, 503: 20 }`. */
  statuses: Record<number, number>
  /** The slowest liveness probe, from sending it to its whole answer. */
  maxLivenessMs: number
  livenessProbes: number
  /** Statuses of the liveness probes other than 200, if any. */
  livenessFailures: number[]
  /** The sampled process's highest resident memory during the flood, and before it. */
  peakRssBytes: number
  rssBeforeBytes: number
  durationMs: number
}

/** Resident memory of a process: /proc on Linux, `ps` elsewhere. */
export function residentBytes(pid: number = process.pid): number {
  if (pid === process.pid) return process.memoryUsage.rss()
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1]
    if (kb) return Number(kb) * 1024
  } catch {
    // not Linux: ask ps
  }
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) * 1024
}

function send(
  agent: Agent,
  url: URL,
  request: FloodRequest,
  timeoutMs: number,
): Promise<FloodAnswer & { ms: number }> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path,
        headers: {
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...request.headers,
        },
        timeout: timeoutMs,
      },
      (res) => {
        // only an error's body is kept (its envelope has a code): holding and parsing every large answer
        // would busy this process with the flood's own work
        const isError = (res.statusCode ?? 0) >= 400
        const chunks: Buffer[] = []
        let bytes = 0
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length
          if (isError) chunks.push(chunk)
        })
        res.on('error', reject)
        res.on('end', () => {
          let code: string | undefined
          if (isError) {
            try {
              const text = Buffer.concat(chunks).toString('utf8')
              const envelope = JSON.parse(text) as { ok?: boolean; code?: string }
              if (envelope.ok === false) code = envelope.code
            } catch {
              // not JSON: no code
            }
          }
          const retryAfter = res.headers['retry-after']
          resolve({
            status: res.statusCode ?? 0,
            code,
            retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
            bytes,
            ms: performance.now() - started,
          })
        })
      },
    )
    req.on('timeout', () =>
      req.destroy(new Error(`${request.method} ${request.path}: no answer in ${timeoutMs} ms`)),
    )
    req.on('error', reject)
    req.end(request.body)
  })
}

/**
 * Asks `url` one probe after another, `pollMs` apart, from a process of its own (as the kubelet does): this
 * process, busy reading a flood's answers, would add its own delays to what it times. Each probe's status
 * (0: no answer) and time go to `record`; `ready` once the first is answered; `stop` lets the probe in
 * flight finish.
 */
function probeFromChild(
  url: URL,
  pollMs: number,
  timeoutMs: number,
  record: (status: number, ms: number) => void,
): { ready: Promise<void>; stop(): Promise<void>; kill(): void } {
  const script = `
    const http = require('node:http')
    const [url, pollMs, timeoutMs] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])]
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    let stopped = false
    process.stdin.on('data', () => {}).on('end', () => { stopped = true })
    const told = (status, started) => {
      process.stdout.write(JSON.stringify({ status, ms: performance.now() - started }) + '\\n')
      if (stopped) process.exit(0)
      setTimeout(probe, pollMs)
    }
    function probe() {
      const started = performance.now()
      const req = http.get(url, { agent, timeout: timeoutMs }, (res) => {
        res.resume()
        res.on('end', () => told(res.statusCode, started))
      })
      req.on('timeout', () => req.destroy(new Error('timed out')))
      req.on('error', () => told(0, started))
    }
    probe()
  `
  const child = spawn(process.execPath, ['-e', script, url.href, String(pollMs), String(timeoutMs)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  let buffered = ''
  let answered!: () => void
  const ready = new Promise<void>((resolve) => {
    answered = resolve
  })
  child.stdout!.on('data', (chunk) => {
    buffered += chunk
    const lines = buffered.split('\n')
    buffered = lines.pop() ?? ''
    for (const line of lines) {
      const { status, ms } = JSON.parse(line) as { status: number; ms: number }
      record(status, ms)
      answered()
    }
  })
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  // a child that dies before its first answer must not hold the flood back
  void exited.then(answered)
  return {
    ready,
    stop: async () => {
      child.stdin!.end()
      await exited
    },
    kill: () => {
      if (child.exitCode === null) child.kill()
    },
  }
}

/**
 * Sends `requests` to a running service, `concurrency` at a time, each on a connection of its own, while
 * a process of its own asks `/health/live` one probe after another and the service's resident memory is
 * sampled. Resolves when every request and the last probe are answered: what each request answered, the
 * slowest probe and the highest RSS. For flood tests: the service should answer all (its refusals
 * included) while staying live and within its memory limit.
 */
export async function flood(options: FloodOptions): Promise<FloodResult> {
  const url = new URL(options.baseUrl)
  const concurrency = options.concurrency ?? options.requests.length
  const pollMs = options.pollMs ?? 50
  const timeoutMs = options.requestTimeoutMs ?? 25_000
  const pid = options.pid ?? process.pid
  const floodAgent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const probeAgent = new Agent({ keepAlive: true, maxSockets: 1 })
  const probe: FloodRequest = { method: 'GET', path: options.livenessPath ?? '/health/live' }
  const rssBeforeBytes = residentBytes(pid)
  let peakRssBytes = rssBeforeBytes
  let maxLivenessMs = 0
  let livenessProbes = 0
  const livenessFailures: number[] = []
  const sample = setInterval(() => {
    peakRssBytes = Math.max(peakRssBytes, residentBytes(pid))
  }, pollMs)
  const started = performance.now()
  const recordProbe = (status: number, ms: number) => {
    livenessProbes++
    maxLivenessMs = Math.max(maxLivenessMs, ms)
    if (status !== 200) livenessFailures.push(status)
  }
  const liveness = probeFromChild(new URL(probe.path, url), pollMs, timeoutMs, recordProbe)
  // its connection made and first answered before the flood's, as a probe of a running service is
  await liveness.ready
  try {
    const answers: FloodAnswer[] = new Array(options.requests.length)
    let next = 0
    const worker = async () => {
      while (next < options.requests.length) {
        const i = next++
        const { ms: _, ...answer } = await send(floodAgent, url, options.requests[i]!, timeoutMs)
        answers[i] = answer
      }
    }
    await Promise.all(Array.from({ length: Math.min(concurrency, options.requests.length) }, worker))
    await liveness.stop()
    // and once more, after the flood: still live
    const last = await send(probeAgent, url, probe, timeoutMs)
    recordProbe(last.status, last.ms)
    peakRssBytes = Math.max(peakRssBytes, residentBytes(pid))
    const statuses: Record<number, number> = {}
    for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1
    return {
      answers,
      statuses,
      maxLivenessMs,
      livenessProbes,
      livenessFailures,
      peakRssBytes,
      rssBeforeBytes,
      durationMs: performance.now() - started,
    }
  } finally {
    liveness.kill()
    clearInterval(sample)
    floodAgent.destroy()
    probeAgent.destroy()
  }
}

/**
 * What a flood must not show, as sentences (none: it withstood it): an answer other than the expected
 * statuses or a 503/429 with Retry-After, a liveness probe slower than `livenessMs` or not 200, a peak RSS
 * over `peakFraction` of the memory limit, or a growth over `growthFraction` of it.
 */
export function floodProblems(result: FloodResult, options: FloodLimits): string[] {
  const problems: string[] = []
  const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`
  for (const [status, count] of Object.entries(result.statuses)) {
    if (!options.expected.includes(Number(status)) && status !== '503' && status !== '429')
      problems.push(`${count} answered ${status}`)
  }
  const withoutRetry = result.answers.filter((a) => (a.status === 503 || a.status === 429) && !a.retryAfter)
  if (withoutRetry.length > 0) problems.push(`${withoutRetry.length} refused without Retry-After`)
  if (result.livenessFailures.length > 0)
    problems.push(`/health/live answered ${result.livenessFailures.join(', ')}`)
  const livenessMs = options.livenessMs ?? 1000
  if (result.maxLivenessMs >= livenessMs)
    problems.push(`/health/live took ${Math.round(result.maxLivenessMs)} ms (at most ${livenessMs})`)
  const peak = options.memoryLimitBytes * (options.peakFraction ?? 0.85)
  if (result.peakRssBytes >= peak)
    problems.push(
      `peak RSS ${mib(result.peakRssBytes)} (at most ${mib(peak)} of ${mib(options.memoryLimitBytes)})`,
    )
  const growth = result.peakRssBytes - result.rssBeforeBytes
  const maxGrowth = options.memoryLimitBytes * (options.growthFraction ?? 0.3)
  if (growth >= maxGrowth) problems.push(`the flood added ${mib(growth)} of RSS (at most ${mib(maxGrowth)})`)
  return problems
}

export interface ServiceProcess {
  baseUrl: string
  pid: number
  child: ChildProcess
  /** The JSON log lines the process wrote so far. */
  lines: Record<string, unknown>[]
  /** SIGTERM, and the exit code once it exited. */
  stop(): Promise<number | null>
}

/**
 * Starts a service's entry (`src/server.ts` through tsx, as `pnpm dev` runs it) as a process of its own,
 * listening on an ephemeral loopback port, and resolves once it logged `listening`.
 */
export function startServiceProcess(options: {
  /** The service's package directory. */
  cwd: string
  entry?: string
  env: Record<string, string>
  /** Node's flags before the entry (default: the tsx loader). */
  nodeArgs?: string[]
  startTimeoutMs?: number
}): Promise<ServiceProcess> {
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? ['--import', 'tsx']), options.entry ?? 'src/server.ts'],
    {
      cwd: options.cwd,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  const lines: Record<string, unknown>[] = []
  let stderr = ''
  child.stderr!.on('data', (chunk) => {
    stderr += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    return exited
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the service did not start within ${options.startTimeoutMs ?? 30_000} ms: ${stderr}`))
    }, options.startTimeoutMs ?? 30_000)
    let buffered = ''
    child.stdout!.on('data', (chunk) => {
      buffered += chunk
      const parts = buffered.split('\n')
      buffered = parts.pop() ?? ''
      for (const part of parts) {
        let line: Record<string, unknown>
        try {
          line = JSON.parse(part) as Record<string, unknown>
        } catch {
          continue
        }
        lines.push(line)
        if (line.msg === 'listening' && typeof line.address === 'string') {
          clearTimeout(timer)
          resolve({ baseUrl: line.address, pid: child.pid!, child, lines, stop })
        }
      }
    })
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`the service exited with ${code} before listening: ${stderr}`))
    })
  })
}

/** What a flood must keep within (`floodProblems`). */
export interface FloodLimits {
  expected: number[]
  memoryLimitBytes: number
  livenessMs?: number
  peakFraction?: number
  growthFraction?: number
}

/** A service's process as a flood test floods it (see `startServiceAsContainer`). */
export interface ContainedService extends ServiceProcess {
  /** The memory limit its Kubernetes manifest gives the service's container, in bytes. */
  memoryLimitBytes: number
  /** Its own DATA_DIR, a new temporary directory. */
  dataDir: string
  /** What a flood's result shows wrong against `expected` statuses and the memory limit (`floodProblems`). */
  problems(result: FloodResult, options: Omit<FloodLimits, 'memoryLimitBytes'>): string[]
  /** Stops the process and removes its DATA_DIR. */
  close(): Promise<void>
}

/**
 * A service's entry started as its container runs it: with the Node flags of the image's command and its
 * allocator settings (infra/docker/Dockerfile beside the package: the garbage collector on one thread, as
 * on the manifest's single CPU), a DATA_DIR of its own, listening on loopback; with the memory limit its
 * Kubernetes manifest (infra/k8s/base/<service>.yaml) gives it.
 */
export async function startServiceAsContainer(options: {
  service: string
  /** The service's package directory. */
  packageDir: string
  env: Record<string, string>
}): Promise<ContainedService> {
  const manifest = join(options.packageDir, `../../infra/k8s/base/${options.service}.yaml`)
  const memoryLimitBytes = manifestMemoryLimit(await readFile(manifest, 'utf8'), options.service)
  const image = imageRuntime()
  const dataDir = await mkdtemp(join(tmpdir(), `${options.service}-container-`))
  const removeDataDir = () => rm(dataDir, { recursive: true, force: true })
  try {
    const started = await startServiceProcess({
      cwd: options.packageDir,
      nodeArgs: [...image.nodeFlags, '--import', 'tsx'],
      env: { ...image.env, DATA_DIR: dataDir, ...options.env },
    })
    return {
      ...started,
      memoryLimitBytes,
      dataDir,
      problems: (result, limits) => floodProblems(result, { ...limits, memoryLimitBytes }),
      close: async () => {
        await started.stop()
        await removeDataDir()
      },
    }
  } catch (error) {
    await removeDataDir()
    throw error
  }
}

/** Bytes of a Kubernetes quantity of memory: `384Mi`, `1Gi`, `512M`, `1000000`. */
function memoryQuantity(quantity: string): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(quantity.trim())
  if (!match) throw new Error(`not a memory quantity: ${quantity}`)
  const units: Record<string, number> = {
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
  }
  return Number(match[1]) * (match[2] ? units[match[2]]! : 1)
}

/** The memory limit of the container named `container` in a Kubernetes manifest (YAML, several documents), in bytes. */
export function manifestMemoryLimit(manifest: string, container: string): number {
  for (const document of parseAllDocuments(manifest)) {
    const containers = document.getIn(['spec', 'template', 'spec', 'containers'], true)
    if (!isSeq(containers)) continue
    for (const item of containers.toJSON() as {
      name?: string
      resources?: { limits?: { memory?: string } }
    }[]) {
      const memory = item.name === container ? item.resources?.limits?.memory : undefined
      if (memory !== undefined) return memoryQuantity(String(memory))
    }
  }
  throw new Error(`no memory limit for a container ${container} in the manifest`)
}

const loginMessage = (ephemeral: string, expiration: Date) =>
  `Decentraland Login\nEphemeral address: ${ephemeral}\nExpiration: ${expiration.toISOString()}`

/**
 * Signed-fetch headers that cost the most to refuse: a chain of `links` links (at most ten, the kit's
 * limit) whose delegations are all genuinely signed by fresh keys, so verification recovers every one of
 * them in @dcl/crypto, and whose request link is signed by a key nobody delegated to: 401
 * `invalid_signature` once all the work is done. With `links: 3` it is the usual chain shape with a fresh
 * delegation, which the delegation cache has never seen.
 */
export function costlyInvalidHeaders(
  method: string,
  path: string,
  options: { links?: number; timestamp?: number } = {},
): Record<string, string> {
  const links = options.links ?? 10
  const expiration = new Date(Date.now() + 3_600_000)
  const keys = Array.from({ length: links - 1 }, newKey)
  const chain: AuthLink[] = [{ type: AuthLinkType.SIGNER, payload: keys[0]!.address, signature: '' }]
  for (let i = 1; i < keys.length; i++) {
    const message = loginMessage(keys[i]!.address, expiration)
    chain.push({
      type: AuthLinkType.ECDSA_PERSONAL_EPHEMERAL,
      payload: message,
      signature: personalSign(message, keys[i - 1]!.privateKey),
    })
  }
  const timestamp = String(options.timestamp ?? Date.now())
  const payload = signedFetchPayload(method, path.split('?', 1)[0]!, timestamp, '{}')
  chain.push({
    type: AuthLinkType.ECDSA_PERSONAL_SIGNED_ENTITY,
    payload,
    signature: personalSign(payload, newKey().privateKey),
  })
  const headers: Record<string, string> = {
    [AUTH_TIMESTAMP_HEADER]: timestamp,
    [AUTH_METADATA_HEADER]: '{}',
  }
  chain.forEach((link, i) => {
    headers[`${AUTH_CHAIN_HEADER_PREFIX}${i}`] = JSON.stringify(link)
  })
  return headers
}

/** A fresh key and its address, natively: a flood makes hundreds of them, and its setup should not be its cost. */
function newKey(): { privateKey: string; address: string } {
  const privateKey = randomBytes(32)
  const publicKey = secp256k1.publicKeyCreate(privateKey, false)
  return {
    privateKey: `0x${privateKey.toString('hex')}`,
    address: `0x${keccak256Bytes(publicKey.subarray(1)).subarray(12).toString('hex')}`,
  }
}

/** An EIP-191 personal signature (v 27/28), as a wallet makes it. */
const personalSign = (message: string, privateKey: string) => signDigest(hashMessage(message), privateKey)
