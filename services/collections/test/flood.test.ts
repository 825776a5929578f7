import { randomBytes, randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import {
  type ContainedService,
  costlyInvalidHeaders,
  createIdentity,
  type FloodRequest,
  type FloodResult,
  flood,
  type Identity,
  signedHeaders,
  startServiceAsContainer,
} from '@genesis/common/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCollection, useHarness, useIdentities } from './helpers.js'
import { seedCollections } from './seed.js'

/*
 * One collections process, started as it runs in a container, flooded over loopback with the costliest
 * requests a stranger can send: signed-fetch chains that take the most work to refuse, on every signed
 * route, and the largest list pages. Every request must be answered (its refusal included, or 503/429
 * with Retry-After), /health/live must answer within a second throughout, and the process must stay well
 * inside the memory limit of its Kubernetes manifest.
 */

const packageDir = fileURLToPath(new URL('..', import.meta.url))

const h = useHarness()
const [owner] = useIdentities(1)
let service: ContainedService
let collectionId: string

beforeAll(async () => {
  // a catalogue: 2,000 collections, four in five published; and 100 of one owner
  await seedCollections(h.db.sql, 2_000)
  for (let i = 0; i < 100; i++) collectionId = await createCollection(h.app, owner)
  service = await startServiceAsContainer({
    service: 'collections',
    packageDir,
    env: { DATABASE_URL: h.db.url, COMMITTEE_ADDRESSES: h.committee.address },
  })
}, 120_000)
afterAll(() => service?.close())

/**
 * Every request answered as expected (or 503/429 with Retry-After), /health/live within a second
 * throughout, and the process inside its manifest's memory limit. It runs from source through tsx, which
 * holds more memory than the image's build: a peak under 85 % of the limit here is further under it in a
 * container.
 */
const withstood = (result: FloodResult, expected: number[]) =>
  expect(service.problems(result, { expected })).toEqual([])

describe('a flood against one collections process', () => {
  it('60 of the costliest invalid signatures at once, on every signed route: each refused 401, the process live', async () => {
    const id = collectionId
    const routes: [string, string][] = [
      ['PUT', `/v1/collections/${id}`],
      ['DELETE', `/v1/collections/${id}`],
      ['POST', `/v1/collections/${id}/lock`],
      ['POST', `/v1/collections/${id}/tos`],
      ['POST', `/v1/collections/${id}/publish`],
      ['POST', `/v1/collections/${id}/curations`],
      ['PUT', `/v1/collections/${id}/forum`],
      ['PUT', `/v1/items/${randomUUID()}`],
      ['DELETE', `/v1/items/${randomUUID()}`],
      ['POST', `/v1/curations/${randomUUID()}/approve`],
      ['POST', `/v1/curations/${randomUUID()}/reject`],
      ['GET', '/v1/collections?limit=100'],
      ['GET', `/v1/${owner.address}/collections?limit=100`],
      ['GET', `/v1/collections/${id}/items`],
    ]
    const distinct: FloodRequest[] = Array.from({ length: 60 }, (_, i) => {
      const [method, path] = routes[i % routes.length]!
      return {
        method,
        path,
        // most with ten links (nine delegations recovered in JavaScript), some the usual shape, never cached
        headers: costlyInvalidHeaders(method, path, { links: i % 4 === 3 ? 3 : 10 }),
        ...(method === 'GET' || method === 'DELETE' ? {} : { body: JSON.stringify({ id, name: 'x' }) }),
      }
    })
    // 60 in flight at any time, four rounds of them: a refused chain is verified anew each time it comes
    const requests = [...distinct, ...distinct, ...distinct, ...distinct]
    const result = await flood({ baseUrl: service.baseUrl, pid: service.pid, requests, concurrency: 60 })
    withstood(result, [401])
    for (const answer of result.answers.filter((a) => a.status === 401))
      expect(answer.code).toBe('unauthorized')
  })

  it('60 of the largest list pages at once, each a page no answer cache holds: each answered 200', async () => {
    const stranger = await createIdentity()
    const pages: [Identity, string][] = []
    // a stranger: 100 published collections a page; the committee: every collection, every field (500
    // of them unpublished)
    for (let page = 1; page <= 16; page++) {
      pages.push([stranger, `/v1/collections?limit=100&page=${page}`])
      pages.push([h.committee, `/v1/collections?limit=100&page=${page}`])
      if (page <= 5) pages.push([h.committee, `/v1/collections?limit=100&page=${page}&is_published=false`])
    }
    pages.push([owner, `/v1/${owner.address}/collections?limit=100`])
    const requests: FloodRequest[] = Array.from({ length: 60 }, (_, i) => {
      const [who, path] = pages[i % pages.length]!
      // each signed afresh (a nonce), so that none is answered from the cache of verified reads
      const metadata = { nonce: randomBytes(8).toString('hex') }
      return { method: 'GET', path, headers: signedHeaders(who, 'GET', path.split('?')[0]!, { metadata }) }
    })
    // and the unsigned list, 100 contract addresses a page
    for (let page = 1; page <= 10; page++)
      requests.push({ method: 'GET', path: `/v1/addresses?limit=100&page=${page}` })
    const result = await flood({ baseUrl: service.baseUrl, pid: service.pid, requests, concurrency: 60 })
    withstood(result, [200])
    const collectionPages = result.answers.filter((_, i) => requests[i]!.path.includes('/collections?'))
    expect(Math.min(...collectionPages.map((a) => a.bytes))).toBeGreaterThan(30_000)
  })
})
