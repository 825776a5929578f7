/**
 * The kit's own ceiling, for bench/run.ts: createApp from @genesis/common exactly as the service builds
 * it (same logger level, CORS, compression, metrics, request ids, signed-fetch hook), with one trivial
 * route per endpoint answering the same bytes from memory. service / kit is what land's own code costs;
 * kit / bare is what the shared kit costs.
 * Usage: node --import tsx bench/kit-server.ts <dir with parcel.json, districts.json> <database url>
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createApp, createLogger, createSql } from '@genesis/common'

const [dir, databaseUrl] = process.argv.slice(2)
if (!dir || !databaseUrl) throw new Error('usage: kit-server.ts <dir> <database url>')
const parcel = readFileSync(join(dir, 'parcel.json'))
const districts = readFileSync(join(dir, 'districts.json'))
const JSON_TYPE = 'application/json; charset=utf-8'
// As the service's routes: no request bodies, bodies too small or already compressed.
const options = { compress: false, decompress: false } as object

const app = await createApp({
  name: 'kit-ceiling',
  version: '0.0.0',
  sql: createSql(databaseUrl, { max: 1 }),
  logger: createLogger('kit-ceiling', { LOG_LEVEL: process.env.LOG_LEVEL === 'info' ? 'info' : 'warn' }),
})
app.get('/parcels/0/0', options, (_request, reply) => {
  reply.type(JSON_TYPE).send(parcel)
})
app.get('/districts', options, (_request, reply) => {
  reply.type(JSON_TYPE).send(districts)
})
const url = await app.listen({ host: '127.0.0.1', port: 0 })
console.log(`listening ${url}`)
