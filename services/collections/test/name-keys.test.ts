import { randomBytes } from 'node:crypto'
import { requireRealPostgres } from '@genesis/common/testing'
import { describe, expect, it } from 'vitest'
import { nameKey } from '../src/domain/name-key.js'
import {
  call,
  createCollection,
  createIdentity,
  type Identity,
  randomUUID,
  refusal,
  useHarness,
  useIdentities,
} from './helpers.js'

// A standard collection's name is unique on its normal form: the same name copied with another space,
// an invisible character, a lookalike letter or another width is the same name.

const h = useHarness()
const [alice, bob] = useIdentities(2)

/**
 * A fresh name with letters every lookalike below can replace ("e", "o", "m", "a", spaces). The random part
 * spells each hex digit as its own letter (none of them a lookalike of another), so two names never share
 * a key by chance.
 */
const freshName = () =>
  `Summer Hats ${randomBytes(4)
    .toString('hex')
    .replace(/[0-9]/g, (d) => 'ghjkpqstvw'[Number(d)]!)} Drop`

/** The spellings of `name` a reader cannot tell from it. */
const lookalikes = (name: string): Record<string, string> => ({
  'no-break space': name.replace(' ', '\u00a0'),
  'zero-width space': name.replace('Hats', 'Ha\u200bts'),
  'zero-width joiner': name.replace('Summer', 'Sum\u200dmer'),
  'soft hyphen': name.replace('Summer', 'Sum\u00admer'),
  'Cyrillic е': name.replace('Summer', 'Summ\u0435r'),
  'Cyrillic а and о': name.replace('Hats', 'H\u0430ts').replace('Drop', 'Dr\u043ep'),
  'Greek Ο': name.replace('Drop', 'DrΟp'.replace('Ο', '\u039f')),
  'full-width letters': name.replace('Summer', 'Ｓｕｍｍｅｒ'),
  'mathematical letters': name.replace('Hats', '\u{1d407}\u{1d41a}\u{1d42d}\u{1d42c}'),
  'ideographic space': name.replace(' ', '\u3000'),
  'two spaces': name.replace(' ', '  '),
  'upper case': name.toUpperCase(),
  'rn for m': name.replace('mm', 'rnrn'),
})

async function put(who: Identity, id: string, name: string) {
  return call(h.app, who, 'PUT', `/v1/collections/${id}`, { id, name })
}

describe('a taken name, spelled another way, is taken', () => {
  it('refuses every lookalike spelling of a taken name with 409 name_in_use', async () => {
    const name = freshName()
    await createCollection(h.app, alice, { name })
    for (const [how, spelling] of Object.entries(lookalikes(name))) {
      expect(spelling, how).not.toBe(name)
      expect(nameKey(spelling), how).toBe(nameKey(name))
      const res = await put(bob, randomUUID(), spelling)
      expect([res.statusCode, res.json().code], `${how}: ${res.body}`).toEqual([409, 'name_in_use'])
    }
  })

  it('an accent written as a combining sequence is the precomposed letter', async () => {
    const name = `${freshName()} Été`
    await createCollection(h.app, alice, { name: name.normalize('NFC') })
    refusal(await put(bob, randomUUID(), name.normalize('NFD')), 409, 'name_in_use')
  })

  it('refuses a rename to a lookalike of another collection, and lets a collection respell its own name', async () => {
    const name = freshName()
    await createCollection(h.app, alice, { name })
    const mine = await createCollection(h.app, bob, { name: freshName() })
    refusal(await put(bob, mine, name.replace('Summer', 'Summ\u0435r')), 409, 'name_in_use')
    const own = randomUUID()
    expect((await put(alice, own, `${name} 2`)).statusCode).toBe(204)
    const respelled = await put(alice, own, `${name}\u00a02`)
    expect(respelled.statusCode, respelled.body).toBe(204)
  })

  it('leaves third-party collections out of the rule, as before', async () => {
    const name = freshName()
    await createCollection(h.app, alice, { name })
    const tp = `urn:decentraland:sepolia:collections-thirdparty:names${randomBytes(4).toString('hex')}`
    await createCollection(h.app, bob, { name: name.replace('Summer', 'Summ\u0435r'), urn: `${tp}:a` })
  })

  it('stores the name as sent (trimmed) and its key beside it', async () => {
    const name = `${freshName()}\u00a0Ｘ`
    const id = await createCollection(h.app, alice, { name })
    const [row] = await h.db.sql<{ name: string; name_key: string }[]>`
      select name, name_key from collections where id = ${id}`
    expect(row).toEqual({ name, name_key: nameKey(name) })
  })
})

describe('names the service cannot store as sent', () => {
  it('refuses a lone surrogate (400) instead of storing U+FFFD', async () => {
    for (const name of ['Hats \ud800', '\udc00 Hats', 'Ha\ud83dts']) {
      const id = randomUUID()
      const body = refusal(await put(alice, id, name), 400, 'bad_request')
      expect(body.data?.errors?.[0]?.path).toBe('body.name')
      expect(body.error).toContain('unpaired surrogates')
      refusal(await call(h.app, alice, 'GET', `/v1/collections/${id}`), 404, 'not_found')
    }
    // a whole pair (an emoji) is a character like any other
    const id = randomUUID()
    expect((await put(alice, id, `${freshName()} 🎩`)).statusCode).toBe(204)
  })

  it('refuses a name of invisible characters only (400)', async () => {
    const body = refusal(await put(alice, randomUUID(), '\u200b\u200d\u2060'), 400, 'bad_request')
    expect(body.data?.errors?.[0]).toEqual({ path: 'body.name', message: 'must have a visible character' })
  })
})

describe('concurrent creates of two spellings of one new name', () => {
  it('exactly one wins', async (context) => {
    requireRealPostgres(context, h.db)
    const name = freshName()
    const spellings = [name, ...Object.values(lookalikes(name))]
    const users = await Promise.all(spellings.map(() => createIdentity()))
    const answers = await Promise.all(spellings.map((spelling, i) => put(users[i]!, randomUUID(), spelling)))
    const statuses = answers.map((a) => a.statusCode)
    expect(
      statuses.filter((s) => s === 204),
      JSON.stringify(statuses),
    ).toHaveLength(1)
    for (const a of answers.filter((a) => a.statusCode !== 204)) refusal(a, 409, 'name_in_use')
    const [stored] = await h.db.sql<{ n: number }[]>`
      select count(*)::int as n from collections where name_key = ${nameKey(name)} and third_party_id is null`
    expect(stored!.n).toBe(1)
  })
})
