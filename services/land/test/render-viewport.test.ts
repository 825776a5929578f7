import { HttpError } from '@genesis/common'
import { describe, expect, it } from 'vitest'
import { assertParcelLimit, computeViewport, MAX_PARCELS } from '../src/render/viewport.js'

const at = (width: number, height: number, size: number, x = 0, y = 0) =>
  computeViewport({ width, height, size, center: { x, y } })

describe('parcel-count rule', () => {
  it('draws ceil(side/size + 1) parcels per side, rounded up to even', () => {
    expect(at(500, 500, 10)).toMatchObject({ cols: 52, rows: 52, parcels: 2704 })
    expect(at(1024, 1024, 5)).toMatchObject({ cols: 206, rows: 206, parcels: 42_436 })
    // 90/10 + 1 = 10 is already even; 100/10 + 1 = 11 rounds up to 12
    expect(at(90, 100, 10)).toMatchObject({ cols: 10, rows: 12, parcels: 120 })
    // 32/40 + 1 = 1.8 → 2; 2048/40 + 1 = 52.2 → 53 → 54
    expect(at(32, 2048, 40)).toMatchObject({ cols: 2, rows: 54 })
  })

  it('allows the largest city-centre view and refuses beyond 15,000 parcels', () => {
    const largest = at(2048, 2048, 17)
    expect(largest.parcels).toBe(122 * 122)
    expect(() => assertParcelLimit(largest)).not.toThrow()
    expect(() => assertParcelLimit(at(2048, 2048, 16))).toThrow(HttpError)
  })

  it('answers too many parcels with the exact 500 of the spec', () => {
    let thrown: unknown
    try {
      assertParcelLimit(at(1024, 1024, 5))
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(HttpError)
    const error = thrown as HttpError
    expect(error.statusCode).toBe(500)
    expect(error.code).toBe('too_many_parcels')
    expect(error.message).toBe(
      'Too many parcels. You are trying to render 42436 parcels and the maximum allowed is 15000.',
    )
    expect(MAX_PARCELS).toBe(15_000)
  })

  it('centres the centre parcel and covers the whole image with cells', () => {
    for (const [width, height, size] of [
      [500, 500, 10],
      [33, 47, 5],
      [2048, 2048, 17],
      [1000, 37, 40],
      [90, 90, 10],
      [123, 321, 7],
    ] as const) {
      const v = at(width, height, size, 12, -40)
      expect(v.originX).toBeLessThanOrEqual(0)
      expect(v.originY).toBeLessThanOrEqual(0)
      expect(v.originX + v.cols * v.size).toBeGreaterThanOrEqual(width)
      expect(v.originY + v.rows * v.size).toBeGreaterThanOrEqual(height)
      // the centre parcel's cell, at column centre.x - minX and row maxY - centre.y, sits in the middle
      const left = v.originX + (12 - v.minX) * size
      const top = v.originY + (v.maxY - -40) * size
      expect(left).toBe(Math.floor((width - size) / 2))
      expect(top).toBe(Math.floor((height - size) / 2))
      // as many columns left of the centre as the rule allows: cols/2 to the west, cols/2 - 1 to the east
      expect(12 - v.minX).toBe(v.cols / 2)
      expect(v.maxY - -40).toBe(v.rows / 2)
    }
  })
})
