import { BadRequestError } from '@genesis/common'
import { describe, expect, it } from 'vitest'
import { parseCoordinate, parseCoordinateList } from '../src/domain/coordinates.js'

describe('coordinates', () => {
  it('parse x,y within the grid', () => {
    expect(parseCoordinate('0,0')).toEqual({ x: 0, y: 0 })
    expect(parseCoordinate('-150,150')).toEqual({ x: -150, y: 150 })
    expect(parseCoordinate(' 12,-7 ')).toEqual({ x: 12, y: -7 })
  })

  it.each(['151,0', '0,-151', '1.5,2', 'a,b', '1,2,3', '', '1;2', '0x1,2'])(
    'refuse "%s", quoting it',
    (value) => {
      const error = (() => {
        try {
          parseCoordinate(value, 'center')
        } catch (e) {
          return e
        }
      })()
      expect(error).toBeInstanceOf(BadRequestError)
      expect((error as BadRequestError).message).toContain(`"${value}"`)
      expect((error as BadRequestError).message).toContain('center')
    },
  )

  it('parse lists separated by semicolons', () => {
    expect(parseCoordinateList('1,2;-3,4;')).toEqual([
      { x: 1, y: 2 },
      { x: -3, y: 4 },
    ])
    expect(() => parseCoordinateList('1,2;200,0', 'selected')).toThrow(/selected "200,0"/)
  })
})
