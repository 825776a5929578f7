import { errorResponses, ok, type RoutePlugin } from '@genesis/common'
import { type ChainStatus, ChainStatusEnvelope } from '@genesis/wire/land'
import type { Context } from '../context.js'
import { lagOf, readCursor } from '../db/chain-state.js'

/** GET /status: the source of the data and, when following a chain, the last indexed block and the lag. */
export const statusRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  app.get(
    '/status',
    {
      // Every open explorer asks every 2 s: like the health probes, its answers are not worth a log line
      // each (a failure still is).
      logLevel: 'warn',
      schema: {
        summary: 'Where the data comes from and how current it is',
        tags: ['status'],
        response: { 200: ChainStatusEnvelope, ...errorResponses(503) },
      },
    },
    async (_request, reply) => {
      const empty: ChainStatus = {
        source: 'import',
        block: null,
        block_hash: null,
        block_time: null,
        lag_seconds: null,
        served_block_hash: null,
      }
      if (!ctx.config.LAND_RPC_URL) return reply.header('cache-control', 'no-cache').send(ok(empty))
      // every replica reads the writer's cursor: `block` does not depend on which one is asked; what this
      // replica's own index holds is `served_block_hash` (the explorer keys its redraws on it)
      const cursor = await readCursor(ctx.sql)
      const served = ctx.grid.ready ? ctx.grid.current().data.blockHash : null
      const status: ChainStatus = cursor
        ? {
            source: 'chain',
            block: Number(cursor.blockNumber),
            block_hash: cursor.blockHash,
            block_time: cursor.blockTime.toISOString(),
            lag_seconds: lagOf(cursor),
            served_block_hash: served,
          }
        : { ...empty, source: 'chain', served_block_hash: served }
      return reply.header('cache-control', 'no-cache').send(ok(status))
    },
  )
}
