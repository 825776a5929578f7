import { type Static, Type } from '@sinclair/typebox'
import { Envelope } from '../index.js'

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()])

/** Where land's data comes from and, when it follows a chain, how far it is. */
export const ChainStatus = Type.Object({
  source: Type.Union([Type.Literal('chain'), Type.Literal('import')], {
    description:
      '`chain` when the service follows the LAND contracts (LAND_RPC_URL), else `import` (seed, import)',
  }),
  block: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'The last indexed block' }),
  block_hash: Nullable(Type.String({ pattern: '^0x[0-9a-f]{64}$' })),
  block_time: Nullable(Type.String({ format: 'date-time' })),
  lag_seconds: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
    description: 'Seconds since the data was last known to be current with the chain',
  }),
  served_block_hash: Nullable(
    Type.String({
      pattern: '^0x[0-9a-f]{64}$',
      description:
        'The indexed block whose data this replica answers with: the block of its last change read, a moment ' +
        'behind `block_hash` while a change travels, and unchanged over blocks that change no land',
    }),
  ),
})
export type ChainStatus = Static<typeof ChainStatus>
export const ChainStatusEnvelope = Envelope(ChainStatus)
