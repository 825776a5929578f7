// Genesis City land explorer: the map is tiled from the service's own /v1/map.png, the details come from
// its JSON routes. No framework, no build step; the view lives in the URL hash so it can be shared.

const API = '/v1'
const GRID = 150
/**
 * Pixels per parcel at each zoom step. The PNG routes draw 5…40; the steps below 5, where the whole city
 * fits on a screen, show tiles drawn at 5 and scaled down.
 */
const ZOOMS = [1, 2, 3, 4, 5, 6, 8, 10, 13, 16, 20, 25, 32, 40]
const MIN_PNG_SIZE = 5
const DEFAULT_ZOOM = 10
/** About this many pixels a side per tile: few requests, each well under the 15,000-parcel limit. */
const TILE_TARGET_PX = 512
const DRAG_THRESHOLD_PX = 4
const WHEEL_STEP = 100
const MAX_TILE_RETRIES = 6

const $ = (id) => document.getElementById(id)
const mapEl = $('map')
const layersEl = $('layers')
const pointerEl = $('pointer')
// Focusable, so the arrow and +/- keys reach it.
mapEl.tabIndex = 0

const state = {
  cx: 0,
  cy: 0,
  zoom: ZOOMS.indexOf(DEFAULT_ZOOM),
  onSale: false,
  selected: null,
  selection: [],
}

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v))
const size = () => ZOOMS[state.zoom]
const inGrid = (x, y) => Math.abs(x) <= GRID && Math.abs(y) <= GRID

/**
 * Tiles are square images of an odd number of parcels, centred on a parcel, so the renderer puts every
 * parcel on whole pixels and neighbouring tiles join without seams.
 */
function tileParcels(s) {
  const n = Math.floor(TILE_TARGET_PX / s)
  return n % 2 === 1 ? n : n - 1
}

/** The map's pixel origin: where the left/top edge of parcel 0,0 lands, on whole pixels. */
function origin(s = size()) {
  return {
    ox: Math.round(mapEl.clientWidth / 2 - state.cx * s - s / 2),
    oy: Math.round(mapEl.clientHeight / 2 + state.cy * s - s / 2),
  }
}

/** The parcel under a point of the map element. */
function parcelAt(px, py) {
  const s = size()
  const { ox, oy } = origin(s)
  return { x: Math.floor((px - ox) / s), y: -Math.floor((py - oy) / s) }
}

// ---- tile layers ------------------------------------------------------------------------------------

function newLayer(s) {
  const el = document.createElement('div')
  // Tiles shown smaller than drawn are smoothed rather than sampled (see explorer.css).
  el.className = s < MIN_PNG_SIZE ? 'layer scaled' : 'layer'
  layersEl.append(el)
  return { el, size: s, tiles: new Map() }
}

let layer = newLayer(size())
/** The previous zoom's layer, scaled, shown until the new tiles have arrived. */
let backdrop = null
const pending = new Set()

function settle(img) {
  pending.delete(img)
  mapEl.setAttribute('aria-busy', String(pending.size > 0))
  if (pending.size === 0 && backdrop) {
    backdrop.el.remove()
    backdrop = null
  }
}

function loadTile(entry, img, url, tries = 0) {
  img.onload = () => {
    if (entry.img === img) {
      for (const old of entry.stale) old.remove()
      entry.stale = []
    }
    settle(img)
  }
  img.onerror = () => {
    // 503 while the service builds its index: try again, a little later each time.
    if (tries < MAX_TILE_RETRIES && img.isConnected) {
      setTimeout(() => loadTile(entry, img, url, tries + 1), 500 * 2 ** tries)
    } else settle(img)
  }
  img.src = tries === 0 ? url : `${url}&retry=${tries}`
}

function placeTile(pos, url, left, top, px) {
  const entry = layer.tiles.get(pos) ?? { url: '', img: null, stale: [] }
  if (entry.url === url) return
  const img = document.createElement('img')
  img.alt = ''
  img.draggable = false
  img.width = px
  img.height = px
  img.style.left = `${left}px`
  img.style.top = `${top}px`
  // A changed tile (selection, on-sale) stays until its replacement is drawn, so nothing flashes.
  if (entry.img) entry.stale.push(entry.img)
  entry.url = url
  entry.img = img
  layer.tiles.set(pos, entry)
  layer.el.append(img)
  pending.add(img)
  mapEl.setAttribute('aria-busy', 'true')
  loadTile(entry, img, url)
}

function dropTile(pos, entry) {
  for (const img of [entry.img, ...entry.stale]) {
    img.remove()
    settle(img)
  }
  layer.tiles.delete(pos)
}

/** The pixels per parcel a tile is drawn at for a view at `s` (it is scaled to `s` on screen). */
const drawnSize = (s) => Math.max(s, MIN_PNG_SIZE)

function tileUrl(s, n, tcx, tcy) {
  const h = (n - 1) / 2
  // Only the selected parcels this tile draws (its renderer also draws one column and row beyond).
  const selected = state.selection
    .filter((c) => Math.abs(c.x - tcx) <= h + 1 && Math.abs(c.y - tcy) <= h + 1)
    .map((c) => `${c.x},${c.y}`)
    .join(';')
  const d = drawnSize(s)
  let url = `${API}/map.png?width=${n * d}&height=${n * d}&size=${d}&center=${tcx},${tcy}`
  if (state.onSale) url += '&publications=true'
  if (selected) url += `&selected=${selected}`
  // A new block indexed from the chain changes the URL, so the tiles are fetched again (not the cached ones).
  if (dataVersion) url += `&v=${dataVersion}`
  return url
}

function render() {
  const s = size()
  if (layer.size !== s) {
    backdrop?.el.remove()
    for (const img of pending) pending.delete(img)
    backdrop = layer
    layer = newLayer(s)
  }
  const { ox, oy } = origin(s)
  layer.el.style.transform = `translate(${ox}px, ${oy}px)`
  // Outside the grid the PNGs draw a checkerboard of parcels; the map's own background continues it.
  mapEl.style.backgroundSize = `${2 * s}px ${2 * s}px`
  mapEl.style.backgroundPosition = `${ox}px ${oy}px`
  if (backdrop) backdrop.el.style.transform = `translate(${ox}px, ${oy}px) scale(${s / backdrop.size})`

  const n = tileParcels(drawnSize(s))
  const h = (n - 1) / 2
  const halfW = mapEl.clientWidth / 2 / s + 1
  const halfH = mapEl.clientHeight / 2 / s + 1
  const range = (c, half) => [
    Math.max(Math.round((c - half) / n), Math.ceil((-GRID - h) / n)),
    Math.min(Math.round((c + half) / n), Math.floor((GRID + h) / n)),
  ]
  const [i0, i1] = range(state.cx, halfW)
  const [j0, j1] = range(state.cy, halfH)
  const wanted = new Set()
  for (let j = j1; j >= j0; j--) {
    for (let i = i0; i <= i1; i++) {
      // Edge tiles are centred inside the grid (the routes' rule) and overlap their neighbour instead.
      const tcx = clamp(i * n, -GRID, GRID)
      const tcy = clamp(j * n, -GRID, GRID)
      const pos = `${tcx},${tcy}`
      if (wanted.has(pos)) continue
      wanted.add(pos)
      placeTile(pos, tileUrl(s, n, tcx, tcy), (tcx - h) * s, -(tcy + h) * s, n * s)
    }
  }
  for (const [pos, entry] of layer.tiles) if (!wanted.has(pos)) dropTile(pos, entry)
  mapEl.setAttribute('aria-busy', String(pending.size > 0))
  scheduleHash()
}

// ---- the view in the URL hash: #c=x,y&z=size&sale=1&p=x,y ---------------------------------------------

let hashTimer = 0
let writtenHash = ''

function scheduleHash() {
  clearTimeout(hashTimer)
  hashTimer = setTimeout(writeHash, 150)
}

function writeHash() {
  const round = (v) => Math.round(v * 10) / 10
  const params = new URLSearchParams({ c: `${round(state.cx)},${round(state.cy)}`, z: String(size()) })
  if (state.onSale) params.set('sale', '1')
  if (state.selected) params.set('p', `${state.selected.x},${state.selected.y}`)
  writtenHash = `#${params.toString().replaceAll('%2C', ',')}`
  if (location.hash !== writtenHash) history.replaceState(null, '', writtenHash)
}

const parsePair = (text) => {
  const match = /^\s*(-?\d+(?:\.\d+)?)\s*[,\s]\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text ?? '')
  return match ? { x: Number(match[1]), y: Number(match[2]) } : null
}

function readHash() {
  const params = new URLSearchParams(location.hash.slice(1))
  const centre = parsePair(params.get('c'))
  if (centre) {
    state.cx = clamp(centre.x, -GRID, GRID)
    state.cy = clamp(centre.y, -GRID, GRID)
  }
  const z = Number(params.get('z'))
  if (z > 0) {
    const nearest = ZOOMS.reduce((best, v, i) => (Math.abs(v - z) < Math.abs(ZOOMS[best] - z) ? i : best), 0)
    state.zoom = nearest
  }
  state.onSale = params.get('sale') === '1'
  $('on-sale').checked = state.onSale
  const picked = parsePair(params.get('p'))
  return picked && Number.isInteger(picked.x) && Number.isInteger(picked.y) && inGrid(picked.x, picked.y)
    ? picked
    : null
}

// ---- details ----------------------------------------------------------------------------------------

async function getData(path) {
  const response = await fetch(`${API}${path}`, { headers: { accept: 'application/json' } })
  const body = await response.json().catch(() => null)
  if (!response.ok || !body?.ok) throw new Error(body?.error ?? `${response.status} ${response.statusText}`)
  return body.data
}

let districts = null
const loadDistricts = () => {
  districts ??= getData('/districts').then((list) => new Map(list.map((d) => [d.id, d])))
  return districts
}

const mana = (price) => `${Number(price).toLocaleString('en-US', { maximumFractionDigits: 2 })} MANA`
const day = (ms) => new Date(Number(ms)).toISOString().slice(0, 10)

/** Fills a <dd> with a main text and optional secondary lines, as text only (no markup from data). */
function field(name, text, ...subs) {
  const dd = document.querySelector(`#parcel [data-field="${name}"]`)
  dd.replaceChildren(document.createTextNode(text))
  for (const sub of subs.filter(Boolean)) {
    const span = document.createElement('span')
    span.className = 'sub'
    span.textContent = sub
    dd.append(span)
  }
  return dd
}

/** `1 parcel`, `2 parcels`, `1,234 parcels`. */
const count = (n, noun) => `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`

function proximityText(tags) {
  const near = tags?.proximity ?? {}
  const parts = Object.entries(near).map(([kind, { distance }]) =>
    distance === 0 ? `next to a ${kind}` : `${distance} parcel${distance === 1 ? '' : 's'} from a ${kind}`,
  )
  return parts.length ? parts.join(', ') : '—'
}

function showParcel(parcel, estate, district, ownedTotal) {
  const { x, y } = parcel
  $('parcel-title').textContent = parcel.data?.name || `Parcel ${x},${y}`
  $('parcel-description').textContent = parcel.data?.description || estate?.data?.description || ''
  field('coordinates', `${x},${y}`)
  const owner = field(
    'owner',
    parcel.owner ?? 'Nobody (unowned)',
    parcel.owner && ownedTotal !== null ? `owns ${count(ownedTotal, 'parcel')}` : '',
  )
  owner.classList.toggle('address', Boolean(parcel.owner))
  field('district', district?.name ?? '—')
  field(
    'estate',
    estate ? `${estate.data?.name || 'Estate'} (#${estate.id})` : '—',
    estate ? count(estate.size, 'parcel') : '',
  )
  const publication = parcel.publication ?? estate?.publication ?? null
  const price = field(
    'publication',
    publication ? mana(publication.price) : 'No',
    publication ? `until ${day(publication.expires_at)}` : '',
    publication && !parcel.publication ? 'the whole estate is listed' : '',
  )
  price.classList.toggle('price', Boolean(publication))
  field(
    'auction',
    parcel.auction_price == null ? '—' : mana(parcel.auction_price),
    parcel.auction_owner ? `won by ${parcel.auction_owner}` : '',
  )
  field('proximity', proximityText(parcel.tags))
  $('parcel-json').href = `${API}/parcels/${x}/${y}`
  $('parcel-png').href = `${API}/parcels/${x}/${y}/map.png?size=20&publications=true`
  const section = $('parcel')
  section.dataset.parcel = `${x},${y}`
  section.hidden = false
  $('intro').hidden = true
  $('details-error').hidden = true
}

let selection = 0

async function select(x, y, { centre = false } = {}) {
  const ticket = ++selection
  state.selected = { x, y }
  state.selection = [{ x, y }]
  if (centre) {
    state.cx = x
    state.cy = y
  }
  render()
  const details = $('details')
  details.setAttribute('aria-busy', 'true')
  try {
    const parcel = await getData(`/parcels/${x}/${y}`)
    const [estate, byId, ownedTotal] = await Promise.all([
      parcel.estate_id
        ? getData(`/map?nw=${x},${y}&se=${x},${y}`).then(
            (map) => map.assets.estates.find((e) => String(e.id) === String(parcel.estate_id)) ?? null,
          )
        : null,
      loadDistricts(),
      parcel.owner ? getData(`/addresses/${parcel.owner}/parcels?limit=1`).then((page) => page.total) : null,
    ])
    if (ticket !== selection) return
    if (estate) {
      // The whole estate is drawn selected, as in Decentraland's atlas.
      state.selection = estate.data.parcels.map((p) => ({ x: p.x, y: p.y }))
      render()
    }
    showParcel(parcel, estate, byId.get(parcel.district_id), ownedTotal)
  } catch (error) {
    if (ticket !== selection) return
    const message = $('details-error')
    message.textContent = `Could not load parcel ${x},${y}: ${error.message}`
    message.hidden = false
  } finally {
    if (ticket === selection) details.setAttribute('aria-busy', 'false')
  }
}

// ---- input ------------------------------------------------------------------------------------------

function zoomTo(index, px = mapEl.clientWidth / 2, py = mapEl.clientHeight / 2) {
  const next = clamp(index, 0, ZOOMS.length - 1)
  if (next === state.zoom) return
  // Keep the point under the cursor where it is.
  const before = size()
  const after = ZOOMS[next]
  const dx = px - mapEl.clientWidth / 2
  const dy = py - mapEl.clientHeight / 2
  state.cx = clamp(state.cx + dx / before - dx / after, -GRID, GRID)
  state.cy = clamp(state.cy - dy / before + dy / after, -GRID, GRID)
  state.zoom = next
  render()
}

function panBy(dxPx, dyPx) {
  const s = size()
  state.cx = clamp(state.cx - dxPx / s, -GRID, GRID)
  state.cy = clamp(state.cy + dyPx / s, -GRID, GRID)
  render()
}

let drag = null

mapEl.addEventListener('pointerdown', (event) => {
  if (event.button !== 0) return
  mapEl.setPointerCapture(event.pointerId)
  drag = {
    startX: event.clientX,
    startY: event.clientY,
    lastX: event.clientX,
    lastY: event.clientY,
    moved: false,
  }
})

mapEl.addEventListener('pointermove', (event) => {
  const box = mapEl.getBoundingClientRect()
  const under = parcelAt(event.clientX - box.left, event.clientY - box.top)
  pointerEl.textContent = inGrid(under.x, under.y) ? `${under.x},${under.y}` : ''
  if (!drag) return
  if (!drag.moved && Math.hypot(event.clientX - drag.startX, event.clientY - drag.startY) < DRAG_THRESHOLD_PX)
    return
  drag.moved = true
  mapEl.classList.add('dragging')
  panBy(event.clientX - drag.lastX, event.clientY - drag.lastY)
  drag.lastX = event.clientX
  drag.lastY = event.clientY
})

mapEl.addEventListener('pointerup', (event) => {
  if (!drag) return
  const { moved } = drag
  drag = null
  mapEl.classList.remove('dragging')
  if (moved) return
  const box = mapEl.getBoundingClientRect()
  const { x, y } = parcelAt(event.clientX - box.left, event.clientY - box.top)
  if (inGrid(x, y)) select(x, y)
})

mapEl.addEventListener('pointercancel', () => {
  drag = null
  mapEl.classList.remove('dragging')
})

mapEl.addEventListener('pointerleave', () => {
  pointerEl.textContent = ''
})

let wheel = 0
mapEl.addEventListener(
  'wheel',
  (event) => {
    event.preventDefault()
    // Lines and pages (deltaMode 1, 2) count as one step each; pixels add up to a step.
    wheel += event.deltaMode === 0 ? event.deltaY : Math.sign(event.deltaY) * WHEEL_STEP
    if (Math.abs(wheel) < WHEEL_STEP) return
    const box = mapEl.getBoundingClientRect()
    zoomTo(state.zoom - Math.sign(wheel), event.clientX - box.left, event.clientY - box.top)
    wheel = 0
  },
  { passive: false },
)

mapEl.addEventListener('keydown', (event) => {
  const step = 100
  const moves = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] }
  if (moves[event.key]) panBy(...moves[event.key])
  else if (event.key === '+' || event.key === '=') zoomTo(state.zoom + 1)
  else if (event.key === '-' || event.key === '_') zoomTo(state.zoom - 1)
  else return
  event.preventDefault()
})

$('zoom-in').addEventListener('click', () => zoomTo(state.zoom + 1))
$('zoom-out').addEventListener('click', () => zoomTo(state.zoom - 1))

$('on-sale').addEventListener('change', (event) => {
  state.onSale = event.target.checked
  render()
})

$('search').addEventListener('submit', (event) => {
  event.preventDefault()
  const input = $('search-input')
  const error = $('search-error')
  const target = parsePair(input.value)
  const valid =
    target && Number.isInteger(target.x) && Number.isInteger(target.y) && inGrid(target.x, target.y)
  input.setAttribute('aria-invalid', String(!valid))
  if (!valid) {
    error.textContent = `Type x,y: two integers from ${-GRID} to ${GRID}`
    return
  }
  error.textContent = ''
  select(target.x, target.y, { centre: true })
})

window.addEventListener('hashchange', () => {
  if (location.hash === writtenHash) return
  const picked = readHash()
  render()
  if (picked) select(picked.x, picked.y)
})

new ResizeObserver(() => render()).observe(mapEl)

// ---- following the chain: when /status says the data moved, redraw and refresh the details ------------

/** The indexed block's hash (its first 12 digits), 'none' while the index is empty; null before the first look. */
let dataVersion = null

async function watchStatus() {
  try {
    const status = await getData('/status')
    if (status.source !== 'chain') return // seed or import data only changes on a reload
    // The block this replica's index answers with, not the writer's newest: asked for before the index has
    // read it, a tile or a parcel would be the old data under the new version. An emptied index (a
    // restarted chain, indexed again) is a version too: the tiles drawn before it are of a chain that is
    // gone, and the next block must redraw them.
    const version = status.served_block_hash ? status.served_block_hash.slice(2, 14) : 'none'
    if (version !== dataVersion) {
      const first = dataVersion === null
      dataVersion = version
      if (!first) {
        render()
        if (state.selected) select(state.selected.x, state.selected.y)
      }
    }
  } catch {
    // the next look will tell
  }
  setTimeout(watchStatus, 2000)
}

const picked = readHash()
render()
if (picked) select(picked.x, picked.y)
watchStatus()
loadDistricts().catch(() => {
  districts = null
})
