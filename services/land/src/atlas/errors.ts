import { BadRequestError, NotFoundError, ServiceUnavailableError } from '@genesis/common'

// The atlas surface's refusals (README "Error codes"), beside the service's catalogue in ../errors.ts.

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
