// @ts-check
// `pnpm mutate` at the root runs this (mutation testing; see TESTING.md at the root).
import { strykerConfig } from '../../stryker.base.mjs'

// The property test on anvil reaches nearly every mutant of the reconciler and the transitions: under
// Stryker it runs with a fixed seed (a mutant's verdict must not depend on the draw; the test runners are
// forked with this environment) and fewer steps (it runs once per mutant).
process.env.CLAIMS_PROPERTY_SEED ??= '20261125'
process.env.CLAIMS_PROPERTY_STEPS ??= '40'

export default strykerConfig(['src/domain/**/*.ts', 'src/jobs/**/*.ts', 'src/routes/caller.ts'])
