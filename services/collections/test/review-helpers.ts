import type { App } from '@genesis/common'
import type { Curation } from '@genesis/wire/collections'
import type { LightMyRequestResponse } from 'fastify'
import type { Config } from '../src/config.js'
import { signCheque } from './chequebook.js'
import { acceptTos, call, createCollection, createItem, type Identity, randomUUID } from './helpers.js'

function expectStatus(res: LightMyRequestResponse, status: number, what: string) {
  if (res.statusCode !== status) throw new Error(`${what}: ${res.statusCode} ${res.body}`)
}

/** A standard collection with one item, terms accepted and published by `owner`. */
export async function publishedCollection(
  app: App,
  owner: Identity,
  fields: { name?: string; managers?: string[]; minters?: string[] } = {},
): Promise<string> {
  const id = await createCollection(app, owner, fields)
  const itemIds = [await createItem(app, owner, id)]
  await acceptTos(app, owner, id)
  expectStatus(await call(app, owner, 'POST', `/v1/collections/${id}/publish`, { itemIds }), 204, 'publish')
  return id
}

/** A third-party collection of `manager`'s new third party, with `count` items sent to review. */
export async function thirdPartyInReview(
  app: App,
  config: Config,
  manager: Identity,
  count = 2,
  /** Before the first collection: e.g. make `manager` a manager of the third party on chain. */
  prepare?: (thirdPartyId: string) => Promise<void>,
): Promise<{ id: string; thirdPartyId: string; itemIds: string[] }> {
  const thirdPartyId = `urn:decentraland:sepolia:collections-thirdparty:tp${randomUUID().slice(0, 8)}`
  await prepare?.(thirdPartyId)
  const id = await createCollection(app, manager, { urn: `${thirdPartyId}:drop` })
  const itemIds: string[] = []
  for (let i = 0; i < count; i++) itemIds.push(await createItem(app, manager, id))
  await sendItems(app, config, manager, id, thirdPartyId, itemIds)
  return { id, thirdPartyId, itemIds }
}

export async function sendItems(
  app: App,
  config: Config,
  manager: Identity,
  id: string,
  thirdPartyId: string,
  itemIds: string[],
) {
  const cheque = await signCheque(config, manager, thirdPartyId, itemIds.length)
  expectStatus(
    await call(app, manager, 'POST', `/v1/collections/${id}/publish`, { itemIds, cheque }),
    204,
    'third-party publish',
  )
}

export const askReview = (app: App, who: Identity, collectionId: string) =>
  call(app, who, 'POST', `/v1/collections/${collectionId}/curations`)

export async function openReview(app: App, who: Identity, collectionId: string): Promise<Curation> {
  const res = await askReview(app, who, collectionId)
  expectStatus(res, 201, 'ask for review')
  return res.json().data as Curation
}

export const decide = (
  app: App,
  who: Identity,
  curationId: string,
  action: 'approve' | 'reject',
  body: Record<string, unknown> = {},
) => call(app, who, 'POST', `/v1/curations/${curationId}/${action}`, body)
