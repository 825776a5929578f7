import { GRID_MAX, GRID_MIN } from '../domain/geometry.js'

const HALF = 128n
const LOW_MASK = (1n << HALF) - 1n
const UINT256_MAX = (1n << 256n) - 1n

/** LAND's token id: x as int128 in the high 128 bits, y as int128 in the low 128 bits (two's complement). */
export function encodeTokenId(x: number, y: number): bigint {
  return (BigInt.asUintN(128, BigInt(x)) << HALF) | BigInt.asUintN(128, BigInt(y))
}

/** The coordinates a LAND token id stands for, or undefined when they fall outside the grid. */
export function decodeTokenId(id: bigint): { x: number; y: number } | undefined {
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
