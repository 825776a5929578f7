import type { ChainEvent } from '../events.js'
import { AddLand, CreateEstate, EstateTransfer, EstateUpdate, RemoveLand } from './estate-registry.js'
import type { Handler, Handlers } from './handler.js'
import { LandTransfer, LandUpdate } from './land-registry.js'
import { OrderCancelled, OrderCreated, OrderSuccessful } from './marketplace.js'

export type { EventContext, SkipReason } from './handler.js'
export { RowKeys } from './handler.js'

/**
 * Every event the indexer follows and its handler, one per kind, named as the kind: the LAND registry's in
 * `land-registry.ts`, the estate registry's in `estate-registry.ts`, the marketplace's in `marketplace.ts`.
 */
export const handlers: Handlers = {
  LandTransfer,
  LandUpdate,
  EstateTransfer,
  CreateEstate,
  EstateUpdate,
  AddLand,
  RemoveLand,
  OrderCreated,
  OrderSuccessful,
  OrderCancelled,
}

/** The handler of an event's kind. */
export const handlerOf = <Event extends ChainEvent>(event: Event): Handler<Event> =>
  handlers[event.kind] as unknown as Handler<Event>
