import type { TSchema } from '@sinclair/typebox'
import { Value, type ValueError } from '@sinclair/typebox/value'
import { parseCoordinate } from '../domain/coordinates.js'
import type { DistrictRecord, ParcelRecord, PublicationRecord } from '../grid/records.js'
import '../schemas/formats.js'
import {
  type ContributionImport,
  type DistrictImport,
  type EstateImport,
  IMPORT_KINDS,
  importSchemas,
  type ParcelImport,
  type PublicationImport,
} from '../schemas/import.js'
import type { ImportProblem, RawRow } from './read.js'

export interface EstateWrite {
  id: string
  owner: string | null
  name: string
  description: string
  district_id: string | null
  tx_hash: string | null
  last_transferred_at: string | null
  /** When given, exactly these parcels form the estate. */
  parcels: Array<{ x: number; y: number }> | undefined
}

export interface DistrictWrite extends DistrictRecord {
  parcels: Array<{ x: number; y: number }> | undefined
}

/** What the import writes, normalised (addresses lower-case) and checked across rows. */
export interface ImportPlan {
  districts: DistrictWrite[]
  estates: EstateWrite[]
  parcels: ParcelRecord[]
  publications: PublicationRecord[]
  contributions: Array<{ address: string; district_id: string; land_count: number }>
}

/** Ids that already exist in the database, for reference checks. */
export interface Existing {
  districtIds: Set<string>
  estateIds: Set<string>
}

const lower = <T extends string | null | undefined>(value: T): T =>
  (typeof value === 'string' ? value.toLowerCase() : value) as T
const cellKey = (x: number, y: number) => `${x},${y}`

export function planImport(rows: RawRow[], existing: Existing, problems: ImportProblem[]): ImportPlan {
  const plan: ImportPlan = { districts: [], estates: [], parcels: [], publications: [], contributions: [] }
  const report = (row: RawRow, message: string) => problems.push({ file: row.file, line: row.line, message })
  const valid: Array<{ row: RawRow; kind: (typeof IMPORT_KINDS)[number] }> = []

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

  // Every id defined by this import, first occurrence wins; later ones are duplicates.
  const firstLine = new Map<string, RawRow>()
  const duplicate = (row: RawRow, key: string, label: string) => {
    const first = firstLine.get(key)
    if (first) {
      report(row, `duplicate ${label}: already given at ${first.file}:${first.line}`)
      return true
    }
    firstLine.set(key, row)
    return false
  }
  const districtIds = new Set(existing.districtIds)
  const estateIds = new Set(existing.estateIds)
  for (const { row, kind } of valid) {
    const value = row.value as { id?: string }
    if (kind === 'districts') districtIds.add(lower(value.id as string))
    if (kind === 'estates') estateIds.add(value.id as string)
  }
  // Which estate / district each parcel is given to by estate and district rows.
  const estateOfCell = new Map<string, { id: string; row: RawRow }>()
  const districtOfCell = new Map<string, { id: string; row: RawRow }>()

  for (const { row, kind } of valid) {
    if (kind !== 'districts' && kind !== 'estates') continue
    if (kind === 'districts') {
      const d = row.value as DistrictImport
      const id = d.id.toLowerCase()
      if (duplicate(row, `district:${id}`, `district ${id}`)) continue
      let parcels: Array<{ x: number; y: number }> | undefined
      if (d.parcels) {
        parcels = []
        for (const text of d.parcels) {
          let cell: { x: number; y: number }
          try {
            cell = parseCoordinate(text, 'parcels')
          } catch (error) {
            report(row, (error as Error).message)
            continue
          }
          const other = districtOfCell.get(cellKey(cell.x, cell.y))
          if (other && other.id !== id) {
            report(
              row,
              `parcel ${text} is also given to district ${other.id} at ${other.row.file}:${other.row.line}`,
            )
            continue
          }
          districtOfCell.set(cellKey(cell.x, cell.y), { id, row })
          parcels.push(cell)
        }
      }
      plan.districts.push({
        id,
        name: d.name,
        description: d.description ?? '',
        link: d.link ?? '',
        public: d.public ?? false,
        parcels,
      })
    } else {
      const e = row.value as EstateImport
      if (duplicate(row, `estate:${e.id}`, `estate ${e.id}`)) continue
      const districtId = lower(e.district_id ?? null)
      if (districtId !== null && !districtIds.has(districtId))
        report(row, `unknown district_id ${districtId}`)
      const parcels = e.data?.parcels
      for (const p of parcels ?? []) {
        const other = estateOfCell.get(cellKey(p.x, p.y))
        if (other && other.id !== e.id) {
          report(
            row,
            `parcel ${p.x},${p.y} is also in estate ${other.id} at ${other.row.file}:${other.row.line}`,
          )
        } else estateOfCell.set(cellKey(p.x, p.y), { id: e.id, row })
      }
      plan.estates.push({
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
  }

  const estatesWithParcels = new Set(plan.estates.filter((e) => e.parcels).map((e) => e.id))
  const districtsWithParcels = new Set(plan.districts.filter((d) => d.parcels).map((d) => d.id))
  for (const { row, kind } of valid) {
    if (kind === 'parcels') {
      const p = row.value as ParcelImport
      if (p.id !== undefined && p.id !== cellKey(p.x, p.y)) {
        report(row, `id "${p.id}" does not match x,y ${cellKey(p.x, p.y)}`)
        continue
      }
      if (duplicate(row, `parcel:${cellKey(p.x, p.y)}`, `parcel ${cellKey(p.x, p.y)}`)) continue
      const districtId = lower(p.district_id ?? null)
      const estateId = p.estate_id ?? null
      let bad = false
      if (districtId !== null && !districtIds.has(districtId)) {
        report(row, `unknown district_id ${districtId}`)
        bad = true
      }
      if (estateId !== null && !estateIds.has(estateId)) {
        report(row, `unknown estate_id ${estateId}`)
        bad = true
      }
      const listedEstate = estateOfCell.get(cellKey(p.x, p.y))
      if (listedEstate && p.estate_id !== undefined && listedEstate.id !== estateId) {
        report(
          row,
          `estate_id ${estateId} contradicts estate ${listedEstate.id} at ${listedEstate.row.file}:${listedEstate.row.line}`,
        )
        bad = true
      }
      if (estateId !== null && !listedEstate && estatesWithParcels.has(estateId)) {
        report(
          row,
          `estate_id ${estateId}: that estate's row lists its parcels and this one is not among them`,
        )
        bad = true
      }
      const listedDistrict = districtOfCell.get(cellKey(p.x, p.y))
      if (districtId !== null && !listedDistrict && districtsWithParcels.has(districtId)) {
        report(
          row,
          `district_id ${districtId}: that district's row lists its parcels and this one is not among them`,
        )
        bad = true
      }
      if (listedDistrict && p.district_id !== undefined && listedDistrict.id !== districtId) {
        report(
          row,
          `district_id ${districtId} contradicts district ${listedDistrict.id} at ${listedDistrict.row.file}:${listedDistrict.row.line}`,
        )
        bad = true
      }
      if (bad) continue
      plan.parcels.push({
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
    } else if (kind === 'publications') {
      const p = row.value as PublicationImport
      const txHash = p.tx_hash.toLowerCase()
      if (duplicate(row, `publication:${txHash}`, `publication ${txHash}`)) continue
      if (p.type === 'parcel') {
        try {
          parseCoordinate(p.asset_id, 'asset_id')
        } catch (error) {
          report(row, (error as Error).message)
          continue
        }
      } else if (!estateIds.has(p.asset_id)) {
        report(row, `unknown estate ${p.asset_id} (asset_id)`)
        continue
      }
      const assetId = p.type === 'parcel' ? cellKey(...parseXY(p.asset_id)) : p.asset_id
      plan.publications.push({
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
    } else if (kind === 'contributions') {
      const c = row.value as ContributionImport
      const districtId = c.district_id.toLowerCase()
      if (!districtIds.has(districtId)) {
        report(row, `unknown district_id ${districtId}`)
        continue
      }
      plan.contributions.push({
        address: c.address.toLowerCase(),
        district_id: districtId,
        land_count: Number(c.land_count),
      })
    }
  }
  return plan
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
