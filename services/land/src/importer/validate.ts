import type { TSchema } from '@sinclair/typebox'
import { Value, type ValueError } from '@sinclair/typebox/value'
import type {
  ContributionRecord,
  DistrictRecord,
  EstateRecord,
  ParcelRecord,
  PublicationRecord,
} from '../db/rows.js'
import { parseCoordinate } from '../domain/coordinates.js'
import type { Cell } from '../domain/geometry.js'
import '@genesis/wire/formats'
import {
  type ContributionImport,
  type DistrictImport,
  type EstateImport,
  IMPORT_KINDS,
  importSchemas,
  type ParcelImport,
  type PublicationImport,
} from '@genesis/wire/land'
import type { ImportProblem, RawRow } from './read.js'

/** An estate or a district to write; `parcels`, when given, are exactly its members. */
export type WithMembers<T> = Omit<T, 'parcels'> & { parcels: Cell[] | undefined }

/** What the import writes, normalised (addresses lower-case) and checked across rows. */
export interface ImportPlan {
  districts: Array<WithMembers<DistrictRecord>>
  estates: Array<WithMembers<EstateRecord>>
  parcels: ParcelRecord[]
  publications: PublicationRecord[]
  contributions: ContributionRecord[]
}

/** Ids that already exist in the database, for reference checks. */
export interface Existing {
  districtIds: Set<string>
  estateIds: Set<string>
}

const lower = <T extends string | null | undefined>(value: T): T =>
  (typeof value === 'string' ? value.toLowerCase() : value) as T
const cellKey = (x: number, y: number) => `${x},${y}`

type Kind = (typeof IMPORT_KINDS)[number]
type Claim = { id: string; row: RawRow }

/** What the steps of planImport share: the plan so far, the problems, and what earlier rows defined. */
interface Planning {
  plan: ImportPlan
  report(row: RawRow, message: string): void
  /** True (and reported) when the key was defined by an earlier row: the first occurrence wins. */
  duplicate(row: RawRow, key: string, label: string): boolean
  districtIds: Set<string>
  estateIds: Set<string>
  /** Which estate / district each parcel is given to by estate and district rows. */
  estateOfCell: Map<string, Claim>
  districtOfCell: Map<string, Claim>
}

/**
 * The import's rows checked against their schemas and against each other, in the order the checks need:
 * every row's shape, then the districts and estates (which give parcels to groups), then parcels,
 * publications and contributions (which refer to them). Every problem is reported with its row's line.
 */
export function planImport(rows: RawRow[], existing: Existing, problems: ImportProblem[]): ImportPlan {
  const report = (row: RawRow, message: string) => problems.push({ file: row.file, line: row.line, message })
  const valid = rowsOfValidShape(rows, report)
  const planning = startPlanning(valid, existing, report)
  for (const { row, kind } of valid) {
    if (kind === 'districts') planDistrict(planning, row, row.value as DistrictImport)
    else if (kind === 'estates') planEstate(planning, row, row.value as EstateImport)
  }
  const groupsListingParcels = {
    estates: new Set(planning.plan.estates.filter((e) => e.parcels).map((e) => e.id)),
    districts: new Set(planning.plan.districts.filter((d) => d.parcels).map((d) => d.id)),
  }
  for (const { row, kind } of valid) {
    if (kind === 'parcels') planParcel(planning, row, row.value as ParcelImport, groupsListingParcels)
    else if (kind === 'publications') planPublication(planning, row, row.value as PublicationImport)
    else if (kind === 'contributions') planContribution(planning, row, row.value as ContributionImport)
  }
  return planning.plan
}

/** The rows whose kind is known and whose value matches that kind's schema. */
function rowsOfValidShape(rows: RawRow[], report: Planning['report']): Array<{ row: RawRow; kind: Kind }> {
  const valid: Array<{ row: RawRow; kind: Kind }> = []
  for (const row of rows) {
    if (!row.kind) {
      report(
        row,
        `unknown record kind: give the row a "kind" (${IMPORT_KINDS.join(', ')}) or name the file after it`,
      )
      continue
    }
    const schema = importSchemas[row.kind]
    if (!Value.Check(schema, row.value)) {
      const errors = [...Value.Errors(schema, row.value)].slice(0, 8)
      report(row, `invalid ${row.kind} row: ${errors.map(explain).join('; ')}`)
      continue
    }
    valid.push({ row, kind: row.kind })
  }
  return valid
}

/** The ids known before any reference is checked: the database's and every one this import defines. */
function startPlanning(
  valid: Array<{ row: RawRow; kind: Kind }>,
  existing: Existing,
  report: Planning['report'],
): Planning {
  const firstLine = new Map<string, RawRow>()
  const districtIds = new Set(existing.districtIds)
  const estateIds = new Set(existing.estateIds)
  for (const { row, kind } of valid) {
    const value = row.value as { id?: string }
    if (kind === 'districts') districtIds.add(lower(value.id as string))
    if (kind === 'estates') estateIds.add(value.id as string)
  }
  return {
    plan: { districts: [], estates: [], parcels: [], publications: [], contributions: [] },
    report,
    duplicate: (row, key, label) => {
      const first = firstLine.get(key)
      if (first) {
        report(row, `duplicate ${label}: already given at ${first.file}:${first.line}`)
        return true
      }
      firstLine.set(key, row)
      return false
    },
    districtIds,
    estateIds,
    estateOfCell: new Map(),
    districtOfCell: new Map(),
  }
}

function planDistrict(planning: Planning, row: RawRow, d: DistrictImport): void {
  const id = d.id.toLowerCase()
  if (planning.duplicate(row, `district:${id}`, `district ${id}`)) return
  let parcels: Cell[] | undefined
  if (d.parcels) {
    parcels = []
    for (const text of d.parcels) {
      let cell: Cell
      try {
        cell = parseCoordinate(text, 'parcels')
      } catch (error) {
        planning.report(row, (error as Error).message)
        continue
      }
      const other = planning.districtOfCell.get(cellKey(cell.x, cell.y))
      if (other && other.id !== id) {
        planning.report(
          row,
          `parcel ${text} is also given to district ${other.id} at ${other.row.file}:${other.row.line}`,
        )
        continue
      }
      planning.districtOfCell.set(cellKey(cell.x, cell.y), { id, row })
      parcels.push(cell)
    }
  }
  planning.plan.districts.push({
    id,
    name: d.name,
    description: d.description ?? '',
    link: d.link ?? '',
    public: d.public ?? false,
    parcels,
  })
}

function planEstate(planning: Planning, row: RawRow, e: EstateImport): void {
  if (planning.duplicate(row, `estate:${e.id}`, `estate ${e.id}`)) return
  const districtId = lower(e.district_id ?? null)
  if (districtId !== null && !planning.districtIds.has(districtId))
    planning.report(row, `unknown district_id ${districtId}`)
  const parcels = e.data?.parcels
  for (const p of parcels ?? []) {
    const other = planning.estateOfCell.get(cellKey(p.x, p.y))
    if (other && other.id !== e.id) {
      planning.report(
        row,
        `parcel ${p.x},${p.y} is also in estate ${other.id} at ${other.row.file}:${other.row.line}`,
      )
    } else planning.estateOfCell.set(cellKey(p.x, p.y), { id: e.id, row })
  }
  planning.plan.estates.push({
    id: e.id,
    owner: lower(e.owner ?? null),
    name: e.data?.name ?? '',
    description: e.data?.description ?? '',
    district_id: districtId,
    tx_hash: lower(e.tx_hash ?? null),
    last_transferred_at: e.last_transferred_at ? new Date(e.last_transferred_at).toISOString() : null,
    parcels: parcels?.map(({ x, y }) => ({ x, y })),
  })
}

/** A parcel row, checked against the ids it names and against the groups that list their parcels. */
function planParcel(
  planning: Planning,
  row: RawRow,
  p: ParcelImport,
  listingParcels: { estates: Set<string>; districts: Set<string> },
): void {
  const key = cellKey(p.x, p.y)
  if (p.id !== undefined && p.id !== key) {
    planning.report(row, `id "${p.id}" does not match x,y ${key}`)
    return
  }
  if (planning.duplicate(row, `parcel:${key}`, `parcel ${key}`)) return
  const districtId = lower(p.district_id ?? null)
  const estateId = p.estate_id ?? null
  const listedEstate = planning.estateOfCell.get(key)
  const listedDistrict = planning.districtOfCell.get(key)
  const problems = [
    districtId !== null && !planning.districtIds.has(districtId) && `unknown district_id ${districtId}`,
    estateId !== null && !planning.estateIds.has(estateId) && `unknown estate_id ${estateId}`,
    listedEstate &&
      p.estate_id !== undefined &&
      listedEstate.id !== estateId &&
      `estate_id ${estateId} contradicts estate ${listedEstate.id} at ${listedEstate.row.file}:${listedEstate.row.line}`,
    estateId !== null &&
      !listedEstate &&
      listingParcels.estates.has(estateId) &&
      `estate_id ${estateId}: that estate's row lists its parcels and this one is not among them`,
    districtId !== null &&
      !listedDistrict &&
      listingParcels.districts.has(districtId) &&
      `district_id ${districtId}: that district's row lists its parcels and this one is not among them`,
    listedDistrict &&
      p.district_id !== undefined &&
      listedDistrict.id !== districtId &&
      `district_id ${districtId} contradicts district ${listedDistrict.id} at ${listedDistrict.row.file}:${listedDistrict.row.line}`,
  ].filter((problem): problem is string => typeof problem === 'string')
  for (const problem of problems) planning.report(row, problem)
  if (problems.length > 0) return
  planning.plan.parcels.push({
    x: p.x,
    y: p.y,
    owner: lower(p.owner ?? null),
    district_id: listedDistrict?.id ?? districtId,
    estate_id: listedEstate?.id ?? estateId,
    data_version: p.data?.version ?? 0,
    name: p.data?.name ?? '',
    description: p.data?.description ?? '',
    ipns: p.data?.ipns ?? '',
    auction_price: p.auction_price ?? null,
    auction_owner: lower(p.auction_owner ?? null),
    last_transferred_at: p.last_transferred_at ? new Date(p.last_transferred_at).toISOString() : null,
  })
}

function planPublication(planning: Planning, row: RawRow, p: PublicationImport): void {
  const txHash = p.tx_hash.toLowerCase()
  if (planning.duplicate(row, `publication:${txHash}`, `publication ${txHash}`)) return
  if (p.type === 'parcel') {
    try {
      parseCoordinate(p.asset_id, 'asset_id')
    } catch (error) {
      planning.report(row, (error as Error).message)
      return
    }
  } else if (!planning.estateIds.has(p.asset_id)) {
    planning.report(row, `unknown estate ${p.asset_id} (asset_id)`)
    return
  }
  const assetId = p.type === 'parcel' ? cellKey(...parseXY(p.asset_id)) : p.asset_id
  planning.plan.publications.push({
    tx_hash: txHash,
    tx_status: p.tx_status ?? 'confirmed',
    owner: p.owner.toLowerCase(),
    price: p.price,
    status: p.status,
    buyer: lower(p.buyer ?? null),
    contract_id: p.contract_id,
    block_number: p.block_number,
    expires_at: p.expires_at,
    block_time_created_at: p.block_time_created_at,
    block_time_updated_at: p.block_time_updated_at ?? null,
    type: p.type,
    asset_id: assetId,
    marketplace_id: p.marketplace_id,
  })
}

function planContribution(planning: Planning, row: RawRow, c: ContributionImport): void {
  const districtId = c.district_id.toLowerCase()
  if (!planning.districtIds.has(districtId)) {
    planning.report(row, `unknown district_id ${districtId}`)
    return
  }
  planning.plan.contributions.push({
    address: c.address.toLowerCase(),
    district_id: districtId,
    land_count: Number(c.land_count),
  })
}

/** One schema error in words: the field, the value given, and what was expected (unions unfolded). */
function explain(error: ValueError): string {
  const field = error.path || '(row)'
  const given = error.value === undefined ? '' : ` ${JSON.stringify(error.value)?.slice(0, 80)}:`
  const variants = (error.schema as TSchema & { anyOf?: TSchema[] }).anyOf
  if (variants) {
    const nullable = variants.some((v) => v.type === 'null')
    const others = variants.filter((v) => v.type !== 'null')
    const constants = others.map((v) => v.const as unknown).filter((c) => c !== undefined)
    if (constants.length === others.length && constants.length > 0) {
      return `${field}${given} expected one of ${constants.join(', ')}`
    }
    const inner = others.length === 1 ? Value.Errors(others[0] as TSchema, error.value).First() : undefined
    if (inner) return `${field}${given} ${inner.message}${nullable ? ' (or null)' : ''}`
  }
  return `${field}${given} ${error.message}`
}

/** `"007,-3"` → [7, -3], so that asset ids are stored in one canonical form. */
function parseXY(assetId: string): [number, number] {
  const { x, y } = parseCoordinate(assetId, 'asset_id')
  return [x, y]
}
