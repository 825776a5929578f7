// @ts-check
// `pnpm mutate` at the root runs this (mutation testing; see TESTING.md at the root).
import { strykerConfig } from '../../stryker.base.mjs'

const config = strykerConfig(['src/auth/**/*.ts'])
export default { ...config, vitest: { ...config.vitest, configFile: 'vitest.mutate.config.mjs' } }
