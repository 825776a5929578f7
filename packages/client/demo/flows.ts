/**
 * Every flow of the three services, walked through with @genesis/client and checked step by step: what
 * `pnpm demo` runs against `pnpm start`, and what test/demo.test.ts runs against services in-process.
 */
import { claimsFlow } from './claims.js'
import { collectionsFlow } from './collections.js'
import { type DemoOptions, startDemo } from './demo.js'
import { landFlow } from './land.js'

export { DemoCheckFailed, type DemoOptions } from './demo.js'

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
