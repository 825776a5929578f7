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

/** 500 too_many_parcels: the image would draw more parcels than allowed (its wording is fixed: README "Error codes"). */
export const tooManyParcels = (parcels: number, max: number) =>
  new InternalServerError(
    `Too many parcels. You are trying to render ${parcels} parcels and the maximum allowed is ${max}.`,
    { code: 'too_many_parcels', data: { parcels, max } },
  )

/** 503 service_unavailable: the grid index is not built yet (readiness is 503 too). */
export const indexNotReady = () =>
  new ServiceUnavailableError('The land index is still being built, retry shortly')
