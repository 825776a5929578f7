import { type ChainIdentity, describeChain, judgeChain, type OutageLogger, type Sql } from '@genesis/common'
import type { Config } from '../config.js'
import { rememberChain, rememberedChain } from '../db/chain-identity.js'

/**
 * At start, with RPC_URL: the chain its providers serve against the one remembered. The first one is
 * recorded; another one (its genesis differs: a development node started afresh) is, in development, said
 * in one line and recorded: nothing the service keeps needs emptying, since every chain answer it keeps
 * (an approval, a third party's managers) is asked again before it is relied on; in production it is a
 * refusal, returned for the process to exit on. A node that does not answer is said and left to the
 * requests (503 `rpc_unavailable` until it does).
 */
export async function checkChainAtStart(
  sql: Sql,
  config: Pick<Config, 'NODE_ENV'>,
  served: () => Promise<ChainIdentity>,
  logger: OutageLogger,
): Promise<{ refused: string } | null> {
  let chain: ChainIdentity
  try {
    chain = await served()
  } catch (error) {
    logger.warn(
      { reason: error instanceof Error ? error.message : String(error) },
      'RPC_URL does not answer: its chain is checked at the next start',
    )
    return null
  }
  const remembered = await rememberedChain(sql)
  const verdict = judgeChain(remembered, chain, { production: config.NODE_ENV === 'production' })
  if (verdict === 'same') return null
  if (verdict === 'refused') {
    return {
      refused:
        `collections: RPC_URL serves another chain (${describeChain(chain)}) than the one this database ` +
        `followed (${describeChain(remembered!)}); point it at that chain, or give this chain its own database`,
    }
  }
  if (verdict === 'replaced') {
    logger.warn(
      { previous: describeChain(remembered!), now: describeChain(chain) },
      `RPC_URL is another chain than the one this database followed (${describeChain(remembered!)}); a ` +
        'development chain, so it is followed from now on: approvals and managers are read from it as they are asked for',
    )
  }
  await rememberChain(sql, chain)
  return null
}
