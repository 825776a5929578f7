/**
 * One rung of bench/kit-ladder.ts: a Fastify app with the kit's per-request features added one at a time,
 * each answering GET /answer with the same 428 bytes of JSON from memory, after a `select 1` on a pool of
 * four connections when BENCH_KIT_READ=database (a read that awaits PostgreSQL, as claims' and collections';
 * four, not the services' ten, so that the ladder's processes, three a rung, stay within PostgreSQL's
 * hundred).
 * Usage: node --import tsx bench/kit-rung.ts <rung> <database url>; prints `listening <url>`.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import { createSql } from '../src/db/database.js'
import { answerHook, kitHeaders } from '../src/kit/answer-hook.js'
import { type CorsHeaders, corsHeaders } from '../src/kit/cors.js'
import { createApp } from '../src/kit/create-app.js'
import { createLogger } from '../src/kit/logger.js'
import { installMetrics } from '../src/kit/metrics.js'
import { requestIdMaker } from '../src/kit/request-id.js'
import { requestLogging } from '../src/kit/request-log.js'
import { RUNGS, type Rung } from './rungs.js'

const ANSWER = Buffer.from(
  JSON.stringify({
    ok: true,
    data: { id: '0,0', x: 0, y: 0, owner: `0x${'7c'.repeat(20)}`, pad: 'x'.repeat(318) },
  }),
)

const [rungName, databaseUrl] = process.argv.slice(2)
const rung = RUNGS.indexOf(rungName as Rung)
if (rung === -1 || !databaseUrl) throw new Error(`usage: kit-rung.ts <${RUNGS.join('|')}> <database url>`)
// The kit's logger at the bench's level: request lines are info, so none is written, as in the services' benches.
const logger = (): FastifyBaseLogger => createLogger('kit-ladder', { LOG_LEVEL: 'warn' })

let app: FastifyInstance
if (rung >= RUNGS.indexOf('createApp')) {
  app = await createApp({
    name: 'kit-ladder',
    version: '0.0.0',
    sql: createSql(databaseUrl, { max: 1 }),
    logger: logger(),
  })
} else {
  const at = (name: Rung) => rung >= RUNGS.indexOf(name)
  const logging = at('request logger') ? requestLogging(logger()) : undefined
  app = Fastify({
    ...(logging ? logging.fastify : { logger: false }),
    ...(at('request ids') ? { requestIdHeader: false as const, genReqId: requestIdMaker() } : {}),
  })
  logging?.install(app)
  // The kit's answer hook, its CORS headers set from the rung on that adds them; before the metrics, a
  // hook of its own sets the request id alone.
  const cors: CorsHeaders = at('cors headers') ? corsHeaders('*') : () => {}
  if (at('metrics')) {
    installMetrics(app, 'kit-ladder', { lastOnSend: answerHook(kitHeaders(cors, () => false)) })
  } else if (at('request ids')) {
    app.addHook('onSend', (request, reply, payload, done) => {
      reply.header('x-request-id', request.id)
      done(null, payload)
    })
  }
}
// No body to decompress (createApp turns that off for GET); nothing to compress, but on the last rung,
// whose route keeps @fastify/compress's hooks as every service route does (an answer under its threshold,
// or asked for without Accept-Encoding as here, passes through them uncompressed).
const options = (
  rung === RUNGS.indexOf('compression hooks') ? {} : { compress: false, decompress: false }
) as object
if (process.env.BENCH_KIT_READ === 'database') {
  const sql = createSql(databaseUrl, { max: 4 })
  app.get('/answer', options, async (_request, reply) => {
    await sql`select 1 as one`
    return reply.type('application/json; charset=utf-8').send(ANSWER)
  })
} else {
  app.get('/answer', options, (_request, reply) => {
    reply.type('application/json; charset=utf-8').send(ANSWER)
  })
}
console.log(`listening ${await app.listen({ host: '127.0.0.1', port: 0 })}`)
