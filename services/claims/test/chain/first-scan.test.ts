import { chainTestsSkipReason } from '@genesis/contracts'
import { describe, expect, it } from 'vitest'
import { useChainFixture } from './fixture.js'

const skip = chainTestsSkipReason()
const CONFIRMATIONS = 2

// A fresh database and node: the reconciler's first scan of a chain, with no cursor saved yet.
describe.skipIf(skip)("the reconciler's first scan of a young chain (anvil)", () => {
  const f = useChainFixture({ confirmations: CONFIRMATIONS })

  // Mutation guarded: `chain.redemptions(contracts, cursor + 1, to)` → `cursor - 1` (jobs/reconciler.ts):
  // from the first cursor, -1, it asks for block -2, which ethers reads as two below the head, so a
  // redemption made before the first tick, deeper than that, is never found.
  it('finds a redemption made before its first tick, from the first blocks on', async () => {
    const sam = await f.fundedUser()
    const { claim } = await f.claimFor(sam)
    expect((await f.send(sam, claim)).status).toBe(1)
    await f.mine(CONFIRMATIONS + 3)
    expect(await f.reconciler().tick()).toMatchObject({ successful: 1, errors: 0 })
    expect((await f.read(sam, claim)).status).toBe('successful')
  })
})
