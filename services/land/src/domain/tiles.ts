/**
 * What kind of land a cell is, one code per cell: the grid computes it from the data, the renderer paints
 * by it and the atlas names it. Codes 0..4 in this order (the renderer's paint codes continue after them).
 */
export const TILE_UNOWNED = 0
export const TILE_OWNED = 1
export const TILE_DISTRICT = 2
export const TILE_ROAD = 3
export const TILE_PLAZA = 4
