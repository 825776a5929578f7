/**
 * The scale bench's service process: the built service (dist/, as `pnpm start` runs it) on DATABASE_URL,
 * committee COMMITTEE_ADDRESSES, rate limit off, on an ephemeral loopback port reported over IPC. With
 * BENCH_UNCACHED=1 no list answer is reused or shared: every request builds its own, which is what the
 * rows "not cached" measure.
 */
import { createSql } from '@genesis/common'
import { childDatabaseUrl, serveToParent } from '../../../../packages/common/bench/child.js'
import { loadConfig } from '../../src/config.js'
import { COLLECTIONS_DB_SETTINGS } from '../../src/db/settings.js'
import { AnswerCache, type BuiltAnswer } from '../../src/domain/answer-cache.js'

const { buildApp } = (await import('../../dist/app.js' as string)) as typeof import('../../src/app.js')

/** Keeps and shares nothing: each list request builds its answer. */
class NoAnswers extends AnswerCache {
  override async answer(_version: number, _key: string, build: () => Promise<BuiltAnswer>): Promise<Buffer> {
    return (await build()).body
  }
}

const sql = createSql(childDatabaseUrl('bench/scale.ts'), { settings: COLLECTIONS_DB_SETTINGS })
const config = loadConfig({ COMMITTEE_ADDRESSES: process.env.COMMITTEE_ADDRESSES, RATE_LIMIT_MAX: '0' })
const app = await buildApp({
  sql,
  config,
  ...(process.env.BENCH_UNCACHED === '1' ? { context: { answers: new NoAnswers() } } : {}),
})
await serveToParent(app, sql)
