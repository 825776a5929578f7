import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The repository's one image, which every service is deployed as (this file sits in packages/common/{src,dist}/testing). */
export const REPOSITORY_DOCKERFILE = fileURLToPath(
  new URL('../../../../infra/docker/Dockerfile', import.meta.url),
)

/** How the image runs a service: what a local start copies to behave like the container. */
export interface ImageRuntime {
  /** The Node flags of the image's command (`CMD ["node", …flags, "dist/server.js"]`). */
  nodeFlags: string[]
  /** The C library allocator's settings the image sets (`ENV MALLOC_…`): they shape the resident memory. */
  env: Record<string, string>
}

/**
 * Reads an image's runtime from its Dockerfile's last stage: the Node flags of its command and its
 * `MALLOC_` settings. The rest of its environment (HOST, PORT, DATA_DIR, NODE_ENV) is the deployment's, which
 * a local start sets for itself.
 */
export function imageRuntime(dockerfilePath = REPOSITORY_DOCKERFILE): ImageRuntime {
  // continuation lines joined, comments dropped, only the last stage's instructions
  const instructions = readFileSync(dockerfilePath, 'utf8')
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
  const lastStage = instructions.slice(instructions.findLastIndex((line) => /^FROM\s/i.test(line)))
  const env: Record<string, string> = {}
  let command: unknown
  for (const line of lastStage) {
    const [, keyword = '', args = ''] = /^(\w+)\s+(.*)$/.exec(line) ?? []
    if (keyword.toUpperCase() === 'ENV') {
      for (const [, name = '', value = ''] of args.matchAll(/(\w+)=("[^"]*"|\S*)/g))
        if (name.startsWith('MALLOC_')) env[name] = value.replace(/^"|"$/g, '')
    } else if (keyword.toUpperCase() === 'CMD') command = JSON.parse(args)
  }
  if (!Array.isArray(command) || command[0] !== 'node' || command.length < 2)
    throw new Error(`${dockerfilePath}: its CMD is not ["node", …flags, entry]`)
  return { nodeFlags: command.slice(1, -1).map(String), env }
}
