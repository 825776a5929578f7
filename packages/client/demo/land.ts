/** Land: districts, parcels, listings, owners and the map, all public reads. */
import { check, type Demo, short } from './demo.js'

export async function landFlow({ options, base, section, step }: Demo): Promise<void> {
  section(`Land (${options.urls.land})`)
  const districts = await step(
    'districts',
    () => base.land.districts(),
    (list) => {
      check(list.length > 0, 'expected districts (land seeds Genesis City on the embedded default)')
      return `${list.length}, e.g. "${list[0]!.name}" (${list[0]!.parcel_count} parcels)`
    },
  )
  const [cx, cy] = districts[0]!.center.split(',').map(Number) as [number, number]
  await step(
    `the parcel at ${cx},${cy}`,
    () => base.land.parcel(cx, cy),
    (p) => {
      check(p.x === cx && p.y === cy && p.district_id === districts[0]!.id, 'expected the district’s centre')
      return `district ${p.district_id}, owner ${p.owner ?? 'none'}`
    },
  )
  const onSale = await step(
    'parcels on sale, cheapest first',
    () => base.land.parcels({ sort_by: 'price', limit: 3 }),
    (page) => {
      check(
        page.total > 0 && page.items.every((p) => p.publication?.status === 'open'),
        'expected open listings',
      )
      return `${page.total} on sale; ${page.items.map((p) => `${p.id} for ${p.publication!.price}`).join(', ')}`
    },
  )
  const listed = onSale.items[0]!
  await step(
    'a listing by its transaction hash',
    () => base.land.publication(listed.publication!.tx_hash),
    (p) => {
      check(p.asset_id === listed.id, 'expected the listing of that parcel')
      return `${p.type} ${p.asset_id}, ${p.price} MANA, seller ${short(p.owner)}`
    },
  )
  await step(
    'what the seller owns',
    () => base.land.parcelsOf(listed.publication!.owner, { limit: 5 }),
    (page) => {
      check(page.total > 0, 'expected at least the parcel on sale')
      return `${short(listed.publication!.owner)} owns ${page.total} parcels`
    },
  )
  await step(
    'the map around 0,0',
    () => base.land.map('-2,2', '2,-2'),
    (m) => {
      check(m.total > 0, 'expected assets in the rectangle')
      return `${m.assets.parcels.length} parcels and ${m.assets.estates.length} estates; PNG ${base.land.mapImageUrl({ center: '0,0', width: 300, height: 300 })}`
    },
  )
}
