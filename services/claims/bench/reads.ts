/**
 * `pnpm --filter @genesis/claims bench:reads`: a small read against a bare Fastify answering it with the
 * same code (bench/reads-serve.ts), in the same run (common's bench/against-bare.ts): a page of 10 rewards
 * asked for with the operator token. Target: the service at ≥ 0.85 of bare Fastify.
 */
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { migrate } from '@genesis/common'
import { createTestDatabase } from '@genesis/common/testing'
import { Wallet } from 'ethers'
import { againstBare } from '../../../packages/common/bench/against-bare.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'

const token = randomBytes(24).toString('hex')
const authorization = `Bearer ${token}`
const user = Wallet.createRandom().address.toLowerCase()
const db = await createTestDatabase({ settings: CLAIMS_DB_SETTINGS })
try {
  await migrate(db.sql, migrationsDir)
  await againstBare({
    script: fileURLToPath(new URL('./reads-serve.ts', import.meta.url)),
    env: {
      DATABASE_URL: db.url,
      CLAIMS_ADMIN_TOKEN: token,
      CLAIMS_SIGNER_PRIVATE_KEY: Wallet.createRandom().privateKey,
    },
    prepare: async (service) => {
      const rewards = Array.from({ length: 10 }, (_, i) => ({
        user,
        chain_id: '137',
        contract: '0x1111111111111111111111111111111111111111',
        item_id: String(i + 1),
        campaign: 'bench',
      }))
      const granted = await fetch(`${service}/api/rewards`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ rewards }),
      })
      if (granted.status !== 201) throw new Error(`granting the rewards answered ${granted.status}`)
      return [
        {
          name: 'GET /api/rewards (operator token, a page of 10)',
          path: `/api/rewards?user=${user}&limit=10`,
          headers: { authorization },
        },
      ]
    },
  })
} finally {
  await db.drop()
}
