/// <reference lib="dom" />
// The Atlas view: Decentraland's map component (react-tile-map, what decentraland-ui's Atlas is built on)
// fed by this service's /v2/tiles, coloured as decentraland-ui's Atlas colours each tile type.
import { createElement, useEffect, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { type Layer, TileMap } from 'react-tile-map'
import 'react-tile-map/dist/styles.css'
import { ATLAS_COLORS } from './colors.js'
import './page.css'

/** The one line a front-end changes to read Genesis City: where the tiles come from. */
const TILES_URL = '/v2/tiles'

interface AtlasTile {
  type: 'owned' | 'unowned' | 'plaza' | 'road' | 'district'
  top: boolean
  left: boolean
  topLeft: boolean
  price?: number
}

const query = new URLSearchParams(location.search)
const number = (name: string, fallback: number) => {
  const value = Number(query.get(name))
  return query.has(name) && Number.isFinite(value) ? value : fallback
}
const center = { x: number('x', 0), y: number('y', 0) }
const size = number('size', 10)
const showOnSale = query.get('sale') === '1'

function Atlas() {
  const [tiles, setTiles] = useState<Record<string, AtlasTile> | undefined>()
  const [error, setError] = useState<string | undefined>()
  useEffect(() => {
    fetch(TILES_URL)
      .then((response) => response.json() as Promise<{ ok: boolean; data: Record<string, AtlasTile> }>)
      .then((body) => setTiles(body.data))
      .catch((e: Error) => setError(e.message))
  }, [])
  useEffect(() => {
    // Tests and people alike can tell when the map is drawn.
    document.body.dataset.tiles = tiles ? String(Object.keys(tiles).length) : ''
  }, [tiles])

  const base: Layer = (x, y) => {
    const tile = tiles?.[`${x},${y}`]
    if (!tile) return { color: (x + y) % 2 === 0 ? ATLAS_COLORS.loadingOdd : ATLAS_COLORS.loadingEven }
    return { color: ATLAS_COLORS[tile.type], top: tile.top, left: tile.left, topLeft: tile.topLeft }
  }
  const onSale: Layer = (x, y) => {
    const tile = tiles?.[`${x},${y}`]
    if (tile?.price === undefined) return null
    const listed = (dx: number, dy: number) => tiles?.[`${x + dx},${y + dy}`]?.price !== undefined
    return {
      color: ATLAS_COLORS.onSale,
      top: tile.top && listed(0, 1),
      left: tile.left && listed(-1, 0),
      topLeft: tile.topLeft && listed(-1, 1),
    }
  }
  if (error) return createElement('p', { className: 'error' }, `Could not load ${TILES_URL}: ${error}`)
  return createElement(TileMap, {
    // As decentraland-ui's Atlas does: the component's defaults, then ours.
    ...TileMap.defaultProps,
    className: 'atlas',
    layers: showOnSale ? [base, onSale] : [base],
    x: center.x,
    y: center.y,
    initialX: center.x,
    initialY: center.y,
    size,
    zoom: 1,
    minSize: 5,
    maxSize: 40,
    isDraggable: true,
    withZoomControls: true,
  })
}

const root = document.getElementById('atlas')
if (root) createRoot(root).render(createElement(Atlas))
