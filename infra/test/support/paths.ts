import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const infraDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const repoRoot = join(infraDir, '..')

export const SERVICES = ['claims', 'collections', 'land'] as const
export type ServiceName = (typeof SERVICES)[number]

export const serviceDir = (service: ServiceName) => join(repoRoot, 'services', service)
