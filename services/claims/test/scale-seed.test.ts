import { migrate } from '@genesis/common'
import { createTestDatabase, requireRealPostgres, type TestDatabase } from '@genesis/common/testing'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { seedClaims } from '../bench/scale/seed.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { adoptChain } from '../src/jobs/reconciler.js'
import { sweep } from '../src/jobs/sweeper.js'
import { migrationsDir } from '../src/paths.js'

// The scale bench's seed (bench/scale/seed.ts) at a tiny volume: the database it makes is one the service
// could have made (every pointer to a claim of the reward's owner, chain and contract, one live claim per
// reward at most, totals counted), so that what `pnpm bench:scale` measures is the service's own shape.
let db: TestDatabase
beforeAll(async () => {
  db = await createTestDatabase({ settings: CLAIMS_DB_SETTINGS })
  await migrate(db.sql, migrationsDir)
})
afterAll(async () => db?.drop())

it('makes a consistent claims database, which the jobs then find nothing wrong with', async (ctx) => {
  requireRealPostgres(ctx, db)
  await seedClaims(db.sql, {
    owners: 200,
    rewards: 2_000,
    claims: 400,
    live: 40,
    idempotencyKeys: 100,
    replays: 50,
  })
  const [shape] = await db.sql<Record<string, number>[]>`
    select (select count(*)::int from rewards) as rewards,
           (select count(*)::int from claim_transactions) as claims,
           (select count(*)::int from rewards r where r.claim_transaction_id is not null and not exists (
              select 1 from claim_transactions c where c.id = r.claim_transaction_id and c."user" = r."user"
                and c.chain_id = r.chain_id and c.contract = r.contract and r.id = any(c.rewards))) as stray,
           (select count(*)::int from (select reward from claim_transactions, unnest(rewards) as reward
              where claim_is_live(status, expires_at, watched) group by reward having count(*) > 1) as d) as doubled,
           (select count(*)::int from claim_transactions where status in ('claimed', 'pending') and expires_at > now()) as live,
           (select count(*)::int from user_totals t where not t.counted
              or t.rewards <> (select count(*) from rewards r where r."user" = t."user")
              or t.claims <> (select count(*) from claim_transactions c where c."user" = t."user")) as miscounted`
  expect(shape).toEqual({ rewards: 2_000, claims: 400, stray: 0, doubled: 0, live: 40, miscounted: 0 })
  expect((await sweep(db.sql)).expired).toBe(0)
  expect(await adoptChain(db.sql, '80002')).toBe(20)
})
