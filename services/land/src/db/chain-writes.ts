import type { Queryable } from '@genesis/common'

/**
 * The indexer's writes to the land tables. Each first records the row's image in the undo log for its block
 * (the first change per row and block wins), when `undo` is set: blocks a reorganisation may still remove.
 */
export interface Write {
  q: Queryable
  block: bigint
  undo: boolean
}

const rememberParcel = async ({ q, block, undo }: Write, x: number, y: number) => {
  if (!undo) return
  await q`
    insert into land_chain_undo (block_number, tbl, key, before)
    select ${block.toString()}, 'parcels', jsonb_build_object('x', x, 'y', y), to_jsonb(p)
    from parcels p where x = ${x} and y = ${y}
    on conflict (block_number, tbl, key) do nothing`
}

const rememberEstateParcels = async ({ q, block, undo }: Write, estateId: string) => {
  if (!undo) return
  await q`
    insert into land_chain_undo (block_number, tbl, key, before)
    select ${block.toString()}, 'parcels', jsonb_build_object('x', x, 'y', y), to_jsonb(p)
    from parcels p where estate_id = ${estateId}
    on conflict (block_number, tbl, key) do nothing`
}

const rememberEstate = async ({ q, block, undo }: Write, id: string) => {
  if (!undo) return
  await q`
    insert into land_chain_undo (block_number, tbl, key, before)
    values (${block.toString()}, 'estates', jsonb_build_object('id', ${id}::text),
      (select to_jsonb(e) from estates e where id = ${id}))
    on conflict (block_number, tbl, key) do nothing`
}

const rememberPublication = async ({ q, block, undo }: Write, txHash: string) => {
  if (!undo) return
  await q`
    insert into land_chain_undo (block_number, tbl, key, before)
    values (${block.toString()}, 'publications', jsonb_build_object('tx_hash', ${txHash}::text),
      (select to_jsonb(p) from publications p where tx_hash = ${txHash}))
    on conflict (block_number, tbl, key) do nothing`
}

const rememberOrder = async ({ q, block, undo }: Write, orderId: string) => {
  if (!undo) return
  await q`
    insert into land_chain_undo (block_number, tbl, key, before)
    values (${block.toString()}, 'land_chain_orders', jsonb_build_object('order_id', ${orderId}::text),
      (select to_jsonb(o) from land_chain_orders o where order_id = ${orderId}))
    on conflict (block_number, tbl, key) do nothing`
}

/** A parcel changed hands (owner null: burnt); leaving an estate clears its estate. */
export async function setParcelOwner(
  w: Write,
  x: number,
  y: number,
  owner: string | null,
  at: Date,
  leavesEstate: boolean,
): Promise<void> {
  await rememberParcel(w, x, y)
  await w.q`
    update parcels set owner = ${owner}, last_transferred_at = ${at}, updated_at = now(),
      estate_id = case when ${leavesEstate} then null else estate_id end
    where x = ${x} and y = ${y}`
}

/** A parcel moved into the estate registry: its owner is set by the AddLand that goes with it. */
export async function touchParcelTransfer(w: Write, x: number, y: number, at: Date): Promise<void> {
  await rememberParcel(w, x, y)
  await w.q`update parcels set last_transferred_at = ${at}, updated_at = now() where x = ${x} and y = ${y}`
}

export async function setParcelData(
  w: Write,
  x: number,
  y: number,
  data: { version: number; name: string; description: string; ipns: string },
): Promise<void> {
  await rememberParcel(w, x, y)
  await w.q`
    update parcels set data_version = ${data.version}, name = ${data.name}, description = ${data.description},
      ipns = ${data.ipns}, updated_at = now()
    where x = ${x} and y = ${y}`
}

/** The estate exists (created on its mint if the CreateEstate has not come yet), owned by `owner`. */
export async function upsertEstateOwner(
  w: Write,
  id: string,
  owner: string | null,
  at: Date,
  txHash: string,
): Promise<void> {
  await rememberEstate(w, id)
  await rememberEstateParcels(w, id)
  await w.q`
    insert into estates (id, owner, tx_hash, last_transferred_at)
    values (${id}, ${owner}, ${txHash}, ${at})
    on conflict (id) do update set owner = excluded.owner, last_transferred_at = excluded.last_transferred_at,
      updated_at = now()`
  // a parcel held by the estate registry shows its estate's owner
  await w.q`update parcels set owner = ${owner}, updated_at = now() where estate_id = ${id}`
}

export async function createEstate(
  w: Write,
  id: string,
  owner: string,
  data: { name: string; description: string } | null,
  txHash: string,
): Promise<void> {
  await rememberEstate(w, id)
  await w.q`
    insert into estates (id, owner, name, description, tx_hash)
    values (${id}, ${owner}, ${data?.name ?? ''}, ${data?.description ?? ''}, ${txHash})
    on conflict (id) do update set owner = excluded.owner, tx_hash = excluded.tx_hash, updated_at = now(),
      name = case when ${data !== null} then excluded.name else estates.name end,
      description = case when ${data !== null} then excluded.description else estates.description end`
}

/** False when the estate is unknown (an Update for an estate never minted here). */
export async function setEstateData(
  w: Write,
  id: string,
  data: { name: string; description: string },
): Promise<boolean> {
  await rememberEstate(w, id)
  const rows = await w.q`
    update estates set name = ${data.name}, description = ${data.description}, updated_at = now()
    where id = ${id} returning id`
  return rows.length > 0
}

/** A parcel joins an estate: it shows the estate's owner. False when the estate is unknown. */
export async function addLandToEstate(w: Write, id: string, x: number, y: number): Promise<boolean> {
  const [estate] = await w.q<Array<{ owner: string | null }>>`select owner from estates where id = ${id}`
  if (!estate) return false
  await rememberParcel(w, x, y)
  await w.q`
    update parcels set estate_id = ${id}, owner = ${estate.owner}, updated_at = now()
    where x = ${x} and y = ${y}`
  return true
}

/** A parcel leaves its estate for `to` (the LAND Transfer that follows says the same). */
export async function removeLandFromEstate(
  w: Write,
  id: string,
  x: number,
  y: number,
  to: string,
): Promise<void> {
  await rememberParcel(w, x, y)
  await w.q`
    update parcels set estate_id = null, owner = ${to}, updated_at = now()
    where x = ${x} and y = ${y} and estate_id = ${id}`
}

export interface NewPublication {
  txHash: string
  orderId: string
  owner: string
  price: number
  contractId: string
  marketplaceId: string
  blockNumber: bigint
  expiresAt: number
  at: number
  type: 'parcel' | 'estate'
  assetId: string
}

/**
 * An order becomes an open publication; the asset's earlier open orders from the chain are replaced (the
 * marketplace keeps one order per asset). False when the transaction already made a publication.
 */
export async function openPublication(w: Write, p: NewPublication): Promise<boolean> {
  const [taken] = await w.q`select 1 from publications where tx_hash = ${p.txHash}`
  if (taken) return false
  const replaced = await w.q<Array<{ tx_hash: string }>>`
    select o.tx_hash from land_chain_orders o join publications p on p.tx_hash = o.tx_hash
    where o.type = ${p.type} and o.asset_id = ${p.assetId} and p.status = 'open'`
  for (const { tx_hash } of replaced) {
    await rememberPublication(w, tx_hash)
    await w.q`
      update publications set status = 'cancelled', block_time_updated_at = ${p.at}, updated_at = now()
      where tx_hash = ${tx_hash}`
  }
  await rememberPublication(w, p.txHash)
  await rememberOrder(w, p.orderId)
  await w.q`
    insert into publications (tx_hash, tx_status, owner, price, status, buyer, contract_id, block_number,
      expires_at, block_time_created_at, block_time_updated_at, type, asset_id, marketplace_id)
    values (${p.txHash}, 'confirmed', ${p.owner}, ${p.price}, 'open', null, ${p.contractId},
      ${p.blockNumber.toString()}, ${p.expiresAt}, ${p.at}, ${p.at}, ${p.type}, ${p.assetId}, ${p.marketplaceId})`
  await w.q`
    insert into land_chain_orders (order_id, tx_hash, type, asset_id)
    values (${p.orderId}, ${p.txHash}, ${p.type}, ${p.assetId})
    on conflict (order_id) do update set tx_hash = excluded.tx_hash, type = excluded.type, asset_id = excluded.asset_id`
  return true
}

/** An open order sold or cancelled. False when the order is unknown here or no longer open. */
export async function closePublication(
  w: Write,
  orderId: string,
  status: 'sold' | 'cancelled',
  buyer: string | null,
  at: number,
): Promise<boolean> {
  const [order] = await w.q<Array<{ tx_hash: string }>>`
    select o.tx_hash from land_chain_orders o join publications p on p.tx_hash = o.tx_hash
    where o.order_id = ${orderId} and p.status = 'open'`
  if (!order) return false
  await rememberPublication(w, order.tx_hash)
  await w.q`
    update publications set status = ${status}, buyer = ${buyer}, block_time_updated_at = ${at}, updated_at = now()
    where tx_hash = ${order.tx_hash}`
  return true
}
