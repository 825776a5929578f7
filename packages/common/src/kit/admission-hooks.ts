import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify'
import { Gauge } from 'prom-client'
import { type Admission, createAdmission } from '../admission.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's answers cost CPU in proportion to their size (a page of a hundred large records, a
     * render): at most `heavyConcurrency` of them are in progress per process, from the handler until the
     * answer is written, the others wait for their turn or are refused 503 with Retry-After.
     */
    heavy?: boolean
  }
}

export interface AdmissionSettings {
  /** Signature verifications in progress at once; 0 = no admission control of them. */
  verifyConcurrency: number
  /** Answers of `heavy` routes in progress at once; 0 = no admission control of them. */
  heavyConcurrency: number
  /** How many may wait for their turn (each kind), and for how long. */
  queue: number
  maxWaitMs: number
}

export const DEFAULT_ADMISSION: AdmissionSettings = {
  verifyConcurrency: 4,
  heavyConcurrency: 4,
  queue: 256,
  maxWaitMs: 2000,
}

/** What a refusal asks the client to wait. */
const RETRY_AFTER_S = 1

/**
 * The kit's admission control: one for signature verifications (handed to signed fetch), one for the
 * answers of `heavy` routes; both counted on /metrics (`admission{work, state}`).
 */
export function installAdmission(
  app: FastifyInstance,
  settings: AdmissionSettings,
): { verification: Admission } {
  const common = { queue: settings.queue, maxWaitMs: settings.maxWaitMs, retryAfterS: RETRY_AFTER_S }
  // The turns go round every caller (client address) waiting, and one caller waits with at most half of
  // the queue: however it floods, the other half is left to everybody else. (Not less: behind a proxy that
  // is not trusted for X-Forwarded-For, every request is one caller's.)
  const perCaller = Math.max(1, Math.ceil(settings.queue / 2))
  const verification = createAdmission({
    ...common,
    perCaller,
    concurrency: settings.verifyConcurrency,
    what: 'signature verifications',
  })
  const heavy = createAdmission({
    ...common,
    perCaller,
    concurrency: settings.heavyConcurrency,
    what: 'large answers',
  })

  const takeTurn: preHandlerAsyncHookHandler = async (request, reply) => {
    const release = await heavy.acquire(request.ip)
    // the answer written, or the connection gone: either ends the work. A client that left while it waited
    // closed the response before its turn came, and 'close' is not emitted twice: the turn is given back at
    // once (else every such client would hold a turn for the process's lifetime)
    if (reply.raw.closed) release()
    else reply.raw.once('close', release)
  }
  app.addHook('onRoute', (route) => {
    if (!route.config?.heavy) return
    const own =
      route.preHandler === undefined
        ? []
        : Array.isArray(route.preHandler)
          ? route.preHandler
          : [route.preHandler]
    route.preHandler = [takeTurn, ...own]
  })

  new Gauge({
    name: 'admission',
    help: 'Work under admission control by state: running, waiting for its turn, refused (503) since the start',
    labelNames: ['work', 'state'],
    registers: [app.metrics],
    collect() {
      for (const [work, admission] of [
        ['signature_verification', verification],
        ['heavy_answer', heavy],
      ] as const) {
        const stats = admission.stats()
        for (const state of ['running', 'waiting', 'refused'] as const)
          this.set({ work, state }, stats[state])
      }
    },
  })
  return { verification }
}
