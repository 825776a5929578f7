import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'

/** The README's figure for the minified, gzipped bundle, plus a margin. */
const BUNDLE_GZIP_KIB_AT_MOST = 24

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
    // what the bundle is made of: the client, ethers, the wire contract's signing and the cheque's EIP-712
    // type (its schemas are imported for their types only); @dcl/crypto for its types alone, so none of the
    // CommonJS it loads (eth-connect, @dcl/schemas, ajv)
    expect(inputs.some((path) => path.endsWith('src/claims.ts'))).toBe(true)
    expect(inputs.some((path) => path.includes('ethers'))).toBe(true)
    expect(inputs.some((path) => path.includes('wire/dist/signing.js'))).toBe(true)
    expect(inputs.filter((path) => /@dcl|eth-connect|ajv/.test(path))).toEqual([])
    expect(inputs.some((path) => path.includes('wire/dist/collections/cheque.js'))).toBe(true)
    expect(inputs.filter((path) => /wire\/dist\/(claims|land)\//.test(path))).toEqual([])
    expect(
      inputs.filter((path) => /fastify|postgres|pglite|services\/|packages\/common\//.test(path)),
    ).toEqual([])
    const code = result.outputFiles[0]!.text
    expect(code).toContain('x-identity-auth-chain-')
    expect(code).toContain('GenesisApiError')
  })

  it('weighs what the README says, minified and gzipped', async () => {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    })
    const bytes = result.outputFiles[0]!.contents
    const kib = (n: number) => Math.round(n / 1024)
    console.log(
      `@genesis/client browser bundle: ${kib(bytes.length)} KiB minified, ${kib(gzipSync(bytes).length)} KiB gzipped`,
    )
    // The README's figure, with room for a patch release of ethers or @dcl/crypto; past it, measure again.
    expect(gzipSync(bytes).length).toBeLessThan(BUNDLE_GZIP_KIB_AT_MOST * 1024)
  })
})
