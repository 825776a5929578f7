import type {
  ClaimStatus,
  ClaimTransaction,
  CreateClaimBody,
  GrantRewardsBody,
  PatchClaimBody,
  Reward,
  RewardGrant,
  SignerInfo,
} from '@genesis/wire/claims'
import { GenesisApiError } from './errors.js'
import { type Answer, ServiceHttp, type ServiceOptions } from './http.js'
import { type Page, type PageRequest, pageOf, pages } from './paging.js'

export type { ClaimStatus, ClaimTransaction, Reward, RewardGrant, SignerInfo }

export interface CreateClaimOptions {
  /** Reuse to make a retry safe (the same key and body give back the same claim); a fresh uuid by default. */
  idempotencyKey?: string
  /** Retries after no answer or a 502/503/504, each re-signed and with the same key (default 2). */
  retries?: number
}

export interface CreatedClaim {
  claim: ClaimTransaction
  /** The service answered an earlier create with this key (header `idempotent-replayed`). */
  replayed: boolean
  idempotencyKey: string
}

const RETRYABLE = new Set([0, 502, 503, 504])

/** A user of the claims service (`/api`), signing with their identity. */
export class ClaimsClient {
  protected readonly http: ServiceHttp

  constructor(options: ServiceOptions) {
    this.http = new ServiceHttp(options)
  }

  /** The caller's rewards, newest first, each with `claimable`. */
  async listRewards(request: PageRequest = {}): Promise<Page<Reward>> {
    const answer = await this.http.request<Reward[]>({
      method: 'GET',
      path: '/api/rewards',
      query: { page: request.page, limit: request.limit },
      auth: 'signed',
    })
    return pageOf(answer.data, answer.pagination)
  }

  rewardPages(request: PageRequest = {}): AsyncGenerator<Page<Reward>> {
    return pages((r) => this.listRewards(r), request)
  }

  /**
   * Claims 1 to 100 of the caller's rewards (same chain and contract): 201 with the calldata for the wallet.
   * Sent with an Idempotency-Key, so the retries after a lost answer give back the claim already made.
   */
  async createClaim(rewardIds: string[], options: CreateClaimOptions = {}): Promise<CreatedClaim> {
    const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID()
    const body: CreateClaimBody = { rewards: rewardIds }
    for (let attempt = 0; ; attempt++) {
      let answer: Answer<ClaimTransaction>
      try {
        answer = await this.http.request<ClaimTransaction>({
          method: 'POST',
          path: '/api/claim-transactions',
          body,
          auth: 'signed',
          headers: { 'idempotency-key': idempotencyKey },
        })
      } catch (error) {
        const retry = error instanceof GenesisApiError && RETRYABLE.has(error.status)
        if (retry && attempt < (options.retries ?? 2)) continue
        throw error
      }
      return {
        claim: answer.data,
        replayed: answer.headers.get('idempotent-replayed') === 'true',
        idempotencyKey,
      }
    }
  }

  async listClaims(request: PageRequest = {}): Promise<Page<ClaimTransaction>> {
    const answer = await this.http.request<ClaimTransaction[]>({
      method: 'GET',
      path: '/api/claim-transactions',
      query: { page: request.page, limit: request.limit },
      auth: 'signed',
    })
    return pageOf(answer.data, answer.pagination)
  }

  claimPages(request: PageRequest = {}): AsyncGenerator<Page<ClaimTransaction>> {
    return pages((r) => this.listClaims(r), request)
  }

  async getClaim(id: string): Promise<ClaimTransaction> {
    const path = `/api/claim-transactions/${encodeURIComponent(id)}`
    return (await this.http.request<ClaimTransaction>({ method: 'GET', path, auth: 'signed' })).data
  }

  /** The hash of the transaction the wallet sent: the claim moves to `pending`. */
  async reportTransactionHash(id: string, transactionHash: string): Promise<ClaimTransaction> {
    const body: PatchClaimBody = { transaction_hash: transactionHash }
    const path = `/api/claim-transactions/${encodeURIComponent(id)}`
    return (await this.http.request<ClaimTransaction>({ method: 'PATCH', path, body, auth: 'signed' })).data
  }

  /** Public: the voucher signer's address and EIP-712 domain name and version. */
  async signer(): Promise<SignerInfo> {
    return (await this.http.request<SignerInfo>({ method: 'GET', path: '/api/signer' })).data
  }
}

/** The operator of the claims service: every call carries `Authorization: Bearer <CLAIMS_ADMIN_TOKEN>`. */
export class ClaimsAdminClient {
  private readonly http: ServiceHttp
  private readonly auth: { bearer: string }

  constructor(options: ServiceOptions & { adminToken: string }) {
    this.http = new ServiceHttp(options)
    this.auth = { bearer: options.adminToken }
  }

  /** Grants rewards, all or nothing; a grant with a client-chosen `id` may be repeated safely. */
  async grantRewards(rewards: RewardGrant[]): Promise<Reward[]> {
    const body: GrantRewardsBody = { rewards }
    return (
      await this.http.request<Reward[]>({ method: 'POST', path: '/api/rewards', body, auth: this.auth })
    ).data
  }

  async listRewards(user: string, request: PageRequest = {}): Promise<Page<Reward>> {
    const answer = await this.http.request<Reward[]>({
      method: 'GET',
      path: '/api/rewards',
      query: { user, page: request.page, limit: request.limit },
      auth: this.auth,
    })
    return pageOf(answer.data, answer.pagination)
  }

  rewardPages(user: string, request: PageRequest = {}): AsyncGenerator<Page<Reward>> {
    return pages((r) => this.listRewards(user, r), request)
  }

  async listClaims(user: string, request: PageRequest = {}): Promise<Page<ClaimTransaction>> {
    const answer = await this.http.request<ClaimTransaction[]>({
      method: 'GET',
      path: '/api/claim-transactions',
      query: { user, page: request.page, limit: request.limit },
      auth: this.auth,
    })
    return pageOf(answer.data, answer.pagination)
  }

  claimPages(user: string, request: PageRequest = {}): AsyncGenerator<Page<ClaimTransaction>> {
    return pages((r) => this.listClaims(user, r), request)
  }

  async getClaim(id: string): Promise<ClaimTransaction> {
    const path = `/api/claim-transactions/${encodeURIComponent(id)}`
    return (await this.http.request<ClaimTransaction>({ method: 'GET', path, auth: this.auth })).data
  }

  /** Settles a claim (`successful` or `failed`), or sets `pending` with a hash. */
  async settleClaim(id: string, change: PatchClaimBody): Promise<ClaimTransaction> {
    const path = `/api/claim-transactions/${encodeURIComponent(id)}`
    return (
      await this.http.request<ClaimTransaction>({ method: 'PATCH', path, body: change, auth: this.auth })
    ).data
  }
}
