import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot, type ServiceName, serviceDir } from './paths.js'

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) return sourcesUnder(path)
    return path.endsWith('.ts') ? [readFileSync(path, 'utf8')] : []
  })
}

const cache = new Map<ServiceName, string>()

/** The service's own sources and @genesis/common's, where every environment variable it reads is named. */
function sourcesOf(service: ServiceName): string {
  let text = cache.get(service)
  if (text === undefined) {
    text = [
      ...sourcesUnder(join(serviceDir(service), 'src')),
      ...sourcesUnder(join(repoRoot, 'packages/common/src')),
    ].join('\n')
    cache.set(service, text)
  }
  return text
}

/** Prefixes under which a service reads a family of variables (claims: RPC_URL_<chain_id>). */
const FAMILIES: Partial<Record<ServiceName, string[]>> = { claims: ['RPC_URL_'] }

/**
 * Whether the service reads this environment variable: its name appears in the sources as a string or a
 * schema key. Catches a deployment setting a misspelt variable that the service would silently ignore.
 */
export function serviceReads(service: ServiceName, variable: string): boolean {
  if (FAMILIES[service]?.some((prefix) => variable.startsWith(prefix))) return true
  return new RegExp(`\\b${variable}\\b`).test(sourcesOf(service))
}

/** Variables the runtime reads rather than the service (Node itself). */
export const RUNTIME_VARIABLES = new Set(['NODE_ENV', 'NODE_OPTIONS'])
