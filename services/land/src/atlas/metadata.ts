import { encodeTokenId } from '@genesis/contracts/land'
import type { MetadataAttribute, ParcelTags, TokenMetadata } from '@genesis/wire/land'
import { cellIndex } from '../domain/geometry.js'
import type { GridView } from '../grid/view.js'

// atlas-server's image size for token metadata.
const IMAGE_QUERY = 'size=24&width=1024&height=1024'
const BACKGROUND = '000000'
// The explorer's zoom for a link to one asset.
const EXPLORER_ZOOM = 16

const number = (trait_type: string, value: number): MetadataAttribute => ({
  trait_type,
  value,
  display_type: 'number',
})

/** `Distance to Road` / `Distance to Plaza`: the least over the parcels, omitted when none is near. */
function distanceAttributes(tags: ParcelTags[]): MetadataAttribute[] {
  let road: number | undefined
  let plaza: number | undefined
  for (const { proximity } of tags) {
    if (proximity?.road) road = Math.min(road ?? Number.POSITIVE_INFINITY, proximity.road.distance)
    if (proximity?.plaza) plaza = Math.min(plaza ?? Number.POSITIVE_INFINITY, proximity.plaza.distance)
  }
  const out: MetadataAttribute[] = []
  if (road !== undefined) out.push(number('Distance to Road', road))
  if (plaza !== undefined) out.push(number('Distance to Plaza', plaza))
  return out
}

export function parcelMetadata(view: GridView, x: number, y: number, baseUrl: string): TokenMetadata {
  const i = cellIndex(x, y)
  const cell = view.data.cells[i]!
  return {
    id: encodeTokenId(x, y).toString(),
    name: cell.name || `Parcel ${x},${y}`,
    description: cell.description,
    image: `${baseUrl}/v2/parcels/${x}/${y}/map.png?${IMAGE_QUERY}`,
    external_url: `${baseUrl}/#c=${x},${y}&z=${EXPLORER_ZOOM}&p=${x},${y}`,
    attributes: [number('X', x), number('Y', y), ...distanceAttributes([view.data.tags[i]!])],
    background_color: BACKGROUND,
  }
}

/** undefined for an unknown estate; an estate with no parcels left answers with Size 0. */
export function estateMetadata(view: GridView, id: string, baseUrl: string): TokenMetadata | undefined {
  const estate = view.data.estates.get(id)
  if (!estate) return undefined
  const tags = estate.parcels.map((p) => view.data.tags[cellIndex(p.x, p.y)]!)
  const first = estate.parcels[0]
  const link = first ? `#c=${first.x},${first.y}&z=${EXPLORER_ZOOM}&p=${first.x},${first.y}` : ''
  return {
    id,
    name: estate.name || `Estate ${id}`,
    description: estate.description,
    image: `${baseUrl}/v2/estates/${id}/map.png?${IMAGE_QUERY}`,
    external_url: `${baseUrl}/${link}`,
    attributes: [number('Size', estate.parcels.length), ...distanceAttributes(tags)],
    background_color: BACKGROUND,
  }
}
