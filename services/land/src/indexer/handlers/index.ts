import type { LandEventKey } from '@genesis/contracts/land'
import { AddLand, CreateEstate, EstateTransfer, EstateUpdate, RemoveLand } from './estate-registry.js'
import type { Handler } from './handler.js'
import { LandTransfer, LandUpdate } from './land-registry.js'
import { OrderCancelled, OrderCreated, OrderSuccessful } from './marketplace.js'

export type { EventContext, SkipReason } from './handler.js'
export { RowKeys } from './handler.js'

/**
 * Every event the indexer follows, as `Contract:Event` (its signature comes from @genesis/contracts), and
 * its handler: the LAND registry's in `land-registry.ts`, the estate registry's in `estate-registry.ts`, the
 * marketplace's in `marketplace.ts`. Following one more event is one more entry here; its undo needs
 * nothing, since every write goes through the batch's tables (src/indexer/store.ts).
 */
export const handlers = {
  'LANDRegistry:Transfer': LandTransfer,
  'LANDRegistry:Update': LandUpdate,
  'EstateRegistry:Transfer': EstateTransfer,
  'EstateRegistry:CreateEstate': CreateEstate,
  'EstateRegistry:Update': EstateUpdate,
  'EstateRegistry:AddLand': AddLand,
  'EstateRegistry:RemoveLand': RemoveLand,
  'Marketplace:OrderCreated': OrderCreated,
  'Marketplace:OrderSuccessful': OrderSuccessful,
  'Marketplace:OrderCancelled': OrderCancelled,
} satisfies Partial<Record<LandEventKey, unknown>>

/** The kind of an event: its `Contract:Event`. */
export type EventKind = keyof typeof handlers

/** The fields of an event of this kind, as its handler decodes them. */
export type KindsEvent<Kind extends EventKind> =
  (typeof handlers)[Kind] extends Handler<infer Event> ? Event : never

/** The handler of an event's kind. */
export const handlerOf = <Event extends { kind: EventKind }>(event: Event): Handler<Event> =>
  handlers[event.kind] as unknown as Handler<Event>
