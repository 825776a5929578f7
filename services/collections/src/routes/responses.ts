import { ErrorEnvelope } from '@genesis/common'
import { Type } from '@sinclair/typebox'

/** Error answers documented on every route (the kit's error handler renders them). */
export const refusals = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, ErrorEnvelope])) as Record<
    number,
    typeof ErrorEnvelope
  >

export const NoContent = Type.Null({ description: 'No content' })
