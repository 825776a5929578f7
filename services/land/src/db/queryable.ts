import type postgres from 'postgres'

/** What queries need: a pool (Sql) or an open transaction; both implement postgres' ISql. */
export type Queryable = postgres.ISql
