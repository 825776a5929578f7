import { Contract, getAddress, type JsonRpcProvider, parseEther, type Signer } from 'ethers'
import type { SeedSet } from '../seed/genesis-city.js'

/** The functions of the local chain's contracts the demo writer calls. */
const LAND_ABI = [
  'function assignMultipleParcels(int256[] x, int256[] y, address beneficiary)',
  'function setLandDataBatch(uint256[] assetIds, string[] data)',
  'function setApprovalForAll(address operator, bool approved)',
]
const ESTATE_ABI = [
  'function createEstate(int256[] x, int256[] y, address beneficiary, string data) returns (uint256)',
  'function addLand(uint256 estateId, int256[] x, int256[] y)',
  'function setApprovalForAll(address operator, bool approved)',
]
const MARKET_ABI = [
  'function createOrder(address nftAddress, uint256 assetId, uint256 priceInWei, uint256 expiresAt)',
]

export interface DemoAddresses {
  landRegistry: string
  estateRegistry: string
  marketplace: string
}

export interface DemoSummary {
  parcels: number
  names: number
  estates: number
  orders: number
  transactions: number
}

const MASK128 = (1n << 128n) - 1n
export const encodeTokenId = (x: number, y: number): bigint =>
  ((BigInt(x) & MASK128) << 128n) | (BigInt(y) & MASK128)

/** Decentraland's LAND data string: `version,name,description,ipns`, each field CSV-quoted when needed. */
export function landData(name: string, description: string, ipns = ''): string {
  const quote = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s)
  return `0,${quote(name)},${quote(description)},${quote(ipns)}`
}

const chunks = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))

/**
 * Writes the demo set on a local chain (anvil): parcels assigned to their owners in batches, parcel names,
 * estates created by their owners, and the open, unexpired listings created by their sellers. The demo
 * owners have no keys: anvil impersonates them (anvil_impersonateAccount), so every event is the one a real
 * holder's transaction would emit. `admin` is the LAND registry's owner.
 */
export async function writeDemoOnChain(
  provider: JsonRpcProvider,
  admin: Signer,
  addresses: DemoAddresses,
  set: SeedSet,
  progress: (step: string, done: number, total: number) => void = () => {},
): Promise<DemoSummary> {
  let transactions = 0
  const land = new Contract(addresses.landRegistry, LAND_ABI, admin)
  // anvil mines each transaction as it is sent: the receipts are awaited in groups, not one by one
  let pending: Array<{ wait(): Promise<unknown> }> = []
  const settle = async () => {
    const group = pending
    pending = []
    await Promise.all(group.map((tx) => tx.wait()))
  }
  const send = async (tx: Promise<{ wait(): Promise<unknown> }>) => {
    transactions++
    pending.push(await tx)
    if (pending.length >= 64) await settle()
  }
  const holder = new Map(set.parcels.map((p) => [`${p.x},${p.y}`, p.owner]))
  const estateCells = new Map<string, Array<{ x: number; y: number }>>()
  for (const p of set.parcels) {
    if (p.estate_id)
      estateCells.set(p.estate_id, [...(estateCells.get(p.estate_id) ?? []), { x: p.x, y: p.y }])
  }

  // owners, in batches of one owner's parcels
  const byOwner = new Map<string, Array<{ x: number; y: number }>>()
  for (const p of set.parcels) if (p.owner) byOwner.set(p.owner, [...(byOwner.get(p.owner) ?? []), p])
  const owned = [...byOwner.values()].reduce((n, cells) => n + cells.length, 0)
  let done = 0
  for (const [owner, cells] of byOwner) {
    for (const batch of chunks(cells, 400)) {
      await send(
        land.getFunction('assignMultipleParcels')(
          batch.map((c) => c.x),
          batch.map((c) => c.y),
          getAddress(owner),
        ),
      )
      done += batch.length
      progress('parcels', done, owned)
    }
  }

  // names
  const named = set.parcels.filter((p) => p.name !== '' || p.description !== '')
  done = 0
  for (const batch of chunks(named, 100)) {
    await send(
      land.getFunction('setLandDataBatch')(
        batch.map((p) => encodeTokenId(p.x, p.y)),
        batch.map((p) => landData(p.name, p.description, p.ipns)),
      ),
    )
    done += batch.length
    progress('names', done, named.length)
  }

  const impersonate = async (address: string) => {
    await provider.send('anvil_impersonateAccount', [address])
    await provider.send('anvil_setBalance', [address, `0x${parseEther('10').toString(16)}`])
    return provider.getSigner(address)
  }

  // estates, each created by its owner from their parcels
  const created: string[] = []
  done = 0
  for (const estate of set.estates) {
    const estateOwner = estate.owner
    if (estateOwner === null) continue
    // only the parcels the estate's owner holds can go in
    const cells = (estateCells.get(estate.id) ?? []).filter(
      (c) => holder.get(`${c.x},${c.y}`) === estateOwner,
    )
    if (cells.length === 0) continue
    const owner = await impersonate(getAddress(estateOwner))
    const estates = new Contract(addresses.estateRegistry, ESTATE_ABI, owner)
    // a large estate in parts: one transaction pulling hundreds of parcels exceeds a block's gas
    const [first = [], ...rest] = chunks(cells, 100)
    await send(
      estates.getFunction('createEstate')(
        first.map((c) => c.x),
        first.map((c) => c.y),
        getAddress(estateOwner),
        landData(estate.name, estate.description),
      ),
    )
    created.push(estate.id)
    for (const part of rest) {
      await send(
        estates.getFunction('addLand')(
          BigInt(created.length),
          part.map((c) => c.x),
          part.map((c) => c.y),
        ),
      )
    }
    done++
    progress('estates', done, set.estates.length)
  }

  // open listings that have not expired, by their sellers (estate ids on chain follow the creation order)
  const chainEstateId = new Map([...created].map((id, i) => [id, BigInt(i + 1)]))
  const now = Date.now()
  const open = set.publications.filter((p) => p.status === 'open' && p.expires_at > now)
  const approved = new Set<string>()
  done = 0
  for (const p of open) {
    const seller = await impersonate(getAddress(p.owner))
    const nft = p.type === 'parcel' ? addresses.landRegistry : addresses.estateRegistry
    const assetId =
      p.type === 'parcel'
        ? encodeTokenId(Number(p.asset_id.split(',')[0]), Number(p.asset_id.split(',')[1]))
        : chainEstateId.get(p.asset_id)
    if (assetId === undefined) continue
    const key = `${p.owner}:${nft}`
    if (!approved.has(key)) {
      await send(
        new Contract(nft, LAND_ABI, seller).getFunction('setApprovalForAll')(addresses.marketplace, true),
      )
      approved.add(key)
    }
    const market = new Contract(addresses.marketplace, MARKET_ABI, seller)
    const wei = parseEther(p.price.toFixed(6))
    await send(market.getFunction('createOrder')(nft, assetId, wei, BigInt(Math.floor(p.expires_at / 1000))))
    done++
    progress('orders', done, open.length)
  }
  await settle()
  return { parcels: owned, names: named.length, estates: chainEstateId.size, orders: done, transactions }
}
