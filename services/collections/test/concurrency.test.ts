import { requireRealPostgres } from '@genesis/common/testing'
import { describe, expect, it } from 'vitest'
import { keptAndCounted } from './counts.js'
import {
  acceptTos,
  call,
  contentHash,
  createCollection,
  createIdentity,
  createItem,
  randomUUID,
  uniqueName,
  useHarness,
} from './helpers.js'

const h = useHarness()

const identities = (n: number) => Promise.all(Array.from({ length: n }, () => createIdentity()))

describe('name uniqueness under concurrent creates', () => {
  it('20 users creating collections with one new name at once: exactly one wins', async () => {
    const users = await identities(20)
    const name = uniqueName('Race')
    const results = await Promise.all(
      users.map((user, i) => {
        const id = randomUUID()
        // vary case and blanks: the rule ignores both
        const sent = i % 2 === 0 ? name : ` ${name.toUpperCase()} `
        return call(h.app, user, 'PUT', `/v1/collections/${id}`, { id, name: sent })
      }),
    )
    const statuses = results.map((r) => r.statusCode)
    expect(statuses.filter((s) => s === 204)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(19)
    for (const r of results.filter((r) => r.statusCode === 409)) expect(r.json().code).toBe('name_in_use')
    const [counted] = await h.db.sql<
      { count: number }[]
    >`select count(*)::int as count from collections where lower(name) = ${name.toLowerCase()}`
    expect(counted?.count).toBe(1)
  })

  it('10 users creating the same collection id at once: one owner, the others are refused (403)', async () => {
    const users = await identities(10)
    const id = randomUUID()
    const results = await Promise.all(
      users.map((user) =>
        call(h.app, user, 'PUT', `/v1/collections/${id}`, { id, name: uniqueName('Same id') }),
      ),
    )
    const statuses = results.map((r) => r.statusCode)
    expect(statuses.filter((s) => s === 204)).toHaveLength(1)
    expect(statuses.filter((s) => s === 403)).toHaveLength(9)
    const winner = users[statuses.indexOf(204)]!
    const [row] = await h.db.sql`select eth_address from collections where id = ${id}`
    expect(row?.eth_address).toBe(winner.address)
  })

  it('10 users using one unknown third party at once: it is registered once, for one of them', async () => {
    const users = await identities(10)
    const tpId = `urn:decentraland:sepolia:collections-thirdparty:tp${randomUUID().slice(0, 8)}`
    const results = await Promise.all(
      users.map((user, i) => {
        const id = randomUUID()
        return call(h.app, user, 'PUT', `/v1/collections/${id}`, {
          id,
          name: `TP ${i}`,
          urn: `${tpId}:c${i}`,
        })
      }),
    )
    const statuses = results.map((r) => r.statusCode)
    expect(statuses.filter((s) => s === 204)).toHaveLength(1)
    expect(statuses.filter((s) => s === 403)).toHaveLength(9)
    const [tp] = await h.db.sql`select managers from third_parties where id = ${tpId}`
    expect(tp?.managers).toEqual([users[statuses.indexOf(204)]!.address])
  })
})

describe('the second attempt of a create', () => {
  // The write is tried again only when a concurrent create took its id (`collections_pkey`); any other
  // refusal would meet the same refusal again, at the cost of a second transaction. A trigger the test
  // installs counts the inserts tried with a sequence, which a rollback does not undo. Guards
  // `uniqueViolation(error) === 'collections_pkey'` → `true` (every refused create run twice).
  it('is not made for a create refused for its name: one transaction, 409 name_in_use', async () => {
    const owner = await createIdentity()
    const name = uniqueName('Once')
    const first = randomUUID()
    expect(
      (await call(h.app, owner, 'PUT', `/v1/collections/${first}`, { id: first, name })).statusCode,
    ).toBe(204)
    await h.db.sql.unsafe(`
      create sequence test_create_attempts;
      create function test_count_create() returns trigger language plpgsql as $$
      begin perform nextval('test_create_attempts'); return new; end $$;
      create trigger test_count_create before insert on collections
        for each row execute function test_count_create();`)
    try {
      const id = randomUUID()
      const res = await call(h.app, owner, 'PUT', `/v1/collections/${id}`, { id, name })
      expect(res.statusCode, res.body).toBe(409)
      expect(res.json().code).toBe('name_in_use')
      const [attempts] = await h.db.sql<
        { n: string }[]
      >`select (case when is_called then last_value else 0 end)::int as n from test_create_attempts`
      expect(attempts!.n).toBe(1)
    } finally {
      await h.db.sql.unsafe(`
        drop trigger test_count_create on collections;
        drop function test_count_create();
        drop sequence test_create_attempts;`)
    }
  })
})

/**
 * Lock, rename, delete, publish and an item change race on one collection. Each round's answers and
 * final state must be those of the five operations applied one after the other in some order: the
 * row lock serialises them, so no published collection is changed and no locked one is touched.
 */
describe('lock, publish, PUT and DELETE racing on one collection', () => {
  type Op = 'lock' | 'rename' | 'delete' | 'publish' | 'item'
  const OPS: Op[] = ['lock', 'rename', 'delete', 'publish', 'item']

  interface Model {
    exists: boolean
    published: boolean
    locked: boolean
    name: string
    items: Set<string>
    tos: boolean
    itemRenamed: boolean
  }

  function apply(m: Model, op: Op, round: Round): number {
    if (op === 'rename' && !m.exists) {
      Object.assign(m, {
        exists: true,
        published: false,
        locked: false,
        name: round.newName,
        items: new Set(),
        tos: false,
      })
      return 204
    }
    if (!m.exists) return 404
    if (m.published) return 409
    switch (op) {
      case 'lock':
        m.locked = true
        return 200
      case 'publish': {
        if (!m.tos) return 409
        const sameItems = m.items.size === round.itemIds.length && round.itemIds.every((i) => m.items.has(i))
        if (!sameItems) return 400
        Object.assign(m, { published: true, locked: false })
        return 204
      }
      default:
        if (m.locked) return 423
        if (op === 'rename') m.name = round.newName
        if (op === 'delete')
          Object.assign(m, { exists: false, items: new Set(), tos: false, itemRenamed: false })
        if (op === 'item') {
          m.items.add(round.itemIds[0]!)
          m.itemRenamed = true
        }
        return 204
    }
  }

  function* permutations<T>(list: T[]): Generator<T[]> {
    if (list.length <= 1) yield list
    else
      for (let i = 0; i < list.length; i++) {
        for (const rest of permutations([...list.slice(0, i), ...list.slice(i + 1)]))
          yield [list[i]!, ...rest]
      }
  }

  interface Round {
    id: string
    name: string
    newName: string
    itemIds: string[]
  }

  interface Observed {
    statuses: Record<Op, number>
    exists: boolean
    published: boolean
    locked: boolean
    name: string | null
    items: string[]
    itemRenamed: boolean
    blockchainIds: (string | null)[]
  }

  function explains(round: Round, seen: Observed): Op[] | null {
    for (const order of permutations(OPS)) {
      const m: Model = {
        exists: true,
        published: false,
        locked: false,
        name: round.name,
        items: new Set(round.itemIds),
        tos: true,
        itemRenamed: false,
      }
      const statuses = Object.fromEntries(order.map((op) => [op, apply(m, op, round)])) as Record<Op, number>
      const sameAnswers = OPS.every((op) => statuses[op] === seen.statuses[op])
      const sameState =
        m.exists === seen.exists &&
        (!m.exists ||
          (m.published === seen.published &&
            m.locked === seen.locked &&
            m.name === seen.name &&
            m.itemRenamed === seen.itemRenamed &&
            [...m.items].sort().join() === [...seen.items].sort().join()))
      if (sameAnswers && sameState) return order
    }
    return null
  }

  it('always ends in a state some serial order of the requests explains', async (ctx) => {
    // On the PGlite stand-in every request runs one after another: nothing would race.
    requireRealPostgres(ctx, h.db)
    const owner = await createIdentity()
    const rounds: Round[] = []
    for (let i = 0; i < 12; i++) {
      const name = uniqueName('Racing')
      const id = await createCollection(h.app, owner, { name })
      const itemIds = [await createItem(h.app, owner, id), await createItem(h.app, owner, id)]
      await acceptTos(h.app, owner, id)
      rounds.push({ id, name, newName: uniqueName('Renamed'), itemIds })
    }

    const observed = await Promise.all(
      rounds.map(async (round): Promise<Observed> => {
        const [lock, rename, remove, publish, item] = await Promise.all([
          call(h.app, owner, 'POST', `/v1/collections/${round.id}/lock`),
          call(h.app, owner, 'PUT', `/v1/collections/${round.id}`, { id: round.id, name: round.newName }),
          call(h.app, owner, 'DELETE', `/v1/collections/${round.id}`),
          call(h.app, owner, 'POST', `/v1/collections/${round.id}/publish`, { itemIds: round.itemIds }),
          call(h.app, owner, 'PUT', `/v1/items/${round.itemIds[0]}`, {
            id: round.itemIds[0],
            collection_id: round.id,
            name: 'Changed',
            type: 'emote',
            content_hash: contentHash(),
          }),
        ])
        for (const r of [lock, rename, remove, publish, item]) {
          expect(r.statusCode).toBeLessThan(500)
          if (r.statusCode >= 400) expect(r.json().ok).toBe(false)
        }
        const [row] = await h.db.sql<{ name: string; is_published: boolean; locked: boolean }[]>`
          select name, is_published, lock is not null and lock > now() - interval '1 day' as locked
          from collections where id = ${round.id}`
        const items = await h.db.sql<{ id: string; name: string; blockchain_item_id: string | null }[]>`
          select id, name, blockchain_item_id from items where collection_id = ${round.id} order by created_at, seq`
        return {
          statuses: {
            lock: lock.statusCode,
            rename: rename.statusCode,
            delete: remove.statusCode,
            publish: publish.statusCode,
            item: item.statusCode,
          },
          exists: row !== undefined,
          published: row?.is_published ?? false,
          locked: row?.locked ?? false,
          name: row?.name ?? null,
          items: items.map((i) => i.id),
          itemRenamed: items.some((i) => i.id === round.itemIds[0] && i.name === 'Changed'),
          blockchainIds: items.map((i) => i.blockchain_item_id),
        }
      }),
    )

    const orders = new Set<string>()
    rounds.forEach((round, i) => {
      const seen = observed[i]!
      const order = explains(round, seen)
      expect(order, `round ${i}: ${JSON.stringify(seen)}`).not.toBeNull()
      orders.add(order!.join('>'))
      // a published collection has every item numbered, an unpublished one none
      expect(seen.blockchainIds).toEqual(
        seen.published ? seen.items.map((_, n) => String(n)) : seen.items.map(() => null),
      )
    })
    // the race really interleaved differently across rounds
    expect(orders.size).toBeGreaterThan(1)
  })

  it('leaves the kept collection counts equal to counting the table after every race', async () => {
    const { kept, counted } = await keptAndCounted(h.db.sql)
    expect(kept).toEqual(counted)
    expect(counted.reduce((sum, row) => sum + row.n, 0)).toBeGreaterThan(0)
  })
})
