import { cp, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrate, uniqueViolation } from '@genesis/common'
import { createTestDatabase, type TestDatabase } from '@genesis/common/testing'
import { Signature, Wallet } from 'ethers'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { registryDomainOf } from '../src/context.js'
import { CHEQUE_DIGEST_INDEX, completeKeys, NAME_KEY_INDEX } from '../src/db/keys.js'
import { CONSUME_SLOTS_TYPES, chequeDigest } from '../src/domain/cheque.js'
import { nameKey } from '../src/domain/name-key.js'
import { keyFunctions } from '../src/keys-ready.js'
import { migrationsDir } from '../src/paths.js'
import { seedCollections } from './seed.js'

// A database made before the keys existed: rows without keys, some of them lookalike names or re-spelled
// cheques accepted under the old rules. The service fills the keys and builds the unique indexes.

const domain = registryDomainOf(loadConfig({}))
const tp = 'urn:decentraland:sepolia:collections-thirdparty:old'
const owner = `0x${'1'.repeat(40)}`
let db: TestDatabase
let before: string
const warnings: { details: object; message: string }[] = []
const log = {
  info: () => {},
  warn: (details: object, message: string) => warnings.push({ details, message }),
}

beforeAll(async () => {
  db = await createTestDatabase()
  before = await mkdtemp(join(tmpdir(), 'collections-before-keys-'))
  for (const dir of await readdir(migrationsDir)) {
    if (dir < '00006') await cp(join(migrationsDir, dir), join(before, dir), { recursive: true })
  }
  await migrate(db.sql, before)
})
afterAll(async () => {
  await rm(before, { recursive: true, force: true })
  await db.drop()
})

const insertStandard = (name: string, createdAt: string) => db.sql`
  insert into collections (id, name, eth_address, salt, contract_address, urn, created_at, updated_at)
  values (gen_random_uuid(), ${name}, ${owner}, '0x00', '0x00', 'urn:' || gen_random_uuid(), ${createdAt}, ${createdAt})
  returning id::text`

it('fills the keys of existing rows, keeps each key for the oldest row, builds both unique indexes', async () => {
  await seedCollections(db.sql, 2_500)
  const [cool] = await insertStandard('Cool Hats', '2020-01-01T00:00:00Z')
  const [lookalike] = await insertStandard('C0ol\u00a0Hats', '2021-01-01T00:00:00Z')
  await db.sql`insert into third_parties (id, managers) values (${tp}, ${db.sql.array([owner])})`
  const [tpCollection] = await db.sql<{ id: string }[]>`
    insert into collections (id, name, eth_address, urn, third_party_id, urn_suffix)
    values (gen_random_uuid(), 'Cool Hats', ${owner}, ${`${tp}:a`}, ${tp}, 'a') returning id::text`
  // one cheque stored twice under the old rule (its signature re-spelled), and another cheque
  const manager = Wallet.createRandom()
  const cheque = { thirdPartyId: tp, qty: 2, salt: `0x${'ab'.repeat(32)}` }
  const signature = await manager.signTypedData(domain, CONSUME_SLOTS_TYPES, cheque)
  const other = { ...cheque, salt: `0x${'cd'.repeat(32)}` }
  const rows: [string, string][] = [
    [cheque.salt, signature],
    [cheque.salt.toUpperCase().replace('0X', '0x'), Signature.from(signature).compactSerialized],
    [other.salt, await manager.signTypedData(domain, CONSUME_SLOTS_TYPES, other)],
  ]
  for (const [salt, sig] of rows) {
    await db.sql`
      insert into slot_usage_cheques (collection_id, third_party_id, signer, qty, salt, signature)
      values (${tpCollection!.id}, ${tp}, ${manager.address.toLowerCase()}, 2, ${salt}, ${sig})`
  }

  await migrate(db.sql, migrationsDir)
  await completeKeys(db.sql, { ...keyFunctions(domain), log })

  const keyOf = async (id: string) =>
    (await db.sql<{ name_key: string | null }[]>`select name_key from collections where id = ${id}`)[0]!
      .name_key
  expect(await keyOf(cool!.id)).toBe(nameKey('Cool Hats'))
  expect(await keyOf(lookalike!.id)).toBeNull()
  expect(await keyOf(tpCollection!.id)).toBe(nameKey('Cool Hats'))
  const [unkeyed] = await db.sql<
    { n: number }[]
  >`select count(*)::int as n from collections where name_key is null`
  expect(unkeyed!.n).toBe(1)
  const digests = await db.sql<{ digest: string | null }[]>`select digest from slot_usage_cheques order by id`
  expect(digests.map((d) => d.digest)).toEqual([
    chequeDigest(domain, tp, cheque),
    null,
    chequeDigest(domain, tp, other),
  ])
  expect(warnings.map((w) => w.details)).toEqual([
    { table: 'collections', ids: [lookalike!.id] },
    { table: 'slot_usage_cheques', ids: [expect.any(String)] },
  ])

  const indexes = await db.sql<{ name: string; valid: boolean; unique: boolean }[]>`
    select c.relname as name, i.indisvalid as valid, i.indisunique as unique
    from pg_index i join pg_class c on c.oid = i.indexrelid
    where c.relname in (${NAME_KEY_INDEX}, ${CHEQUE_DIGEST_INDEX}) order by 1`
  expect(indexes).toEqual([
    { name: NAME_KEY_INDEX, valid: true, unique: true },
    { name: CHEQUE_DIGEST_INDEX, valid: true, unique: true },
  ])
  const violation = await insertStandard('x', '2022-01-01T00:00:00Z')
    .then(() => db.sql`update collections set name_key = ${nameKey('Cool Hats')} where name = 'x'`)
    .catch((error: unknown) => uniqueViolation(error))
  expect(violation).toBe(NAME_KEY_INDEX)
  await db.sql`delete from collections where name = 'x'`
})

it('is idempotent, and later fills rows written without a key (by a replica of an earlier version)', async () => {
  warnings.length = 0
  await completeKeys(db.sql, { ...keyFunctions(domain), log })
  expect(warnings).toEqual([])
  const [late] = await insertStandard('Late Arrival', '2023-01-01T00:00:00Z')
  const [lateLookalike] = await insertStandard('Cооl Hats', '2023-01-02T00:00:00Z')
  await completeKeys(db.sql, { ...keyFunctions(domain), log })
  const keys = await db.sql<{ id: string; name_key: string | null }[]>`
    select id::text, name_key from collections where id in (${late!.id}, ${lateLookalike!.id})`
  expect(Object.fromEntries(keys.map((k) => [k.id, k.name_key]))).toEqual({
    [late!.id]: nameKey('Late Arrival'),
    [lateLookalike!.id]: null,
  })
})

it('rebuilds an index a failed build left invalid', async () => {
  await db.sql.unsafe(
    `update pg_index set indisvalid = false where indexrelid = '${NAME_KEY_INDEX}'::regclass`,
  )
  await completeKeys(db.sql, { ...keyFunctions(domain), log })
  const [index] = await db.sql<{ valid: boolean }[]>`
    select indisvalid as valid from pg_index where indexrelid = ${NAME_KEY_INDEX}::regclass`
  expect(index!.valid).toBe(true)
})
