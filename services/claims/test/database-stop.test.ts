import { randomUUID } from 'node:crypto'
import { databaseStopProblems, recovered, signedInject } from '@genesis/common/testing'
import { useServiceOnPrivateCluster } from '@genesis/common/testing/vitest'
import { Wallet } from 'ethers'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'
import { ADMIN_TOKEN, admin, grantMany, useIdentities } from './helpers.js'

/*
 * Defect: with its PostgreSQL stopped for real (pg_ctl stop -m fast), requests arriving after the first
 * second were held until the database was back (16-18 s) instead of a 503 within DB_CONNECT_TIMEOUT_S /
 * DB_QUERY_TIMEOUT_MS. The service runs here on a private cluster with the deployment's default waits.
 */

const cluster = useServiceOnPrivateCluster(() => {
  const config = loadConfig({
    CLAIMS_SIGNER_PRIVATE_KEY: Wallet.createRandom().privateKey,
    CLAIMS_ADMIN_TOKEN: ADMIN_TOKEN,
  })
  return { migrationsDir, settings: CLAIMS_DB_SETTINGS, build: (sql) => buildApp({ sql, config }) }
})
const [alice] = useIdentities(1)

describe('a real database stop', () => {
  it('answers 503 within seconds, keeps every acknowledged claim, and recovers without a restart', async (context) => {
    const { service } = cluster
    if (service === undefined) return context.skip()
    const { app } = service
    const rewards = await grantMany(app, alice.address, 12)
    const claimed: string[] = []
    for (const reward of rewards.slice(0, 6)) {
      const answer = await signedInject(app, alice, {
        method: 'POST',
        url: '/api/claim-transactions',
        payload: { rewards: [reward.id] },
        metadata: { nonce: randomUUID() },
      })
      expect(answer.statusCode).toBe(201)
      claimed.push(answer.json().data.id)
    }
    let next = 6
    const problems = await databaseStopProblems(service, [
      () => signedInject(app, alice, { method: 'GET', url: '/api/claim-transactions' }),
      () => app.inject({ method: 'GET', url: `/api/rewards?user=${alice.address}`, headers: admin }),
      () =>
        signedInject(app, alice, {
          method: 'POST',
          url: '/api/claim-transactions',
          payload: { rewards: [rewards[next++ % rewards.length]!.id] },
          metadata: { nonce: randomUUID() },
        }),
    ])
    expect(problems).toEqual([])
    await recovered(app, () =>
      app.inject({ method: 'GET', url: `/api/rewards?user=${alice.address}`, headers: admin }),
    )
    const kept = await service.sql`select id from claim_transactions where id in ${service.sql(claimed)}`
    expect(kept).toHaveLength(claimed.length)
    const after = await signedInject(app, alice, {
      method: 'POST',
      url: '/api/claim-transactions',
      payload: { rewards: [rewards[11]!.id] },
      metadata: { nonce: randomUUID() },
    })
    expect([201, 400]).toContain(after.statusCode)
  }, 120_000)
})
