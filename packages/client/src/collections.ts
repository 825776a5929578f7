import type { Static } from '@genesis/wire'
import type {
  AddressCollectionsQuery,
  AddressesQuery,
  ApprovalData,
  Collection,
  CollectionListQuery,
  CollectionWrite,
  Curation,
  ForumBody,
  Item,
  ItemWrite,
  PendingCurationsQuery,
  PublishBody,
  TosBody,
} from '@genesis/wire/collections'
import { ServiceHttp, type ServiceOptions } from './http.js'
import { collect, cursorPages, items, type Page, type PageRequest, pageOf, pages } from './paging.js'

export type {
  ApprovalData,
  Collection,
  CollectionWrite,
  Curation,
  ForumBody,
  Item,
  ItemWrite,
  PublishBody,
  TosBody,
}
export type PendingReviewsRequest = Partial<PendingCurationsQuery>
export type CollectionListRequest = Partial<CollectionListQuery>
export type AddressCollectionsRequest = Partial<Static<typeof AddressCollectionsQuery>>
export type ContractAddressesRequest = Partial<Static<typeof AddressesQuery>>

const id = (value: string) => encodeURIComponent(value)

/** The collections service (`/v1`): every call but `contractAddresses` is signed with the identity. */
export class CollectionsClient {
  private readonly http: ServiceHttp

  constructor(options: ServiceOptions) {
    this.http = new ServiceHttp(options)
  }

  /** Committee: every collection (full view); anybody else: the published ones (public view). */
  async listCollections(request: CollectionListRequest = {}): Promise<Page<Collection>> {
    const answer = await this.http.request<Collection[]>({
      method: 'GET',
      path: '/v1/collections',
      query: { ...request },
      auth: 'signed',
    })
    return pageOf(answer.data, answer.pagination)
  }

  /** Every page from `request`'s on, each next one by the cursor the previous answered (any depth). */
  collectionPages(request: CollectionListRequest = {}): AsyncGenerator<Page<Collection>> {
    return cursorPages((r) => this.listCollections(r), request)
  }

  /** What an address owns, manages or mints for (that address or the committee). */
  async collectionsOf(address: string, request: AddressCollectionsRequest = {}): Promise<Page<Collection>> {
    const answer = await this.http.request<Collection[]>({
      method: 'GET',
      path: `/v1/${id(address)}/collections`,
      query: { ...request },
      auth: 'signed',
    })
    return pageOf(answer.data, answer.pagination)
  }

  /** Every page of an address's collections, each next one by the previous page's cursor. */
  collectionsOfPages(
    address: string,
    request: AddressCollectionsRequest = {},
  ): AsyncGenerator<Page<Collection>> {
    return cursorPages((r) => this.collectionsOf(address, r), request)
  }

  async getCollection(collectionId: string): Promise<Collection> {
    const path = `/v1/collections/${id(collectionId)}`
    return (await this.http.request<Collection>({ method: 'GET', path, auth: 'signed' })).data
  }

  /** Creates (the signer becomes the owner) or updates; the service derives salt, contract and URN. */
  async putCollection(collection: CollectionWrite): Promise<void> {
    const path = `/v1/collections/${id(collection.id)}`
    await this.http.request({ method: 'PUT', path, body: collection, auth: 'signed' })
  }

  async deleteCollection(collectionId: string): Promise<void> {
    const path = `/v1/collections/${id(collectionId)}`
    await this.http.request({ method: 'DELETE', path, auth: 'signed' })
  }

  /** Locks it until publication; answers the lock's start (ISO 8601). */
  async lockCollection(collectionId: string): Promise<string> {
    const path = `/v1/collections/${id(collectionId)}/lock`
    return (await this.http.request<string>({ method: 'POST', path, auth: 'signed' })).data
  }

  async acceptTerms(collectionId: string, terms: TosBody): Promise<void> {
    const path = `/v1/collections/${id(collectionId)}/tos`
    await this.http.request({ method: 'POST', path, body: terms, auth: 'signed' })
  }

  /** Standard: the owner, with exactly its items. Third party: a manager, with a cheque for the items. */
  async publish(collectionId: string, body: PublishBody): Promise<void> {
    const path = `/v1/collections/${id(collectionId)}/publish`
    await this.http.request({ method: 'POST', path, body, auth: 'signed' })
  }

  /** Committee only: what approving a third-party collection on chain needs. */
  async approvalData(collectionId: string): Promise<ApprovalData> {
    const path = `/v1/collections/${id(collectionId)}/approvalData`
    return (await this.http.request<ApprovalData>({ method: 'GET', path, auth: 'signed' })).data
  }

  /** The owner or a manager asks the committee to review the published collection (or items in review). */
  async requestReview(collectionId: string): Promise<Curation> {
    const path = `/v1/collections/${id(collectionId)}/curations`
    return (await this.http.request<Curation>({ method: 'POST', path, auth: 'signed' })).data
  }

  /** The collection's reviews, newest first (owner, managers, minters, committee). */
  async reviewsOf(collectionId: string): Promise<Curation[]> {
    const path = `/v1/collections/${id(collectionId)}/curations`
    return (await this.http.request<Curation[]>({ method: 'GET', path, auth: 'signed' })).data
  }

  /** Committee only: the reviews waiting for a decision, oldest first, searchable by collection name. */
  async pendingReviews(request: PendingReviewsRequest = {}): Promise<Page<Curation>> {
    const answer = await this.http.request<Curation[]>({
      method: 'GET',
      path: '/v1/curations',
      query: { ...request },
      auth: 'signed',
    })
    return pageOf(answer.data, answer.pagination)
  }

  pendingReviewPages(request: PendingReviewsRequest = {}): AsyncGenerator<Page<Curation>> {
    return pages((r) => this.pendingReviews({ ...request, ...r }), request)
  }

  /** Committee only: approves or rejects a pending review, with an optional comment. */
  async decideReview(
    curationId: string,
    decision: 'approve' | 'reject',
    comment?: string,
  ): Promise<Curation> {
    const path = `/v1/curations/${id(curationId)}/${decision}`
    const body = comment === undefined ? {} : { comment }
    return (await this.http.request<Curation>({ method: 'POST', path, body, auth: 'signed' })).data
  }

  /** The review's discussion thread: set once by the owner or a manager; the committee may change it. */
  async setForum(collectionId: string, forum: ForumBody): Promise<void> {
    const path = `/v1/collections/${id(collectionId)}/forum`
    await this.http.request({ method: 'PUT', path, body: forum, auth: 'signed' })
  }

  /** One page of the collection's items, in creation order (1,000 a page by default and at most). */
  async itemsPage(collectionId: string, request: PageRequest = {}): Promise<Page<Item>> {
    const path = `/v1/collections/${id(collectionId)}/items`
    const answer = await this.http.request<Item[]>({
      method: 'GET',
      path,
      query: { ...request },
      auth: 'signed',
    })
    return pageOf(answer.data, answer.pagination)
  }

  /** Every item of the collection (at most 5,000), following the pages. */
  async listItems(collectionId: string): Promise<Item[]> {
    return collect(items(pages((r) => this.itemsPage(collectionId, r))))
  }

  async putItem(item: ItemWrite): Promise<void> {
    const path = `/v1/items/${id(item.id)}`
    await this.http.request({ method: 'PUT', path, body: item, auth: 'signed' })
  }

  async deleteItem(itemId: string): Promise<void> {
    await this.http.request({ method: 'DELETE', path: `/v1/items/${id(itemId)}`, auth: 'signed' })
  }

  /** Public (no signature): contract addresses of standard collections. */
  async contractAddresses(request: ContractAddressesRequest = {}): Promise<Page<string>> {
    const answer = await this.http.request<string[]>({
      method: 'GET',
      path: '/v1/addresses',
      query: { ...request },
    })
    return pageOf(answer.data, answer.pagination)
  }

  contractAddressPages(request: ContractAddressesRequest = {}): AsyncGenerator<Page<string>> {
    return pages((r) => this.contractAddresses({ ...request, ...r }), request)
  }
}
