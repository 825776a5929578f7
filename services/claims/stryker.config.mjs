// @ts-check
// `pnpm mutate` at the root runs this (mutation testing; see TESTING.md at the root).
import { strykerConfig } from '../../stryker.base.mjs'

export default strykerConfig(['src/domain/**/*.ts', 'src/jobs/**/*.ts', 'src/routes/caller.ts'])
