import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, useService } from './helpers.js'

// The admin Authorization header as the BEARER expression in routes/caller.ts reads it (a module-level
// constant: its mutants are static ones).
const t = useService()

const USER = '0x00000000000000000000000000000000000000aa'

const asAdmin = (authorization: string) =>
  t.app.inject({ method: 'GET', url: `/api/rewards?user=${USER}`, headers: { authorization } })

describe('the admin Authorization header', () => {
  // guards: `\s+` → `\s` (two spaces or a tab and a space refused) and `\s*$` → `\S*$` (a trailing space
  // refused); the scheme is case-insensitive (the `i` flag)
  it('accepts the token after any run of whitespace, in any case of the scheme, with trailing space', async () => {
    for (const authorization of [
      `Bearer ${ADMIN_TOKEN}`,
      `Bearer  ${ADMIN_TOKEN}`,
      `Bearer\t ${ADMIN_TOKEN}`,
      `bearer ${ADMIN_TOKEN}`,
      `BEARER ${ADMIN_TOKEN}`,
      `Bearer ${ADMIN_TOKEN} `,
      `Bearer ${ADMIN_TOKEN}\t `,
    ]) {
      const response = await asAdmin(authorization)
      expect(response.statusCode, JSON.stringify(authorization)).toBe(200)
      expect(response.json()).toMatchObject({ ok: true, data: [] })
    }
  })

  // guards: the `^` anchor removed (a scheme ending in "Bearer" let the token through) and the `$` anchor
  // removed (a second word after the token was ignored, the token accepted)
  it('refuses as malformed, even with the right token, any other scheme or anything after the token', async () => {
    for (const authorization of [
      `XBearer ${ADMIN_TOKEN}`,
      `Basic Bearer ${ADMIN_TOKEN}`,
      `Bearer ${ADMIN_TOKEN} extra`,
      `Bearer ${ADMIN_TOKEN} ${ADMIN_TOKEN}`,
      `Bearer${ADMIN_TOKEN}`,
      'Bearer ',
    ]) {
      const response = await asAdmin(authorization)
      expect(response.statusCode, JSON.stringify(authorization)).toBe(401)
      expect(response.json()).toMatchObject({
        ok: false,
        code: 'unauthorized',
        error: 'Authorization must be "Bearer <token>"',
        data: { reason: 'malformed' },
      })
    }
  })
})

describe('the admin token', () => {
  // guards routes/caller.ts tokenMatcher: the bytes compared over the token's length (a prefix refused) and
  // the lengths compared after them (the token with anything after it refused: the bytes past its length
  // are dropped before the comparison)
  it('is refused as invalid in any other spelling: a prefix, an extension, another case, padding', async () => {
    const other = (c: string) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())
    for (const token of [
      ADMIN_TOKEN.slice(0, -1),
      `${ADMIN_TOKEN}x`,
      `${ADMIN_TOKEN}${ADMIN_TOKEN}`,
      `${ADMIN_TOKEN.slice(0, -1)}${other(ADMIN_TOKEN.at(-1)!)}`,
      ADMIN_TOKEN.toUpperCase(),
      `0${ADMIN_TOKEN}`,
      `${ADMIN_TOKEN.slice(0, -1)}é`,
      'x',
    ]) {
      const response = await asAdmin(`Bearer ${token}`)
      expect(response.statusCode, token).toBe(401)
      expect(response.json()).toMatchObject({
        ok: false,
        code: 'unauthorized',
        data: { reason: 'invalid_token' },
      })
    }
  })
})
