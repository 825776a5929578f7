import { ClaimsAdminClient, ClaimsClient } from './claims.js'
import { CollectionsClient } from './collections.js'
import type { FetchLike } from './http.js'
import type { Identity } from './identity.js'
import { LandClient } from './land.js'

export interface ServiceUrls {
  claims: string
  collections: string
  land: string
}

/** Where `pnpm start` runs the services. */
export const LOCAL_SERVICE_URLS: Readonly<ServiceUrls> = {
  claims: 'http://localhost:3001',
  collections: 'http://localhost:3002',
  land: 'http://localhost:3003',
}

export interface GenesisClientOptions {
  urls?: Partial<ServiceUrls>
  /** Signs the calls that need signed fetch. */
  identity?: Identity
  /** The claims operator's token (`CLAIMS_ADMIN_TOKEN`): enables `claimsAdmin`. */
  adminToken?: string
  fetch?: FetchLike
}

/** The three services behind one object; `as(identity)` gives the same client acting for someone else. */
export class GenesisClient {
  readonly urls: ServiceUrls
  readonly identity: Identity | undefined
  readonly claims: ClaimsClient
  readonly collections: CollectionsClient
  readonly land: LandClient
  private readonly options: GenesisClientOptions
  private admin: ClaimsAdminClient | undefined

  constructor(options: GenesisClientOptions = {}) {
    this.options = options
    this.urls = { ...LOCAL_SERVICE_URLS, ...options.urls }
    this.identity = options.identity
    const common = { identity: options.identity, fetch: options.fetch }
    this.claims = new ClaimsClient({ baseUrl: this.urls.claims, ...common })
    this.collections = new CollectionsClient({ baseUrl: this.urls.collections, ...common })
    this.land = new LandClient({ baseUrl: this.urls.land, ...common })
  }

  /** The operator's calls to the claims service; needs `adminToken`. */
  get claimsAdmin(): ClaimsAdminClient {
    const adminToken = this.options.adminToken
    if (!adminToken) throw new Error('claimsAdmin needs the adminToken option (CLAIMS_ADMIN_TOKEN)')
    this.admin ??= new ClaimsAdminClient({ baseUrl: this.urls.claims, adminToken, fetch: this.options.fetch })
    return this.admin
  }

  as(identity: Identity): GenesisClient {
    return new GenesisClient({ ...this.options, identity })
  }
}
