import { type Cell, GRID_MAX, GRID_MIN } from './geometry.js'

/*
 * The LAND registry's token id, the one codec of the service (the indexer, the atlas answers and the chain
 * demo all use it): x as int128 in the high 128 bits, y as int128 in the low 128 bits, two's complement.
 */

const HALF = 128n
const LOW_MASK = (1n << HALF) - 1n
const UINT256_MAX = (1n << 256n) - 1n

/** The token id of the parcel at x, y. */
export function encodeTokenId(x: number, y: number): bigint {
  return (BigInt.asUintN(128, BigInt(x)) << HALF) | BigInt.asUintN(128, BigInt(y))
}

/** The parcel a LAND token id stands for, or undefined when it falls outside the grid (or is no uint256). */
export function decodeTokenId(id: bigint): Cell | undefined {
  if (id < 0n || id > UINT256_MAX) return undefined
  const x = BigInt.asIntN(128, id >> HALF)
  const y = BigInt.asIntN(128, id & LOW_MASK)
  const inGrid = (n: bigint) => n >= BigInt(GRID_MIN) && n <= BigInt(GRID_MAX)
  return inGrid(x) && inGrid(y) ? { x: Number(x), y: Number(y) } : undefined
}

/** A uint256 written in plain decimal, as token ids travel in URLs; undefined for anything else. */
export function parseUint256(value: string): bigint | undefined {
  if (!/^[0-9]{1,100}$/.test(value)) return undefined
  const n = BigInt(value)
  return n <= UINT256_MAX ? n : undefined
}
