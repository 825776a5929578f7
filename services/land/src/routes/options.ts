import type { Sql } from '@genesis/common'
import type { GridIndex } from '../grid/grid-index.js'

export interface LandRouteOptions {
  sql: Sql
  grid: GridIndex
}
