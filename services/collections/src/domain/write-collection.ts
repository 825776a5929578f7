import { type Queryable, type Sql, uniqueViolation } from '@genesis/common'
import type { CollectionWrite } from '@genesis/wire/collections'
import type { Config } from '../config.js'
import {
  type CollectionRow,
  insertCollection,
  lockCollectionIfExists,
  updateCollection,
} from '../db/collections.js'
import { NAME_KEY_INDEX } from '../db/keys.js'
import { recordManagerAnswer, registerOrGetThirdParty } from '../db/third-parties.js'
import { invalidField, invalidUrn, nameInUse, notAllowed, urnInUse, urnMismatch } from '../errors.js'
import { collectionContractAddress, collectionSalt } from './contract-address.js'
import { type Access, askFirst, lockEditableCollection } from './guards.js'
import { nameKey } from './name-key.js'
import { askedManager, managesThirdParty } from './third-party-managers.js'
import { type CollectionUrn, parseCollectionUrn, standardCollectionUrn } from './urn.js'

/** What writing a collection needs: the database, who may edit it, and how its identity is derived. */
export interface CollectionWriter extends Access {
  sql: Sql
  config: Pick<
    Config,
    'LOCK_TTL_S' | 'CHAIN_NETWORK' | 'COLLECTION_FACTORY_ADDRESS' | 'COLLECTION_INIT_CODE_HASH'
  >
}

const normaliseMembers = (addresses: string[] | undefined) =>
  addresses === undefined ? undefined : [...new Set(addresses.map((a) => a.toLowerCase()))]

interface WriteRequest {
  id: string
  name: string
  nameKey: string
  /** undefined: not sent; null: a standard collection. */
  urn: CollectionUrn | null | undefined
  managers: string[] | undefined
  minters: string[] | undefined
}

function parseWrite(ctx: CollectionWriter, pathId: string, body: CollectionWrite): WriteRequest {
  const id = pathId.toLowerCase()
  if (body.id.toLowerCase() !== id) throw invalidField('body.id', `must be the id of the path (${pathId})`)
  let urn: CollectionUrn | null | undefined = body.urn === null ? null : undefined
  if (typeof body.urn === 'string') {
    const parsed = parseCollectionUrn(body.urn, ctx.config.CHAIN_NETWORK)
    if (!parsed.ok) throw invalidUrn(parsed.reason)
    urn = parsed.urn
  }
  const name = body.name.trim()
  const key = nameKey(name)
  if (key === '') throw invalidField('body.name', 'must have a visible character')
  return {
    id,
    name,
    nameKey: key,
    urn,
    managers: normaliseMembers(body.managers),
    minters: normaliseMembers(body.minters),
  }
}

function standardIdentity(ctx: CollectionWriter, id: string) {
  const salt = collectionSalt(id)
  const contractAddress = collectionContractAddress(
    ctx.config.COLLECTION_FACTORY_ADDRESS,
    salt,
    ctx.config.COLLECTION_INIT_CODE_HASH,
  )
  return { salt, contractAddress, urn: standardCollectionUrn(ctx.config.CHAIN_NETWORK, contractAddress) }
}

async function create(tx: Queryable, ctx: CollectionWriter, caller: string, write: WriteRequest) {
  const now = ctx.now()
  const base = {
    id: write.id,
    name: write.name,
    name_key: write.nameKey,
    eth_address: caller,
    managers: write.managers ?? [],
    minters: write.minters ?? [],
    now,
  }
  if (!write.urn || write.urn.kind === 'standard') {
    const standard = standardIdentity(ctx, write.id)
    if (write.urn && write.urn.contractAddress !== standard.contractAddress) {
      throw invalidUrn(`is derived from the id for a standard collection: send null or ${standard.urn}`)
    }
    await insertCollection(tx, {
      ...base,
      urn: standard.urn,
      salt: standard.salt,
      contract_address: standard.contractAddress,
      third_party_id: null,
      urn_suffix: null,
    })
    return
  }
  const thirdPartyId = write.urn.thirdPartyId
  // With RPC_URL the registry on chain decides, before anything is registered; without it, the first
  // collection of an unknown third party registers the caller as its manager (development).
  if (ctx.chain && !(await managesThirdParty(ctx, tx, thirdPartyId, caller, []))) {
    throw notAllowed(`a manager of the third party ${thirdPartyId}`, 'create its collections')
  }
  const thirdParty = await registerOrGetThirdParty(tx, thirdPartyId, caller, now)
  if (!ctx.chain && !thirdParty.managers.includes(caller)) {
    throw notAllowed(`a manager of the third party ${thirdPartyId}`, 'create its collections')
  }
  if (ctx.chain && !thirdParty.managers.includes(caller)) {
    await recordManagerAnswer(tx, thirdPartyId, caller, true, now)
  }
  await insertCollection(tx, {
    ...base,
    urn: write.urn.urn,
    salt: null,
    contract_address: null,
    third_party_id: thirdPartyId,
    urn_suffix: write.urn.suffix,
  })
}

/** A collection never changes kind or URN: standard URNs follow the id, third-party ones are its identity. */
function checkSameUrn(row: CollectionRow, urn: CollectionUrn | null | undefined) {
  if (urn === undefined) return
  const sameUrn =
    urn === null
      ? row.third_party_id === null
      : urn.kind === 'standard'
        ? row.contract_address === urn.contractAddress
        : row.urn === urn.urn
  if (!sameUrn) {
    throw urnMismatch(row.id, row.urn)
  }
}

/** The same members in any order; both lists are already lower-case without duplicates. */
const sameMembers = (sent: readonly string[] | undefined, stored: readonly string[]) =>
  sent === undefined || (sent.length === stored.length && sent.every((address) => stored.includes(address)))

/**
 * Who manages and mints is the owner's to say, as the collection contract lets only its creator set
 * managers: otherwise a manager could add a stranger and remove the owner's other managers. A manager
 * may send the lists back unchanged (in any order or spelling), since clients send the whole record.
 */
function checkMembersChange(row: CollectionRow, caller: string, write: WriteRequest) {
  if (row.eth_address === caller) return
  if (!sameMembers(write.managers, row.managers))
    throw notAllowed('its owner', "change the collection's managers")
  if (!sameMembers(write.minters, row.minters))
    throw notAllowed('its owner', "change the collection's minters")
}

async function update(tx: Queryable, ctx: CollectionWriter, caller: string, write: WriteRequest) {
  const row = await lockEditableCollection(tx, ctx, write.id, caller, { action: 'update it' })
  checkSameUrn(row, write.urn)
  checkMembersChange(row, caller, write)
  await updateCollection(tx, row.id, {
    name: write.name,
    name_key: write.nameKey,
    managers: write.managers,
    minters: write.minters,
    now: ctx.now(),
  })
}

function refusalFor(error: unknown, write: WriteRequest): Error | null {
  switch (uniqueViolation(error)) {
    case 'collections_standard_name_key':
    case NAME_KEY_INDEX:
      return nameInUse(write.name)
    case 'collections_urn_key':
      return urnInUse()
    default:
      return null
  }
}

/**
 * PUT /v1/collections/{id}: creates the collection (the caller becomes its owner) or updates it.
 * Name uniqueness is the database's unique index, so concurrent creates cannot both win.
 */
export async function writeCollection(
  writer: CollectionWriter,
  caller: string,
  pathId: string,
  body: CollectionWrite,
): Promise<void> {
  const write = parseWrite(writer, pathId, body)
  // The registry is asked before the transaction: for an update, about the stored collection's third
  // party; for a create, about the one its URN names.
  let ctx = await askFirst(writer, writer.sql, write.id, caller)
  if (write.urn?.kind === 'third_party') ctx = await askedManager(ctx, write.urn.thirdPartyId, caller)
  const attempt = () =>
    ctx.sql.begin(async (tx) => {
      if (await lockCollectionIfExists(tx, write.id)) await update(tx, ctx, caller, write)
      else await create(tx, ctx, caller, write)
    })
  try {
    await attempt()
  } catch (error) {
    // Created by a concurrent request between our read and our insert: it is now an update.
    if (uniqueViolation(error) === 'collections_pkey') {
      try {
        await attempt()
        return
      } catch (retryError) {
        throw refusalFor(retryError, write) ?? retryError
      }
    }
    throw refusalFor(error, write) ?? error
  }
}
