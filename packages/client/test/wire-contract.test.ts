// The error codes of the wire contract are the ones the services build: each service's errors.ts (where
// all its errors are made) against its list in @genesis/wire, both ways, and the kit's generic codes.
import { readdirSync, readFileSync } from 'node:fs'
import { GENERIC_ERROR_CODES } from '@genesis/wire'
import { CLAIMS_ERROR_CODES } from '@genesis/wire/claims'
import { COLLECTIONS_ERROR_CODES } from '@genesis/wire/collections'
import { LAND_ERROR_CODES } from '@genesis/wire/land'
import { describe, expect, it } from 'vitest'

const source = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8')
const codesBuiltIn = (path: string) =>
  [...new Set([...source(path).matchAll(/\bcode: '([a-z_]+)'/g)].map((m) => m[1]!))].sort()

describe('the error codes of the wire contract', () => {
  it.each([
    ['claims', CLAIMS_ERROR_CODES],
    ['collections', COLLECTIONS_ERROR_CODES],
    ['land', LAND_ERROR_CODES],
  ] as const)(
    '%s: its errors.ts builds exactly its listed codes, besides the generic ones',
    (service, listed) => {
      const built = codesBuiltIn(`services/${service}/src/errors.ts`).filter(
        (code) => !(GENERIC_ERROR_CODES as readonly string[]).includes(code),
      )
      expect(built).toEqual([...listed].sort())
    },
  )

  it('the kit answers only generic codes', async () => {
    const { codeForStatus } = await import('@genesis/common')
    for (const code of Object.values(codeForStatus)) expect(GENERIC_ERROR_CODES).toContain(code)
    const kit = readdirSync(new URL('../../common/src', import.meta.url), {
      recursive: true,
      encoding: 'utf8',
    })
    const files = kit.filter((file) => file.endsWith('.ts') && !file.startsWith('testing'))
    expect(files.length).toBeGreaterThan(20)
    for (const file of files)
      for (const code of codesBuiltIn(`packages/common/src/${file}`))
        expect(GENERIC_ERROR_CODES, file).toContain(code)
  })
})
