import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createApp, ok } from '../src/index.js'
import { databaseStopProblems, recovered } from '../src/testing/index.js'
import { useServiceOnPrivateCluster } from '../src/testing/vitest.js'
import { migrationsOf } from './fixtures.js'

/*
 * Defect: with the database stopped for real (pg_ctl stop -m fast, then refusing connections), requests
 * after the first second were held until it was back, 16-18 s, and /health/ready up to 4.5 s: postgres.js
 * waited out its reconnect backoff (growing to 20 s per connection) before even starting the connect
 * timeout. The proxy-cut outage tests never saw it (a cut proxy behaves differently from a stopped server).
 */

const cluster = useServiceOnPrivateCluster(() => ({
  migrationsDir: migrationsOf('create table notes (id uuid primary key);'),
  build: async (sql) => {
    const app = await createApp({ name: 'stop', version: '0.0.0', sql })
    app.post<{ Params: { id: string } }>('/notes/:id', async (request) => {
      await sql`insert into notes (id) values (${request.params.id})`
      return ok(null)
    })
    app.get('/notes', async () =>
      ok((await sql<{ n: number }[]>`select count(*)::int as n from notes`)[0]!.n),
    )
    return app
  },
}))

describe('a real database stop', () => {
  it('answers 503 within seconds all along, keeps acknowledged writes, and recovers without a restart', async (context) => {
    const { service } = cluster
    if (service === undefined) return context.skip()
    const { app } = service
    const acknowledged: string[] = []
    for (let i = 0; i < 20; i++) {
      const id = randomUUID()
      const answer = await app.inject({ method: 'POST', url: `/notes/${id}` })
      expect(answer.statusCode).toBe(200)
      acknowledged.push(id)
    }
    const problems = await databaseStopProblems(service, [
      () => app.inject({ method: 'GET', url: '/notes' }),
      () => app.inject({ method: 'POST', url: `/notes/${randomUUID()}` }),
    ])
    expect(problems).toEqual([])
    await recovered(app, () => app.inject({ method: 'GET', url: '/notes' }))
    const kept = await service.sql<
      { id: string }[]
    >`select id from notes where id in ${service.sql(acknowledged)}`
    expect(kept).toHaveLength(acknowledged.length)
    expect((await app.inject({ method: 'POST', url: `/notes/${randomUUID()}` })).statusCode).toBe(200)
  }, 120_000)
})
