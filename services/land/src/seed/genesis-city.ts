import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  blankParcel,
  type ContributionRecord,
  type DistrictRecord,
  type EstateRecord,
  type ParcelRecord,
  type PublicationRecord,
} from '../db/rows.js'
import {
  ESTATE_CONTRACT,
  LAND_CONTRACT,
  MARKETPLACE_CONTRACT,
  PLAZA_DISTRICT_ID,
  ROAD_DISTRICT_ID,
} from '../domain/constants.js'
import { CELL_COUNT, cellIndex, GRID_MIN, GRID_SIZE } from '../domain/geometry.js'
import { bfsDistances } from '../grid/proximity.js'
import { dataDir } from '../paths.js'
import { Random } from './prng.js'
import { estateDescription, estateName, ipnsName, parcelDescription, parcelName } from './words.js'

/** The source files as published by decentraland/atlas-server (see data/SOURCE.md). */
export interface SourceDistrict {
  id: string
  name: string
  description: string
  parcels: string[]
  totalParcels: number | null
}
export type SourceContributions = Record<
  string,
  Array<{ address: string; districtId: string; totalParcels: number }>
>

export interface SeedSet {
  districts: DistrictRecord[]
  estates: EstateRecord[]
  parcels: ParcelRecord[]
  publications: PublicationRecord[]
  contributions: ContributionRecord[]
}

export function readSourceData(dir = dataDir): {
  districts: SourceDistrict[]
  contributions: SourceContributions
} {
  return {
    districts: JSON.parse(readFileSync(join(dir, 'districts.json'), 'utf8')) as SourceDistrict[],
    contributions: JSON.parse(readFileSync(join(dir, 'contributions.json'), 'utf8')) as SourceContributions,
  }
}

const DAY = 86_400_000
/** Every synthetic time lies before this instant, and every active listing expires long after it. */
const ANCHOR = Date.UTC(2025, 5, 1)
const FIRST_SALE = Date.UTC(2018, 0, 15)
const OWNER_POOL = 5000
const UNOWNED_SHARE = 0.035
const ESTATE_TARGET = 320
const PARCEL_LISTINGS = 2600
const ESTATE_LISTINGS = 110

const xOf = (cell: number) => (cell % GRID_SIZE) + GRID_MIN
const yOf = (cell: number) => Math.floor(cell / GRID_SIZE) + GRID_MIN
const iso = (ms: number) => new Date(ms).toISOString()
/** Roughly 13 s per Ethereum block, anchored near the LAND contract's deployment. */
const blockAt = (ms: number) => Math.round(4_500_000 + (ms - Date.UTC(2017, 10, 1)) / 13_000)
const roundTo = (value: number, step: number) => Math.max(step, Math.round(value / step) * step)

/** Picks from a long-tailed (Zipf-like) distribution: a few owners hold a lot, most hold a little. */
function zipfPicker(rng: Random, items: string[], exponent: number) {
  const cumulative = new Float64Array(items.length)
  let total = 0
  for (let i = 0; i < items.length; i++) {
    total += 1 / (i + 1) ** exponent
    cumulative[i] = total
  }
  return () => {
    const r = rng.next() * total
    let lo = 0
    let hi = items.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if ((cumulative[mid] as number) > r) hi = mid
      else lo = mid + 1
    }
    return items[lo] as string
  }
}

function neighbours(cell: number): number[] {
  const x = cell % GRID_SIZE
  const out: number[] = []
  if (x > 0) out.push(cell - 1)
  if (x < GRID_SIZE - 1) out.push(cell + 1)
  if (cell >= GRID_SIZE) out.push(cell - GRID_SIZE)
  if (cell < CELL_COUNT - GRID_SIZE) out.push(cell + GRID_SIZE)
  return out
}

/**
 * The Genesis City demo set: the real districts and contributions, and synthetic but deterministic
 * owners, estates, names, auction results and publications. Pure: the same input gives the same set.
 * The steps run in this order (each draws from its own seeded generator, owners from one shared picker).
 */
export function generateGenesisCity(source: {
  districts: SourceDistrict[]
  contributions: SourceContributions
}): SeedSet {
  const districtOf = districtOfCells(source.districts)
  const value = parcelValues(districtOf)
  const owners = ownerPicker(source.districts)
  const parcels = ownParcels(districtOf, owners, value)
  const txHash = uniqueTxHashes()
  const { estates, estateCells, inEstate } = growEstates(parcels, districtOf, txHash)
  const publications = listForSale({
    parcels,
    districtOf,
    estates,
    estateCells,
    inEstate,
    owners,
    value,
    txHash,
  })
  return {
    districts: districtRecords(source.districts),
    estates,
    parcels,
    publications,
    contributions: contributionRows(source.contributions),
  }
}

/** The district each cell belongs to, or null for land outside every district. */
function districtOfCells(districts: SourceDistrict[]): Array<string | null> {
  const districtOf: Array<string | null> = new Array(CELL_COUNT).fill(null)
  for (const district of districts) {
    for (const id of district.parcels) {
      const [x, y] = id.split(',').map(Number)
      districtOf[cellIndex(x as number, y as number)] = district.id
    }
  }
  return districtOf
}

/** What a parcel is worth in MANA: more near plazas and roads, and near the centre. */
function parcelValues(districtOf: Array<string | null>): (cell: number) => number {
  const roadCells: number[] = []
  const plazaCells: number[] = []
  for (let cell = 0; cell < CELL_COUNT; cell++) {
    if (districtOf[cell] === ROAD_DISTRICT_ID) roadCells.push(cell)
    else if (districtOf[cell] === PLAZA_DISTRICT_ID) plazaCells.push(cell)
  }
  const roadSteps = bfsDistances(roadCells, GRID_SIZE * 2).steps
  const plazaSteps = bfsDistances(plazaCells, GRID_SIZE * 2).steps
  return (cell: number) => {
    const fromCentre = Math.hypot(xOf(cell), yOf(cell))
    return (
      1500 +
      32_000 * Math.exp(-(plazaSteps[cell] as number) / 14) +
      7000 * Math.exp(-(roadSteps[cell] as number) / 2.5) +
      5000 * Math.exp(-fromCentre / 45)
    )
  }
}

interface Owners {
  /** A private owner, a few of them owning much (Zipf). */
  pick: () => string
  /** The Foundation: roads and plazas. */
  foundation: string
  /** Each district's owner. */
  ofDistrict: Map<string, string>
}

function ownerPicker(districts: SourceDistrict[]): Owners {
  const ownerRng = new Random('genesis-city/owners')
  const pool = Array.from({ length: OWNER_POOL }, () => ownerRng.address())
  const pick = zipfPicker(ownerRng, pool, 0.85)
  const foundation = new Random('genesis-city/foundation').address()
  const ofDistrict = new Map(
    districts.map((d) => [
      d.id,
      d.id === ROAD_DISTRICT_ID || d.id === PLAZA_DISTRICT_ID
        ? foundation
        : new Random(`district/${d.id}`).address(),
    ]),
  )
  return { pick, foundation, ofDistrict }
}

/**
 * Owners, auction results, names: cell by cell, west to east and south to north, so that owners cluster
 * (people buy next to what they have) and small patches stay unclaimed.
 */
function ownParcels(
  districtOf: Array<string | null>,
  owners: Owners,
  value: (cell: number) => number,
): ParcelRecord[] {
  const parcels: ParcelRecord[] = new Array(CELL_COUNT)
  const parcelRng = new Random('genesis-city/parcels')
  const free = (cell: number) => districtOf[cell] === null
  for (let cell = 0; cell < CELL_COUNT; cell++) {
    const x = xOf(cell)
    const y = yOf(cell)
    const districtId = districtOf[cell] as string | null
    const parcel: ParcelRecord = { ...blankParcel(x, y), district_id: districtId }
    parcels[cell] = parcel
    if (districtId !== null) {
      parcel.owner = owners.ofDistrict.get(districtId) ?? owners.foundation
      continue
    }
    const west = x > GRID_MIN && free(cell - 1) ? (parcels[cell - 1] as ParcelRecord) : undefined
    const south =
      cell >= GRID_SIZE && free(cell - GRID_SIZE) ? (parcels[cell - GRID_SIZE] as ParcelRecord) : undefined
    const unclaimedNear = (west && west.owner === null) || (south && south.owner === null)
    if (parcelRng.chance(unclaimedNear ? 0.3 : UNOWNED_SHARE * 0.8)) continue
    if (west?.owner && parcelRng.chance(0.45)) parcel.owner = west.owner
    else if (south?.owner && parcelRng.chance(0.3)) parcel.owner = south.owner
    else parcel.owner = owners.pick()
    parcel.last_transferred_at = iso(parcelRng.int(FIRST_SALE, ANCHOR - 14 * DAY))
    if (parcelRng.chance(0.25)) {
      parcel.auction_price = roundTo(value(cell) * (0.6 + parcelRng.next() * 0.8), 10)
      parcel.auction_owner = parcelRng.chance(0.65) ? parcel.owner : owners.pick()
    }
    if (parcelRng.chance(0.12)) {
      parcel.name = parcelName(parcelRng)
      parcel.description = parcelDescription(parcelRng, parcel.name)
      parcel.data_version = parcelRng.int(1, 3)
      if (parcelRng.chance(0.3)) parcel.ipns = ipnsName(parcelRng)
    }
  }
  return parcels
}

/** Transaction hashes drawn from a generator, never one twice in the set. */
function uniqueTxHashes(): (rng: Random) => string {
  const txHashes = new Set<string>()
  return (rng: Random) => {
    for (;;) {
      const hash = `0x${rng.hex(64)}`
      if (!txHashes.has(hash)) {
        txHashes.add(hash)
        return hash
      }
    }
  }
}

/** Estates: contiguous groups of owned, non-district parcels grown from random seeds. */
function growEstates(
  parcels: ParcelRecord[],
  districtOf: Array<string | null>,
  txHash: (rng: Random) => string,
): { estates: EstateRecord[]; estateCells: number[][]; inEstate: Int32Array } {
  const estateRng = new Random('genesis-city/estates')
  const inEstate = new Int32Array(CELL_COUNT).fill(-1)
  const eligible = (cell: number) =>
    districtOf[cell] === null && parcels[cell]?.owner !== null && inEstate[cell] === -1
  const estates: EstateRecord[] = []
  const estateCells: number[][] = []
  for (let attempt = 0; estates.length < ESTATE_TARGET && attempt < 50_000; attempt++) {
    const seedCell = estateRng.int(0, CELL_COUNT - 1)
    if (!eligible(seedCell)) continue
    const r = estateRng.next()
    const target =
      r < 0.62
        ? estateRng.int(2, 8)
        : r < 0.9
          ? estateRng.int(9, 40)
          : r < 0.98
            ? estateRng.int(41, 150)
            : estateRng.int(200, 600)
    const index = estates.length
    const members = [seedCell]
    inEstate[seedCell] = index
    const frontier = neighbours(seedCell)
    while (members.length < target && frontier.length > 0) {
      const at = estateRng.int(0, frontier.length - 1)
      const cell = frontier[at] as number
      frontier[at] = frontier[frontier.length - 1] as number
      frontier.pop()
      if (!eligible(cell)) continue
      inEstate[cell] = index
      members.push(cell)
      frontier.push(...neighbours(cell))
    }
    if (members.length < 2) {
      for (const cell of members) inEstate[cell] = -1
      continue
    }
    const owner = parcels[seedCell]?.owner as string
    const id = String(index + 1)
    for (const cell of members) {
      const parcel = parcels[cell] as ParcelRecord
      parcel.owner = owner
      parcel.estate_id = id
    }
    estates.push({
      id,
      owner,
      name: estateRng.chance(0.85) ? estateName(estateRng) : '',
      description: estateRng.chance(0.6) ? estateDescription(estateRng) : '',
      district_id: null,
      tx_hash: txHash(estateRng),
      last_transferred_at: iso(estateRng.int(Date.UTC(2019, 0, 1), ANCHOR - 14 * DAY)),
      parcels: members.map((cell) => ({ x: xOf(cell), y: yOf(cell) })).sort((a, b) => a.x - b.x || a.y - b.y),
    })
    estateCells.push(members)
  }
  return { estates, estateCells, inEstate }
}

/**
 * Publications: a sample of the free parcels and of the estates gets a short sale history each, and the
 * asset's last transfer follows its newest sale.
 */
function listForSale(city: {
  parcels: ParcelRecord[]
  districtOf: Array<string | null>
  estates: EstateRecord[]
  estateCells: number[][]
  inEstate: Int32Array
  owners: Owners
  value: (cell: number) => number
  txHash: (rng: Random) => string
}): PublicationRecord[] {
  const { parcels, estates, estateCells, value } = city
  const pubRng = new Random('genesis-city/publications')
  const publications: PublicationRecord[] = []
  const history = saleHistory(pubRng, city.owners, city.txHash, publications)

  const listable: number[] = []
  for (let cell = 0; cell < CELL_COUNT; cell++)
    if (city.districtOf[cell] === null && parcels[cell]?.owner && city.inEstate[cell] === -1)
      listable.push(cell)
  for (let i = 0; i < PARCEL_LISTINGS && i < listable.length; i++) {
    // Partial Fisher–Yates: a uniform sample without repetition.
    const j = pubRng.int(i, listable.length - 1)
    ;[listable[i], listable[j]] = [listable[j] as number, listable[i] as number]
    const cell = listable[i] as number
    const parcel = parcels[cell] as ParcelRecord
    const { lastSale } = history('parcel', `${parcel.x},${parcel.y}`, parcel.owner as string, value(cell))
    if (lastSale !== null) parcel.last_transferred_at = iso(lastSale)
  }
  const estateOrder = estates.map((_, i) => i)
  for (let i = 0; i < ESTATE_LISTINGS && i < estateOrder.length; i++) {
    const j = pubRng.int(i, estateOrder.length - 1)
    ;[estateOrder[i], estateOrder[j]] = [estateOrder[j] as number, estateOrder[i] as number]
    const index = estateOrder[i] as number
    const estate = estates[index] as EstateRecord
    const cells = estateCells[index] as number[]
    const worth = cells.reduce((sum, cell) => sum + value(cell), 0) * 0.9
    const { lastSale } = history('estate', estate.id, estate.owner as string, worth)
    if (lastSale !== null) estate.last_transferred_at = iso(lastSale)
  }
  return publications
}

/**
 * One asset's sale history, newest last, added to `publications`. Owners stay consistent: the buyer of
 * the newest sale is the current owner, the seller of each sale owned it before.
 */
function saleHistory(
  pubRng: Random,
  owners: Owners,
  txHash: (rng: Random) => string,
  publications: PublicationRecord[],
) {
  return (
    type: 'parcel' | 'estate',
    assetId: string,
    currentOwner: string,
    worth: number,
  ): { lastSale: number | null } => {
    const n = pubRng.weighted([70, 22, 8]) + 1
    const statuses: Array<'open' | 'sold' | 'cancelled'> = []
    for (let i = 0; i < n - 1; i++) statuses.push(pubRng.chance(0.55) ? 'sold' : 'cancelled')
    statuses.push(
      ['open', 'sold', 'cancelled'][pubRng.weighted([48, 32, 20])] as 'open' | 'sold' | 'cancelled',
    )
    const lastIsOpen = statuses[n - 1] === 'open'
    const expired = lastIsOpen && pubRng.chance(0.18)
    // Walk backwards from the newest publication.
    let holder = currentOwner
    let nextStart = expired ? Date.UTC(2024, 9, 1) : ANCHOR - 2 * DAY
    let lastSale: number | null = null
    const made: PublicationRecord[] = []
    for (let i = n - 1; i >= 0; i--) {
      const status = statuses[i] as 'open' | 'sold' | 'cancelled'
      const span = status === 'open' ? 0 : pubRng.int(1, 60) * DAY
      const created = nextStart - span - pubRng.int(5, 320) * DAY - pubRng.int(0, DAY)
      const updated = status === 'open' ? null : created + span
      const price = roundTo(worth * (0.6 + pubRng.next() * 1.6), 50)
      let owner = holder
      let buyer: string | null = null
      if (status === 'sold') {
        buyer = holder
        do owner = owners.pick()
        while (owner === holder)
        holder = owner
        lastSale ??= updated
      }
      const expires =
        status === 'open' && !expired
          ? pubRng.int(Date.UTC(2030, 0, 1), Date.UTC(2040, 11, 31))
          : created + pubRng.int(30, 180) * DAY
      made.push({
        tx_hash: txHash(pubRng),
        tx_status: 'confirmed',
        owner,
        price,
        status,
        buyer,
        contract_id: type === 'parcel' ? LAND_CONTRACT : ESTATE_CONTRACT,
        block_number: blockAt(created),
        expires_at: expires,
        block_time_created_at: created,
        block_time_updated_at: updated,
        type,
        asset_id: assetId,
        marketplace_id: MARKETPLACE_CONTRACT,
      })
      nextStart = created
    }
    publications.push(...made.reverse())
    return { lastSale }
  }
}

function districtRecords(districts: SourceDistrict[]): DistrictRecord[] {
  return districts.map((d) => ({
    id: d.id,
    name: d.name,
    description: d.description,
    link: '',
    // The Foundation's public spaces; the others are community districts.
    public: d.id === ROAD_DISTRICT_ID || d.id === PLAZA_DISTRICT_ID,
  }))
}

function contributionRows(contributions: SourceContributions): ContributionRecord[] {
  return Object.values(contributions).flatMap((rows) =>
    rows.map((row) => ({
      address: row.address.toLowerCase(),
      district_id: row.districtId,
      land_count: row.totalParcels,
    })),
  )
}
