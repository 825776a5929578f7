import { promisify } from 'node:util'
import { crc32, deflate } from 'node:zlib'

const deflateAsync = promisify(deflate)

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const COLOR_TYPE_INDEXED = 3

/**
 * Level 6 (zlib's default) on long runs of one palette index costs little more than level 1 and keeps
 * the images as small as the RGBA encoder made them.
 */
const DEFLATE_LEVEL = 6

/** One pixel per byte, each a palette index; row-major from the top-left corner. */
export interface IndexedImage {
  width: number
  height: number
  pixels: Uint8Array
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

/**
 * An 8-bit palette PNG: the map has a dozen colours, so one byte a pixel instead of four, and
 * filter "none" on every row (recommended for palette images); deflate runs on libuv's pool.
 */
export async function encodeIndexedPng(image: IndexedImage, palette: Buffer): Promise<Buffer> {
  const { width, height, pixels } = image
  const raw = Buffer.allocUnsafe((width + 1) * height)
  for (let y = 0; y < height; y++) {
    const o = y * (width + 1)
    raw[o] = 0
    raw.set(pixels.subarray(y * width, (y + 1) * width), o + 1)
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8
  header[9] = COLOR_TYPE_INDEXED
  const idat = await deflateAsync(raw, { level: DEFLATE_LEVEL })
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('PLTE', palette),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ])
}
