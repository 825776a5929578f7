import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { postgresAnswers, testServerUrl } from '@genesis/common/testing'

const ci = process.env.CI === 'true' || process.env.CI === '1'

function psqlInstalled(): boolean {
  try {
    execFileSync('psql', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

const nginxInstalled = () => ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].some(existsSync)

/**
 * Whether the real PostgreSQL (and psql, and nginx when asked) are here. On a bare machine these tests are
 * skipped with a message saying why; under CI=true a missing part fails the run instead.
 */
export async function realInfrastructure(options: { nginx?: boolean } = {}): Promise<boolean> {
  const missing = [
    ...((await postgresAnswers()) ? [] : [`PostgreSQL at ${testServerUrl()}`]),
    ...(psqlInstalled() ? [] : ['psql']),
    ...(options.nginx && !nginxInstalled() ? ['nginx (infra/scripts/ensure-nginx.sh installs it)'] : []),
  ]
  if (missing.length === 0) return true
  if (ci) throw new Error(`CI=true and these are missing: ${missing.join(', ')}`)
  console.warn(`Skipped: these tests need ${missing.join(', ')}`)
  return false
}
