import type postgres from 'postgres'

/** The pool or a transaction: anything that runs tagged-template queries. */
export type Queryable = postgres.ISql
