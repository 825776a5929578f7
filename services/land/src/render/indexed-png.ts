import { promisify } from 'node:util'
import { crc32, deflate } from 'node:zlib'

const deflateAsync = promisify(deflate)

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const COLOR_TYPE_INDEXED = 3

/**
 * Level 6 (zlib's default): on long runs of one palette index it does little more work than level 1,
 * and keeps the images as small as the RGBA encoder made them.
 */
const DEFLATE_LEVEL = 6

/**
 * One pixel per byte, each a palette index, row by row from the top-left corner; each row starts with
 * its PNG filter byte (0, "none"), so the buffer is the PNG's image data as it is compressed, no copy.
 */
export interface IndexedImage {
  width: number
  height: number
  /** (width + 1) × height bytes. */
  rows: Buffer
}

/** The bytes of an image's rows. */
export const imageBytes = (width: number, height: number) => (width + 1) * height

/** An image of background (index 0, and filter 0 on every row), in `scratch` when given. */
export function blankImage(width: number, height: number, scratch?: Buffer): IndexedImage {
  const bytes = imageBytes(width, height)
  const rows = scratch ? scratch.subarray(0, bytes).fill(0) : Buffer.alloc(bytes)
  return { width, height, rows }
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(12 + data.length)
  out.writeUInt32BE(data.length, 0)
  out.write(type, 4, 'latin1')
  out.set(data, 8)
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length)
  return out
}

/** `#rrggbb` colours as a PLTE payload. */
export function paletteBytes(colors: readonly string[]): Buffer {
  const out = Buffer.alloc(colors.length * 3)
  for (const [i, color] of colors.entries()) out.write(color.slice(1), i * 3, 'hex')
  return out
}

/** A PNG of 8-bit samples: the header, the chunks `before` the image data (a palette), the rows deflated. */
async function encodePng(
  width: number,
  height: number,
  colorType: number,
  rows: Buffer,
  before: Buffer[] = [],
): Promise<Buffer> {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8
  header[9] = colorType
  const idat = await deflateAsync(rows, { level: DEFLATE_LEVEL })
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    ...before,
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/**
 * An 8-bit palette PNG: the map has a dozen colours, so one byte a pixel instead of four, and
 * filter "none" on every row (recommended for palette images); deflate runs on libuv's pool.
 */
export const encodeIndexedPng = (image: IndexedImage, palette: Buffer): Promise<Buffer> =>
  encodePng(image.width, image.height, COLOR_TYPE_INDEXED, image.rows, [chunk('PLTE', palette)])

const COLOR_TYPE_RGBA = 6

/**
 * An 8-bit RGBA PNG of `rows`: (width × 4 + 1) × height bytes, each row its filter byte (0) and then
 * red, green, blue and alpha per pixel. For images whose pixels are data, not colours (the explorers'
 * parcel view), where a palette would not hold every value.
 */
export const encodeRgbaPng = (width: number, height: number, rows: Buffer): Promise<Buffer> =>
  encodePng(width, height, COLOR_TYPE_RGBA, rows)
