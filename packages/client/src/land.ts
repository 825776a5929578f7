import type { Static } from '@genesis/wire'
import type {
  Contribution,
  District,
  Estate,
  ImageQuery,
  ListQuery,
  MapImageQuery,
  MapResult,
  PagingQuery,
  Parcel,
  ParcelPublicationsQuery,
  Publication,
} from '@genesis/wire/land'
import { type Query, ServiceHttp, type ServiceOptions } from './http.js'
import { type Page, pageFromOffset, pages } from './paging.js'

export type { Contribution, District, Estate, Parcel, Publication }
export type MapAnswer = Static<typeof MapResult>
export type ListingRequest = Partial<ListQuery>
export type OwnedRequest = Partial<PagingQuery>
export type PublicationStatus = NonNullable<Static<typeof ParcelPublicationsQuery>['status']>

/** Land's lists page by `offset`; the page iterators count in pages of `limit` (default 20). */
const DEFAULT_LIMIT = 20
const offsetOf = (page: number, limit: number) => (page - 1) * limit

/** The land service (read-only, no signature), on its `/v1` routes. */
export class LandClient {
  private readonly http: ServiceHttp

  constructor(options: ServiceOptions) {
    this.http = new ServiceHttp(options)
  }

  private async get<T>(path: string, query?: Query): Promise<T> {
    return (await this.http.request<T>({ method: 'GET', path: `/v1${path}`, query })).data
  }

  districts(): Promise<District[]> {
    return this.get('/districts')
  }

  parcel(x: number, y: number): Promise<Parcel> {
    return this.get(`/parcels/${x}/${y}`)
  }

  parcelPublications(x: number, y: number, status?: PublicationStatus): Promise<Publication[]> {
    return this.get(`/parcels/${x}/${y}/publications`, { status })
  }

  /** Parcels with a publication in a status (`open` by default), sorted and paged by offset. */
  async parcels(request: ListingRequest = {}): Promise<Page<Parcel>> {
    const { limit = DEFAULT_LIMIT, offset = 0 } = request
    const answer = await this.get<{ parcels: Parcel[]; total: number }>('/parcels', {
      ...request,
      limit,
      offset,
    })
    return pageFromOffset(answer.parcels, answer.total, offset, limit)
  }

  parcelPages(request: Omit<ListingRequest, 'offset'> = {}): AsyncGenerator<Page<Parcel>> {
    const limit = request.limit ?? DEFAULT_LIMIT
    return pages(({ page }) => this.parcels({ ...request, limit, offset: offsetOf(page, limit) }))
  }

  async estates(request: ListingRequest = {}): Promise<Page<Estate>> {
    const { limit = DEFAULT_LIMIT, offset = 0 } = request
    const answer = await this.get<{ estates: Estate[]; total: number }>('/estates', {
      ...request,
      limit,
      offset,
    })
    return pageFromOffset(answer.estates, answer.total, offset, limit)
  }

  estatePages(request: Omit<ListingRequest, 'offset'> = {}): AsyncGenerator<Page<Estate>> {
    const limit = request.limit ?? DEFAULT_LIMIT
    return pages(({ page }) => this.estates({ ...request, limit, offset: offsetOf(page, limit) }))
  }

  /** Parcels and estates in the rectangle between two corners (`x,y`, inclusive). */
  map(nw: string, se: string): Promise<MapAnswer> {
    return this.get('/map', { nw, se })
  }

  publication(txHash: string): Promise<Publication> {
    return this.get(`/publications/${encodeURIComponent(txHash)}`)
  }

  contributions(address: string): Promise<Contribution[]> {
    return this.get(`/addresses/${encodeURIComponent(address)}/contributions`)
  }

  async parcelsOf(address: string, request: OwnedRequest = {}): Promise<Page<Parcel>> {
    const { limit = DEFAULT_LIMIT, offset = 0 } = request
    const path = `/addresses/${encodeURIComponent(address)}/parcels`
    const answer = await this.get<{ parcels: Parcel[]; total: number }>(path, { limit, offset })
    return pageFromOffset(answer.parcels, answer.total, offset, limit)
  }

  async estatesOf(address: string, request: OwnedRequest = {}): Promise<Page<Estate>> {
    const { limit = DEFAULT_LIMIT, offset = 0 } = request
    const path = `/addresses/${encodeURIComponent(address)}/estates`
    const answer = await this.get<{ estates: Estate[]; total: number }>(path, { limit, offset })
    return pageFromOffset(answer.estates, answer.total, offset, limit)
  }

  translations(locale: string): Promise<Record<string, string>> {
    return this.get(`/translations/${encodeURIComponent(locale)}`)
  }

  /** URLs of the PNG maps, for an `<img src>` (they answer images, not the envelope). */
  mapImageUrl(query: Partial<MapImageQuery> = {}): string {
    return this.http.url('/v1/map.png', { ...query })
  }

  parcelImageUrl(x: number, y: number, query: Partial<ImageQuery> = {}): string {
    return this.http.url(`/v1/parcels/${x}/${y}/map.png`, { ...query })
  }

  estateImageUrl(estateId: string, query: Partial<ImageQuery> = {}): string {
    return this.http.url(`/v1/estates/${encodeURIComponent(estateId)}/map.png`, { ...query })
  }
}
