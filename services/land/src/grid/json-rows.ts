import { GRID_MIN } from '../domain/geometry.js'

/**
 * The JSON of the cells of one row of the grid (west to east), side by side with a comma between each,
 * in one buffer, and where each starts. Any run of neighbours is then one slice: a rectangle's answer is
 * one slice per row, made without copying a byte.
 */
export interface JsonRow {
  bytes: Buffer
  /** starts[c] is where cell c's JSON begins; starts[GRID_SIZE] is the row's length plus one (a last comma). */
  starts: Uint32Array
}

/**
 * One row's items in one buffer, written in place: one allocation per row rather than one per cell (many
 * small buffers freed soon after leave the process's memory full of holes it never gives back). An item
 * is JSON text, or the bytes of JSON an earlier row holds.
 */
export function jsonRow(items: ReadonlyArray<string | Buffer>): JsonRow {
  const starts = new Uint32Array(items.length + 1)
  let at = 0
  for (let c = 0; c < items.length; c++) {
    starts[c] = at
    const item = items[c]!
    at += (typeof item === 'string' ? Buffer.byteLength(item) : item.length) + 1
  }
  starts[items.length] = at
  const bytes = Buffer.allocUnsafeSlow(Math.max(0, at - 1))
  for (let c = 0; c < items.length; c++) {
    const item = items[c]!
    const start = starts[c]!
    if (typeof item === 'string') bytes.write(item, start)
    else bytes.set(item, start)
    if (c + 1 < items.length) bytes[starts[c + 1]! - 1] = 0x2c // ','
  }
  return { bytes, starts }
}

/** The JSON of cells `fromX`..`toX` of the row, commas between them. */
export function rowSlice(row: JsonRow, fromX: number, toX: number): Buffer {
  return row.bytes.subarray(row.starts[fromX - GRID_MIN], row.starts[toX - GRID_MIN + 1]! - 1)
}

export const COMMA = Buffer.from(',')

/** A rectangle of the grid, bounds included. */
export interface Rect {
  minX: number
  minY: number
  maxX: number
  maxY: number
}

export const cellsOf = (rect: Rect) =>
  rect.maxX < rect.minX || rect.maxY < rect.minY
    ? 0
    : (rect.maxX - rect.minX + 1) * (rect.maxY - rect.minY + 1)

/** Rows of the grid built in one go before yielding to the event loop. */
export const ROWS_PER_SLICE = 8

export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * The rectangle's cells, north to south and west to east, comma-separated: one slice per row from
 * `slice(y)`. `built`: the slices are made here rather than taken from buffers made before, so the work
 * yields to the event loop every few rows (a large rectangle is tens of megabytes of JSON).
 */
export async function rectSlices(
  rect: Rect,
  slice: (y: number) => Buffer,
  built: boolean,
): Promise<Buffer[]> {
  const out: Buffer[] = []
  if (cellsOf(rect) === 0) return out
  for (let y = rect.maxY; y >= rect.minY; y--) {
    if (out.length > 0) out.push(COMMA)
    out.push(slice(y))
    if (built && (rect.maxY - y) % ROWS_PER_SLICE === ROWS_PER_SLICE - 1) await yieldToLoop()
  }
  return out
}
