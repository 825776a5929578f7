import { randomUUID } from 'node:crypto'
import type { App } from '@genesis/common'
import {
  type Identity,
  signedInject,
  startTestService,
  type TestDatabase,
  type TestService,
} from '@genesis/common/testing'
import { startBeforeAll, useIdentities } from '@genesis/common/testing/vitest'
import type { ClaimTransaction, Reward } from '@genesis/wire/claims'
import { Wallet } from 'ethers'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { CLAIMS_DB_SETTINGS } from '../src/db/settings.js'
import { migrationsDir } from '../src/paths.js'

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef'
export const CONTRACT = '0x1111111111111111111111111111111111111111'
export const OTHER_CONTRACT = '0x2222222222222222222222222222222222222222'

export interface TestContext extends TestService {
  /** The service's voucher key, so that tests can check what it signed. */
  signerWallet: Wallet
}

/** The service on a fresh database, configured as from the environment (the signer key included). */
export async function setUp(
  options: { claimTtlS?: number; adminToken?: string | undefined; env?: Record<string, string> } = {},
): Promise<TestContext> {
  const signerWallet = Wallet.createRandom() as unknown as Wallet
  const config = loadConfig({
    CLAIMS_SIGNER_PRIVATE_KEY: signerWallet.privateKey,
    CLAIMS_ADMIN_TOKEN: 'adminToken' in options ? options.adminToken : ADMIN_TOKEN,
    CLAIM_TTL_S: String(options.claimTtlS ?? 3600),
    // with the token left out, a deployment: no development admin token stands in for it (production
    // otherwise refuses grants on the chains without an RPC URL, which these tests use)
    ...('adminToken' in options && options.adminToken === undefined ? { NODE_ENV: 'production' } : {}),
    ...options.env,
  })
  const service = await startTestService({
    migrationsDir,
    settings: CLAIMS_DB_SETTINGS,
    build: (sql) => buildApp({ sql, config }),
  })
  return { ...service, signerWallet }
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

/** The service (`setUp`) for the tests of the file, or of the describe it is called in: closed after them. */
export const useService = (options: Parameters<typeof setUp>[0] = {}): TestContext =>
  startBeforeAll(() => setUp(options))

export { useIdentities }
