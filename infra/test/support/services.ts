import { randomBytes } from 'node:crypto'
import { imageRuntime } from '@genesis/common/testing'
import type { ServiceName } from './paths.js'
import { type RunningProcess, startProcess, waitForOutput, waitForStatus } from './processes.js'

const START_TIMEOUT_MS = 90_000

/** How the image runs a service: its command's Node flags and its allocator settings. */
const image = imageRuntime()

/** What each service needs beyond the base variables (the container gets these at run time). */
export const serviceEnv: Record<ServiceName, Record<string, string>> = {
  claims: {
    CLAIMS_ADMIN_TOKEN: `admin-${randomBytes(12).toString('hex')}`,
    CLAIMS_SIGNER_PRIVATE_KEY: `0x${randomBytes(32).toString('hex')}`,
  },
  collections: {},
  land: { LAND_AUTO_SEED: 'never' },
}

/** The environment of a service process: nothing inherited from the workspace but PATH. */
export function serviceProcessEnv(
  service: ServiceName,
  options: { databaseUrl: string; dataDir: string; port?: number },
): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(options.port ?? 0),
    DATA_DIR: options.dataDir,
    LOG_LEVEL: 'info',
    DATABASE_URL: options.databaseUrl,
    ...image.env,
    ...serviceEnv[service],
  }
}

export interface RunningService {
  service: ServiceName
  port: number
  process: RunningProcess
}

/**
 * Starts `node <the image's flags> dist/server.js` (the image's command) in `cwd` on an ephemeral port (PORT=0; the port is read from the kit's
 * one start-up line, `"address":"http://…","msg":"listening"`, so no port is ever guessed) and waits until /health/ready answers 200.
 */
export async function startService(
  service: ServiceName,
  options: { cwd: string; databaseUrl: string; dataDir: string },
): Promise<RunningService> {
  const proc = startProcess('node', [...image.nodeFlags, 'dist/server.js'], {
    cwd: options.cwd,
    env: serviceProcessEnv(service, options),
  })
  try {
    const listening = await waitForOutput(
      proc,
      /"address":"http:\/\/127\.0\.0\.1:(\d+)","msg":"listening"/,
      START_TIMEOUT_MS,
    )
    const port = Number(listening[1])
    await waitForStatus(port, '/health/ready', START_TIMEOUT_MS)
    return { service, port, process: proc }
  } catch (error) {
    await proc.stop()
    throw error
  }
}
