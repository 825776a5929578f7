/**
 * pnpm-workspace.yaml decides, by name, for every installed package with an install script, whether pnpm
 * runs it (onlyBuiltDependencies) or not (ignoredBuiltDependencies): a package in neither list makes
 * `pnpm install` end with its "Ignored build scripts" warning, and one added later must be decided too.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { repoRoot } from './support/paths.js'

const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'] as const

/** The installed packages (pnpm's virtual store) that have an install script, or a binding.gyp pnpm builds. */
function packagesWithInstallScripts(): Set<string> {
  const store = join(repoRoot, 'node_modules/.pnpm')
  const found = new Set<string>()
  for (const entry of readdirSync(store)) {
    const modules = join(store, entry, 'node_modules')
    if (!existsSync(modules)) continue
    // The entry's own package: `name@version…` (a scope's `/` written as `+`).
    const name = entry.replace(/^(@[^+]+)\+/, '$1/').replace(/@[^@]+$/, '')
    const manifest = join(modules, name, 'package.json')
    if (!existsSync(manifest)) continue
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as {
      scripts?: Record<string, string>
      gypfile?: boolean
    }
    const scripted = INSTALL_SCRIPTS.some((script) => pkg.scripts?.[script])
    if (scripted || pkg.gypfile || existsSync(join(modules, name, 'binding.gyp'))) found.add(name)
  }
  return found
}

describe('install scripts', () => {
  it('every package with one is either allowed or ignored by name in pnpm-workspace.yaml', () => {
    const workspace = parse(readFileSync(join(repoRoot, 'pnpm-workspace.yaml'), 'utf8')) as {
      onlyBuiltDependencies?: string[]
      ignoredBuiltDependencies?: string[]
    }
    const decided = new Set([
      ...(workspace.onlyBuiltDependencies ?? []),
      ...(workspace.ignoredBuiltDependencies ?? []),
    ])
    const undecided = [...packagesWithInstallScripts()].filter((name) => !decided.has(name)).sort()
    expect(undecided).toEqual([])
  })
})
