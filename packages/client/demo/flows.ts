/**
 * Every flow of the three services, walked through with @genesis/client and checked step by step: what
 * `pnpm demo` runs against `pnpm start`, and what test/demo.test.ts runs against services in-process.
 */
import { claimsFlow } from './claims.js'
import { type ChainDemoOptions, claimsOnChainFlow } from './claims-on-chain.js'
import { collectionsFlow } from './collections.js'
import { type DemoBaseOptions, type DemoOptions, startDemo } from './demo.js'
import { landFlow } from './land.js'

export type { ChainDemoOptions } from './claims-on-chain.js'
export { type DemoBaseOptions, DemoCheckFailed, type DemoOptions } from './demo.js'

/** Runs every flow; throws (DemoCheckFailed or GenesisApiError) at the first step that did not answer as documented. */
export async function runDemo(options: DemoOptions): Promise<{ steps: string[] }> {
  const demo = startDemo(options)
  try {
    await claimsFlow(demo)
    await collectionsFlow(demo)
    await landFlow(demo)
  } catch (error) {
    throw Object.assign(error as Error, { step: demo.current() })
  }
  return { steps: demo.steps }
}

/** `pnpm demo --chain`: a claim settled on a real chain; throws as runDemo does. */
export async function runChainDemo(
  options: DemoBaseOptions,
  chain: ChainDemoOptions,
): Promise<{ steps: string[] }> {
  const demo = startDemo(options)
  try {
    await claimsOnChainFlow(demo, chain)
  } catch (error) {
    throw Object.assign(error as Error, { step: demo.current() })
  }
  return { steps: demo.steps }
}
