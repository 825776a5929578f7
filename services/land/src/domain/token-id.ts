import { decodeTokenId } from '@genesis/contracts/land'
import { type Cell, GRID_MAX, GRID_MIN } from './geometry.js'

/*
 * The LAND registry's token ids as the service meets them: the codec itself is @genesis/contracts' (x as
 * int128 in the high 128 bits, y in the low ones); what is the service's own is which ids name a parcel of
 * the grid, and how an id travels in a URL.
 */

const UINT256_MAX = (1n << 256n) - 1n

/** The parcel a LAND token id stands for, or undefined when it falls outside the grid (or is no uint256). */
export function parcelOfTokenId(id: bigint): Cell | undefined {
  if (id < 0n || id > UINT256_MAX) return undefined
  const { x, y } = decodeTokenId(id)
  const inGrid = (n: bigint) => n >= BigInt(GRID_MIN) && n <= BigInt(GRID_MAX)
  return inGrid(x) && inGrid(y) ? { x: Number(x), y: Number(y) } : undefined
}

/** A uint256 written in plain decimal, as token ids travel in URLs; undefined for anything else. */
export function parseUint256(value: string): bigint | undefined {
  if (!/^[0-9]{1,100}$/.test(value)) return undefined
  const n = BigInt(value)
  return n <= UINT256_MAX ? n : undefined
}
