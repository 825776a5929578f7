import { randomUUID } from 'node:crypto'
import { type App, migrate } from '@genesis/common'
import { createTestDatabase, type Identity, signedInject, type TestDatabase } from '@genesis/common/testing'
import { Wallet } from 'ethers'
import { buildApp } from '../src/app.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'
import type { ClaimTransaction, Reward } from '../src/schemas/index.js'
import { createVoucherSigner } from '../src/voucher/voucher.js'

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef'
export const CONTRACT = '0x1111111111111111111111111111111111111111'
export const OTHER_CONTRACT = '0x2222222222222222222222222222222222222222'

export interface TestContext {
  db: TestDatabase
  app: App
  /** The service's voucher key, so that tests can check what it signed. */
  signerWallet: Wallet
  close(): Promise<void>
}

export async function setUp(
  options: { claimTtlS?: number; adminToken?: string | undefined } = {},
): Promise<TestContext> {
  const db = await createTestDatabase({ settings: CLAIMS_DB_SETTINGS })
  await migrate(db.sql, migrationsDir)
  const signerWallet = Wallet.createRandom() as unknown as Wallet
  const app = await buildApp({
    sql: db.sql,
    signer: createVoucherSigner(signerWallet.privateKey),
    adminToken: 'adminToken' in options ? options.adminToken : ADMIN_TOKEN,
    claimTtlS: options.claimTtlS ?? 3600,
  })
  return {
    db,
    app,
    signerWallet,
    close: async () => {
      await app.close()
      await db.drop()
    },
  }
}

export const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }

export interface GrantSpec {
  chain_id?: string
  contract?: string
  item_id?: string
  campaign?: string
  id?: string
}

/** Grants rewards through the admin API (the real path an operator uses). */
export async function grant(app: App, user: string, specs: GrantSpec[]): Promise<Reward[]> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/rewards',
    headers: admin,
    payload: {
      rewards: specs.map((spec, i) => ({
        id: spec.id ?? randomUUID(),
        user,
        chain_id: spec.chain_id ?? '137',
        contract: spec.contract ?? CONTRACT,
        item_id: spec.item_id ?? String(i + 1),
        ...(spec.campaign ? { campaign: spec.campaign } : {}),
      })),
    },
  })
  if (response.statusCode !== 201) throw new Error(`grant failed: ${response.statusCode} ${response.body}`)
  return response.json().data
}

export const grantMany = (app: App, user: string, n: number, spec: GrantSpec = {}) =>
  grant(
    app,
    user,
    Array.from({ length: n }, (_, i) => ({ ...spec, item_id: spec.item_id ?? String(i + 1) })),
  )

export async function createClaim(
  app: App,
  who: Identity,
  rewards: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: ClaimResponse }> {
  const response = await signedInject(app, who, {
    method: 'POST',
    url: '/api/claim-transactions',
    payload: { rewards } as Record<string, unknown>,
    headers,
  })
  return { status: response.statusCode, body: response.json() }
}

export type ClaimResponse =
  | { ok: true; data: ClaimTransaction }
  | { ok: false; error: string; code: string; data?: Record<string, unknown> }

export const claimOf = (body: ClaimResponse): ClaimTransaction => {
  if (!body.ok) throw new Error(`expected a claim, got ${body.code}: ${body.error}`)
  return body.data
}

/** Moves a claim an hour into the past, so that it is just past its expiry, as the clock eventually would. */
export async function expire(db: TestDatabase, claimId: string) {
  await db.sql`
    update claim_transactions
    set created_at = created_at - interval '1 hour 1 second', updated_at = updated_at - interval '1 hour 1 second',
      expires_at = now() - interval '1 second'
    where id = ${claimId}`
}
