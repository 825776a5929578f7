import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { type FloodResult, flood, floodProblems, manifestMemoryLimit } from '../src/testing/index.js'

describe('manifestMemoryLimit', () => {
  const manifest = `
apiVersion: v1
kind: ConfigMap
metadata: { name: claims-config }
data: { PORT: "8080" }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: claims }
spec:
  template:
    spec:
      containers:
        - name: sidecar
          resources:
            limits:
              memory: 64Mi
        - name: claims
          resources:
            requests: { cpu: 100m, memory: 160Mi }
            limits: { cpu: "1", memory: 1.5Gi }
`
  it("reads the named container's limit, in any YAML style and unit", () => {
    expect(manifestMemoryLimit(manifest, 'claims')).toBe(1.5 * 2 ** 30)
    expect(manifestMemoryLimit(manifest, 'sidecar')).toBe(64 * 2 ** 20)
    expect(manifestMemoryLimit(manifest.replace('64Mi', '500M'), 'sidecar')).toBe(500e6)
  })
  it('throws when there is none', () => {
    expect(() => manifestMemoryLimit(manifest, 'land')).toThrow(/no memory limit for a container land/)
  })
})

describe('floodProblems', () => {
  const MiB = 2 ** 20
  const result = (changes: Partial<FloodResult>): FloodResult => ({
    answers: [{ status: 401, code: 'unauthorized', retryAfter: undefined, bytes: 100 }],
    statuses: { 401: 1 },
    maxLivenessMs: 20,
    livenessProbes: 10,
    livenessFailures: [],
    peakRssBytes: 200 * MiB,
    rssBeforeBytes: 190 * MiB,
    durationMs: 1000,
    ...changes,
  })
  const limits = { expected: [401], memoryLimitBytes: 384 * MiB }
  it('finds nothing wrong in a flood withstood, 503s with Retry-After included', () => {
    expect(floodProblems(result({}), limits)).toEqual([])
    const refused = { status: 503, code: 'service_unavailable', retryAfter: '1', bytes: 100 }
    expect(floodProblems(result({ answers: [refused], statuses: { 503: 1 } }), limits)).toEqual([])
  })
  it('names each thing the flood broke', () => {
    const broken = result({
      answers: [
        { status: 500, code: 'internal_server_error', retryAfter: undefined, bytes: 10 },
        { status: 503, code: 'service_unavailable', retryAfter: undefined, bytes: 10 },
      ],
      statuses: { 500: 1, 503: 1 },
      maxLivenessMs: 1500,
      livenessFailures: [503],
      peakRssBytes: 380 * MiB,
      rssBeforeBytes: 150 * MiB,
    })
    expect(floodProblems(broken, limits)).toEqual([
      '1 answered 500',
      '1 refused without Retry-After',
      '/health/live answered 503',
      '/health/live took 1500 ms (at most 1000)',
      'peak RSS 380 MiB (at most 326 MiB of 384 MiB)',
      'the flood added 230 MiB of RSS (at most 115 MiB)',
    ])
  })
})

describe('flood', () => {
  it("counts each answer's status, bytes and error code; its probe, a process of its own, sees the server stall", async () => {
    // The flood's route holds the server's event loop for 300 ms, as a slow synchronous answer would.
    const server = createServer((request, response) => {
      if (request.url === '/health/live') {
        response.end('ok')
      } else if (request.url === '/stall') {
        const until = Date.now() + 300
        while (Date.now() < until);
        response.end('x'.repeat(1000))
      } else {
        response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' })
        response.end(JSON.stringify({ ok: false, code: 'service_unavailable' }))
      }
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as AddressInfo
      const stall = { method: 'GET', path: '/stall' }
      const result = await flood({
        baseUrl: `http://127.0.0.1:${port}`,
        requests: [stall, stall, stall, stall, { method: 'GET', path: '/full' }],
        concurrency: 2,
        pollMs: 10,
      })
      expect(result.statuses).toEqual({ 200: 4, 503: 1 })
      expect(result.answers[0]).toEqual({ status: 200, code: undefined, retryAfter: undefined, bytes: 1000 })
      expect(result.answers[4]).toMatchObject({ status: 503, code: 'service_unavailable', retryAfter: '1' })
      expect(result.livenessFailures).toEqual([])
      expect(result.livenessProbes).toBeGreaterThan(1)
      expect(result.maxLivenessMs).toBeGreaterThan(150)
    } finally {
      server.close()
    }
  })
})
