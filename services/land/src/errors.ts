import { BadRequestError, InternalServerError, NotFoundError, ServiceUnavailableError } from '@genesis/common'

// The land service's error catalogue: every refusal it makes itself, one factory each (README "Error codes").
// Schema failures (400 bad_request, quoting the value) come from the kit.

/** 400 bad_request: a coordinate (`center`, `selected`, `nw`, `se`) that is not x,y within the grid. */
export const invalidCoordinate = (parameter: string, value: string, expected: string) =>
  new BadRequestError(`Invalid ${parameter} "${value}": ${expected}`, { data: { parameter, value } })

/** 404 not_found: no publication with this transaction hash. */
export const publicationNotFound = (txHash: string) =>
  new NotFoundError(`No publication with transaction hash ${txHash}`)

/** 404 not_found: no translations for the locale. */
export const localeNotFound = (locale: string, available: string[]) =>
  new NotFoundError(`No translations for locale "${locale}": available are ${available.join(', ')}`, {
    data: { locale },
  })

/** 404 not_found: no estate with this id. */
export const estateNotFound = (id: string) => new NotFoundError(`Estate "${id}" not found`, { data: { id } })

/** 404 estate_empty: the estate has no parcels to draw. */
export const estateEmpty = (id: string) =>
  new NotFoundError(`Estate "${id}" has no parcels to draw`, { code: 'estate_empty', data: { id } })

/**
 * too_many_parcels: the image would draw more parcels than allowed (its wording is fixed). A 500 on the land
 * API, which its specification fixes; a 400 on /v2 (README "Error codes").
 */
export const tooManyParcels = (parcels: number, max: number, status: 400 | 500) => {
  const message = `Too many parcels. You are trying to render ${parcels} parcels and the maximum allowed is ${max}.`
  const options = { code: 'too_many_parcels', data: { parcels, max } }
  return status === 400 ? new BadRequestError(message, options) : new InternalServerError(message, options)
}

/** 503 service_unavailable: the grid index is not built yet (readiness is 503 too). */
export const indexNotReady = () =>
  new ServiceUnavailableError('The land index is still being built, retry shortly')

// The atlas-compatible surface (/v2).

/** 400 bad_request: a token id that is not a uint256 in plain decimal. */
export const invalidTokenId = (id: string) =>
  new BadRequestError(`Invalid token id "${id}": expected a uint256 in decimal`, {
    data: { parameter: 'id', value: id },
  })

/** 404 not_found: the coordinates are outside the grid. */
export const parcelNotFound = (x: number, y: number) =>
  new NotFoundError(`No parcel at ${x},${y}`, { data: { x, y } })

/** 404 not_found: the address is neither the LAND nor the estate registry this service serves. */
export const contractNotFound = (address: string) =>
  new NotFoundError(`No LAND or estate registry at ${address}`, { data: { address } })

/** 404 not_found: the registry has no such token (a LAND id outside the grid, an unknown estate). */
export const tokenNotFound = (address: string, id: string) =>
  new NotFoundError(`No token ${id} in the registry at ${address}`, { data: { address, id } })

/** 503 public_url_missing: metadata needs absolute image URLs, and in production only LAND_PUBLIC_URL gives them. */
export const publicUrlMissing = () =>
  new ServiceUnavailableError('Token metadata needs LAND_PUBLIC_URL, which is not set', {
    code: 'public_url_missing',
  })

/** 404 not_found: no district with this id. */
export const districtNotFound = (id: string) =>
  new NotFoundError(`District "${id}" not found`, { data: { id } })

/** 404 not_found: the /atlas page was not bundled (`pnpm build` makes it). */
export const atlasPageNotBuilt = () =>
  new NotFoundError('The Atlas view is not built: run pnpm build in services/land')

// The chain indexer's own failures: bugs in the service, never bad data on chain (that is skipped and counted).

/**
 * A handler read a row its `keys` did not name, so the batch never loaded it: what it would see is not the
 * table's row. The batch fails (nothing is written) instead of applying the event to a row made up.
 */
export class RowNotLoaded extends Error {
  override readonly name = 'RowNotLoaded'

  constructor(
    readonly table: string,
    readonly key: string,
  ) {
    super(
      `land indexer: ${table} ${key} was read but not loaded: the event's handler must name it in its keys`,
    )
  }
}

/** The batch's rows do not hold this row of `table` (see RowNotLoaded). */
export const rowNotLoaded = (table: string, key: string) => new RowNotLoaded(table, key)
