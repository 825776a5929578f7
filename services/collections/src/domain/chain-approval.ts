import { HttpError, type Sql } from '@genesis/common'
import type { ChainReader } from '../chain/chain-reader.js'
import type { CollectionFields } from '../db/collections.js'
import { recordChainApproval } from '../db/reviews.js'

/** What reading approvals from the chain needs: the reader (null without RPC_URL), the database, the clock. */
export interface ChainApproval {
  sql: Sql
  chain: ChainReader | null
  now: () => Date
}

/** Only a published standard collection has a contract whose approval the chain can tell. */
const readableOnChain = (row: CollectionFields) => row.is_published && row.contract_address !== null

/**
 * With RPC_URL, the collection contract's `isApproved()` is the source of truth: asks it for each published
 * standard collection among `rows` and, where it differs from what is stored, records it (so that lists and
 * filters follow) and updates the row in place. A node that does not answer leaves the stored value: a read
 * does not fail because the chain is away (decisions do, see review.ts).
 */
export async function refreshApproval(ctx: ChainApproval, rows: CollectionFields[]): Promise<void> {
  const chain = ctx.chain
  if (!chain) return
  const readable = rows.filter(readableOnChain)
  if (readable.length === 0) return
  await Promise.all(
    readable.map(async (row) => {
      let approved: boolean
      try {
        approved = await chain.isApproved(row.contract_address!)
      } catch (error) {
        if (error instanceof HttpError && error.code === 'rpc_unavailable') return
        throw error
      }
      if (approved === row.is_approved) return
      const reviewedAt = await ctx.sql.begin((tx) => recordChainApproval(tx, row.id, approved, ctx.now()))
      row.is_approved = approved
      if (reviewedAt !== null) row.reviewed_at = reviewedAt
    }),
  )
}

/** What `is_approved` becomes after a committee decision: the decision, or the contract's word with RPC_URL. */
export async function approvalAfterDecision(
  ctx: ChainApproval,
  row: CollectionFields,
  approved: boolean,
): Promise<boolean> {
  if (!ctx.chain || !readableOnChain(row)) return approved
  return ctx.chain.isApproved(row.contract_address!)
}
