import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'

const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url))

describe('browser bundle', () => {
  it('bundles for the browser with no Node built-in on the runtime path', async () => {
    // platform=browser: a `node:` import, or a bare built-in such as `crypto`, is a build error here
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
    })
    expect(result.errors).toEqual([])
    const inputs = Object.keys(result.metafile.inputs)
    expect(inputs.filter((path) => path.startsWith('node:'))).toEqual([])
    // what the bundle is made of: the client, @dcl/crypto and ethers, the cheque's EIP-712 type from collections' schemas
    expect(inputs.some((path) => path.endsWith('src/claims.ts'))).toBe(true)
    expect(inputs.some((path) => path.includes('@dcl/crypto'))).toBe(true)
    expect(inputs.some((path) => path.includes('collections/dist/schemas/cheque.js'))).toBe(true)
    // no server code rode along (the service schemas are imported for their types only)
    expect(
      inputs.filter((path) => /fastify|postgres|pglite|services\/\w+\/dist\/(app|server)/.test(path)),
    ).toEqual([])
    const code = result.outputFiles[0]!.text
    expect(code).toContain('x-identity-auth-chain-')
    expect(code).toContain('GenesisApiError')
  })
})
