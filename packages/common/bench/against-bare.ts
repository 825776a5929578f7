/**
 * A service's small reads against a bare Fastify answering them with the same code, in the same run: the
 * service's `bench:reads`. `script` is a child serving `service` or `bare` (its first argument) and reporting
 * its port (child.ts); each runs in a process of its own, both pinned to the last core when taskset is at
 * hand, this process and the load client (wrk, or autocannon without it: rounds.ts) on core 0. Both must answer each read with the same bytes. Rounds rotate
 * the order; each figure is the median of the per-round values.
 */
import { spawnSync } from 'node:child_process'
import { cpus, loadavg } from 'node:os'
import { LOAD_CLIENT_DESCRIPTION, load, rounds } from './rounds.js'
import { forkService, type ServiceProcess } from './scale.js'

export interface BareRead {
  name: string
  path: string
  headers?: Record<string, string>
}

export interface AgainstBareOptions {
  script: string
  env: Record<string, string>
  /** Writes what the reads need through the service (its URL) and names them. */
  prepare: (serviceUrl: string) => Promise<BareRead[]>
  rounds?: number
  /** The service's share of bare Fastify's requests a second that each read is held to. */
  target?: number
}

const log = (line: string) => process.stdout.write(`${line}\n`)

export async function againstBare(options: AgainstBareOptions): Promise<void> {
  const count = options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 7)
  const target = options.target ?? 0.85
  const serverCore = cpus().length - 1
  const pinning = cpus().length >= 2 && spawnSync('taskset', ['-V']).status === 0
  const pin = (pid: number, core: number) => {
    if (pinning) spawnSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' })
  }
  pin(process.pid, 0)
  const servers: ServiceProcess[] = []
  try {
    const service = await forkService(options.script, options.env, ['service'])
    servers.push(service)
    const bare = await forkService(options.script, options.env, ['bare'])
    servers.push(bare)
    for (const { pid } of servers) pin(pid, serverCore)
    const reads = await options.prepare(service.url)
    const rows: string[] = []
    for (const read of reads) {
      const headers = read.headers ?? {}
      const [mine, theirs] = await Promise.all(
        [service, bare].map(async (s) => {
          const response = await fetch(`${s.url}${read.path}`, { headers })
          if (response.status !== 200) throw new Error(`${read.name}: ${s.url} answered ${response.status}`)
          return response.text()
        }),
      )
      if (mine !== theirs)
        throw new Error(`${read.name}: the two servers answer differently:\n${mine}\n${theirs}`)
      const targets = {
        service: { url: `${service.url}${read.path}`, pid: service.pid },
        bare: { url: `${bare.url}${read.path}`, pid: bare.pid },
      }
      // unmeasured load first: a server takes seconds of traffic before its per-request cost settles
      for (const t of Object.values(targets)) await load(t, { duration: 4, headers })
      const r = await rounds(targets, count, { headers })
      if (r.errors('service') + r.errors('bare') > 0)
        throw new Error(`${read.name}: errors or non-2xx answers`)
      const ratio = r.ratio('service', 'bare')
      const each = r.ratios('service', 'bare')
      rows.push(
        `| ${read.name} (${Buffer.byteLength(mine!)} B) | ${r.rps('service').toFixed(0)} | ${r.rps('bare').toFixed(0)} | ` +
          `**${ratio.toFixed(2)}** ${ratio >= target ? 'met' : 'NOT met'} ` +
          `(rounds ${Math.min(...each).toFixed(2)}–${Math.max(...each).toFixed(2)}) | ` +
          `${r.cpu('service').toFixed(0)} / ${r.cpu('bare').toFixed(0)} | ≥ ${target} |`,
      )
    }
    log(
      `load ${loadavg()[0]!.toFixed(2)}; ${pinning ? `servers pinned to core ${serverCore}, the client to core 0; ` : ''}` +
        `${count} rounds of 2 s a server, 10 connections from ${LOAD_CLIENT_DESCRIPTION}; the same bytes from both`,
    )
    log('| read | service req/s | bare req/s | service / bare | CPU µs a request, service / bare | target |')
    log('| --- | ---: | ---: | ---: | ---: | ---: |')
    for (const row of rows) log(row)
  } finally {
    for (const s of servers) await s.stop()
  }
}
