/**
 * A service's small reads against a bare Fastify answering them with the same code, in the same run: the
 * service's `bench:reads`. `script` is a child serving `service`, `kit` or `bare` (its first argument) and
 * reporting its port (child.ts): `kit` is the kit's createApp as the service builds it with the bare route
 * added, so that kit / bare is what the kit costs and service / kit what the service's own route adds
 * (schemas, its hooks, its serializer). Each runs in BENCH_INSTANCES processes (3): processes of the same
 * code settle at different costs for their whole life (where V8 put what, when it compiled what), and with
 * one process of each, which ones a run started decided its figure (services' BENCHMARKS.md). All are
 * pinned to the last core when taskset is at hand; this process, the load client (wrk, or autocannon
 * without it: rounds.ts) and the database's backends serving them to core 0: a backend that the scheduler
 * put on the servers' core took its time from whichever server was measured.
 * All must answer each read with the same bytes. Rounds rotate the order; a kind's figure in a round is the
 * median of its processes', and each figure the median of the per-round values.
 */
import { loadavg } from 'node:os'
import { pin, pinBackends, pinning, serverCore } from './pinning.js'
import {
  LOAD_CLIENT_DESCRIPTION,
  load,
  median,
  medianPerRound,
  type Run,
  rounds,
  SETTLE_S,
  type Target,
} from './rounds.js'
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

/** The child's three servers, the first one the reads are prepared through. */
const SERVERS = ['service', 'kit', 'bare'] as const
type Server = (typeof SERVERS)[number]

/** One process of a server kind: `service-2` is the second service process. */
const instance = (name: Server, i: number) => `${name}-${i}`

export async function againstBare(options: AgainstBareOptions): Promise<void> {
  const count = options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 15)
  const instances = Number(process.env.BENCH_INSTANCES ?? 3)
  const target = options.target ?? 0.85
  pin(process.pid, 0)
  const processes = new Map<string, ServiceProcess>()
  const keys = (name: Server) => Array.from({ length: instances }, (_, i) => instance(name, i + 1))
  try {
    for (let i = 1; i <= instances; i++) {
      for (const name of SERVERS) {
        const server = await forkService(options.script, options.env, [name], { asService: name !== 'bare' })
        processes.set(instance(name, i), server)
        pin(server.pid, serverCore)
      }
    }
    const reads = await options.prepare(processes.get(instance('service', 1))!.url)
    const rows: string[] = []
    const busy: number[] = []
    for (const read of reads) {
      const headers = read.headers ?? {}
      const all = [...processes.entries()]
      const bodies = await Promise.all(
        all.map(async ([key, server]) => {
          const response = await fetch(`${server.url}${read.path}`, { headers })
          if (response.status !== 200)
            throw new Error(`${read.name}: ${key} (${server.url}) answered ${response.status}`)
          return response.text()
        }),
      )
      const differs = all.find((_, i) => bodies[i] !== bodies[0])
      if (differs)
        throw new Error(
          `${read.name}: ${all[0]![0]} and ${differs[0]} answer differently:\n${bodies.join('\n')}`,
        )
      const targets = Object.fromEntries(
        all.map(([key, server]) => [key, { url: `${server.url}${read.path}`, pid: server.pid }]),
      ) as Record<string, Target>
      // unmeasured load first: a server takes seconds of traffic before its per-request cost settles
      for (const t of Object.values(targets)) await load(t, { duration: 4, headers })
      await pinBackends(options.env.DATABASE_URL)
      const r = await rounds(targets, count, { headers, settleS: SETTLE_S })
      if (all.some(([key]) => r.errors(key) > 0)) throw new Error(`${read.name}: errors or non-2xx answers`)
      busy.push(...all.map(([key]) => r.serverLoad(key)))
      // A kind's figure in a round is the median of its processes' (one process that started slower or
      // faster than its siblings, for the whole run, moves no figure); ratios are taken within a round.
      const perRound = (name: Server, figure: (run: Run) => number) =>
        medianPerRound(r.runs, keys(name), figure)
      const rps = (name: Server) => perRound(name, (run) => run.rps)
      const ratios = (a: Server, b: Server) => rps(a).map((x, round) => x / rps(b)[round]!)
      const ratio = (a: Server, b: Server) => median(ratios(a, b))
      const cpu = (name: Server) => median(perRound(name, (run) => run.cpuUs))
      const each = ratios('service', 'bare')
      rows.push(
        `| ${read.name} (${Buffer.byteLength(bodies[0]!)} B) | ` +
          `${SERVERS.map((name) => median(rps(name)).toFixed(0)).join(' / ')} | ` +
          `**${ratio('service', 'bare').toFixed(2)}** ${ratio('service', 'bare') >= target ? 'met' : 'NOT met'} ` +
          `(rounds ${Math.min(...each).toFixed(2)}–${Math.max(...each).toFixed(2)}) | ` +
          `${ratio('kit', 'bare').toFixed(2)} | ${ratio('service', 'kit').toFixed(2)} | ` +
          `${SERVERS.map((name) => cpu(name).toFixed(0)).join(' / ')} | ≥ ${target} |`,
      )
    }
    log(
      `load ${loadavg()[0]!.toFixed(2)}; ${instances} processes of each; ` +
        `${pinning ? `servers pinned to core ${serverCore}, the client and the database backends to core 0; ` : ''}` +
        `${count} rounds of 2 s a process (each after ${SETTLE_S} s unmeasured), 10 connections from ${LOAD_CLIENT_DESCRIPTION}; the same bytes from all; ` +
        // near 100 %: the server, not the client or the database, set the pace
        `the servers busy ${(Math.min(...busy) * 100).toFixed(0)}–${(Math.max(...busy) * 100).toFixed(0)} % of each run (medians)`,
    )
    log(
      '| read | req/s service / kit / bare | service / bare | kit / bare | service / kit | ' +
        'CPU µs a request, service / kit / bare | target |',
    )
    log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
    for (const row of rows) log(row)
  } finally {
    for (const server of processes.values()) await server.stop()
  }
}
