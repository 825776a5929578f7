import { fileURLToPath } from 'node:url'
import {
  type ContainedService,
  type FloodRequest,
  type FloodResult,
  flood,
  floodProblems,
  startServiceAsContainer,
} from '@genesis/common/testing'
import { useTestDatabase } from '@genesis/common/testing/vitest'
import { TILE_FIELDS } from '@genesis/wire/land'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrationsDir } from '../src/paths.js'
import { demoSeed } from './helpers.js'

/*
 * One land process, started as its container runs it (on PostgreSQL, as the manifests deploy it, with the
 * Genesis City set), flooded over loopback with the costliest requests a stranger can send: the largest
 * PNGs around a new centre each time, /v2/tiles with fields in new orders over new rectangles, /map over
 * new rectangles. Every request must be answered (200, or 503/429 with Retry-After), /health/live within
 * a second throughout, and the process must stay well inside its Kubernetes manifest's memory limit.
 *
 * Run with LAND_RENDERS_IN_FLIGHT=0 HEAVY_CONCURRENCY=0 (no admission bound) and it fails.
 */

const packageDir = fileURLToPath(new URL('..', import.meta.url))
const IN_FLIGHT = 60

// the first seeded database of a run seeds the template
const db = useTestDatabase({ migrationsDir, seed: demoSeed }, 120_000)
let service: ContainedService

beforeAll(async () => {
  service = await startServiceAsContainer({
    service: 'land',
    packageDir,
    env: { DATABASE_URL: db.url, LAND_AUTO_SEED: 'never' },
  })
  // listening at once, ready once the index is built
  const deadline = Date.now() + 60_000
  while ((await fetch(`${service.baseUrl}/health/ready`)).status !== 200) {
    if (Date.now() > deadline) throw new Error('land did not get ready')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}, 120_000)
afterAll(() => service?.close())

/** A different parcel for each request (a fixed stride over the grid): no answer repeats a cached one. */
const spread = (i: number, salt: number) => {
  const n = (i * 7919 + salt * 104_729) % (301 * 301)
  return { x: (n % 301) - 150, y: Math.floor(n / 301) - 150 }
}

/** A large rectangle (about a quarter of the grid and more) at a new place for each request. */
function rectangle(i: number, salt: number) {
  const { x, y } = spread(i, salt)
  const w = 150 + ((i * 37) % 120)
  const h = 150 + ((i * 53) % 120)
  const x1 = Math.max(-150, Math.min(150 - w, x))
  const y1 = Math.max(-150, Math.min(150 - h, y))
  return { x1, y1, x2: x1 + w, y2: y1 + h }
}

/** The fields in a new order for each request (a rotation, and every other one left out). */
function fieldsInNewOrder(i: number): string {
  const rotated = [
    ...TILE_FIELDS.slice(i % TILE_FIELDS.length),
    ...TILE_FIELDS.slice(0, i % TILE_FIELDS.length),
  ]
  return rotated.filter((_, k) => (k + i) % 3 !== 0).join(',')
}

const MiB = 1024 * 1024

/**
 * Every request answered as expected (or 503/429 with Retry-After), /health/live within a second
 * throughout, the peak under 85 % of the manifest's limit, and the flood adding no more memory than the
 * work it may have in flight (README "Capacity"). The process runs from source through tsx, which holds
 * more memory than the image's build.
 */
const withstood = (result: FloodResult, growthBudget: number) => {
  const problems = floodProblems(result, {
    expected: [200],
    memoryLimitBytes: service.memoryLimitBytes,
    growthFraction: growthBudget / service.memoryLimitBytes,
  })
  // the problems in the message too: a CI summary prints only the first line of a failure
  expect(problems, problems.join('; ')).toEqual([])
}

/** Two renders in flight of ~8 MiB each and the 16 MiB image cache, four times over for garbage and sockets. */
const RENDERS_BUDGET = 128 * MiB
/** Four large answers in flight of up to ~25 MiB each, and a view's 32 MiB cache of them, with room to spare. */
const ANSWERS_BUDGET = 192 * MiB

/** Some were served, not only refused: the bound admits work, it does not just shed it. */
const served = (result: FloodResult) => result.statuses[200] ?? 0

describe('a flood against one land process', () => {
  it(`${IN_FLIGHT} of the largest PNGs at once, each around a new centre: answered, the process live`, async () => {
    const requests: FloodRequest[] = Array.from({ length: IN_FLIGHT * 2 }, (_, i) => {
      const { x, y } = spread(i, 1)
      return {
        method: 'GET',
        // 4096² is drawn at the 2048² budget; the land API's own largest image is 2048² too
        path:
          i % 3 === 2
            ? `/v1/map.png?width=2048&height=2048&size=17&center=${x},${y}&publications=true`
            : `/v2/map.png?width=4096&height=4096&size=50&center=${x},${y}&on-sale=true`,
      }
    })
    const result = await flood({
      baseUrl: service.baseUrl,
      pid: service.pid,
      requests,
      concurrency: IN_FLIGHT,
    })
    withstood(result, RENDERS_BUDGET)
    expect(served(result)).toBeGreaterThan(IN_FLIGHT / 10)
  })

  it(`${IN_FLIGHT} /v2/tiles and /v1/tiles at once, fields in new orders over new rectangles`, async () => {
    const requests: FloodRequest[] = Array.from({ length: IN_FLIGHT * 2 }, (_, i) => {
      const { x1, y1, x2, y2 } = rectangle(i, 2)
      const shape = i % 4 === 3 ? 'v1' : 'v2'
      const query =
        i % 5 === 4
          ? `x1=${x1}&y1=${y1}&x2=${x2}&y2=${y2}`
          : `x1=${x2}&y1=${y2}&x2=${x1}&y2=${y1}&include=${fieldsInNewOrder(i)}`
      return { method: 'GET', path: `/${shape}/tiles?${query}`, headers: { 'accept-encoding': 'gzip, br' } }
    })
    const result = await flood({
      baseUrl: service.baseUrl,
      pid: service.pid,
      requests,
      concurrency: IN_FLIGHT,
    })
    withstood(result, ANSWERS_BUDGET)
    expect(served(result)).toBeGreaterThan(IN_FLIGHT / 10)
  })

  it(`${IN_FLIGHT} /map at once, each over a new rectangle, compressed and not`, async () => {
    const requests: FloodRequest[] = Array.from({ length: IN_FLIGHT * 2 }, (_, i) => {
      const { x1, y1, x2, y2 } = rectangle(i, 3)
      return {
        method: 'GET',
        path: `/v1/map?nw=${x1},${y2}&se=${x2},${y1}`,
        headers: i % 2 ? { 'accept-encoding': 'br, gzip' } : { 'accept-encoding': 'identity' },
      }
    })
    const result = await flood({
      baseUrl: service.baseUrl,
      pid: service.pid,
      requests,
      concurrency: IN_FLIGHT,
    })
    withstood(result, ANSWERS_BUDGET)
    expect(served(result)).toBeGreaterThan(IN_FLIGHT / 10)
  })
})
