/**
 * The kit's own ceiling, for bench/run.ts: createApp from @genesis/common exactly as the service builds
 * it (same logger level, CORS, compression, metrics, request ids, signed-fetch hook), with the
 * service's route of each cached read answering the same answer from memory (bench/answers.ts). service / kit is what land's own code costs;
 * kit / bare is what the shared kit costs.
 * Usage: node --import tsx bench/kit-server.ts <dir with answers.json> <database url>
 */
// As the service's entry point, first of all imports.
import '@genesis/common/keep-tick-shape'
import { createApp, createLogger, createSql } from '@genesis/common'
import { serveAnswers } from './answers.js'

const [dir, databaseUrl] = process.argv.slice(2)
if (!dir || !databaseUrl) throw new Error('usage: kit-server.ts <dir> <database url>')
// As the service's routes: no request bodies, bodies too small or already compressed.
const options = { compress: false, decompress: false } as object

const app = await createApp({
  name: 'kit-ceiling',
  version: '0.0.0',
  sql: createSql(databaseUrl, { max: 1 }),
  logger: createLogger('kit-ceiling', { LOG_LEVEL: process.env.LOG_LEVEL === 'info' ? 'info' : 'warn' }),
})
serveAnswers(app, dir, options)
const url = await app.listen({ host: '127.0.0.1', port: 0 })
console.log(`listening ${url}`)
