/**
 * The baselines of bench/run.ts, in a process of their own like the service: a bare Fastify (no plugins,
 * no hooks, no logger) answering
 *   every cached read of bench/answers.ts on the service's route, with the answer the service sent, from
 *   memory;
 *   GET /map with JSON.stringify of the same whole-grid objects on every request.
 * Usage: node --import tsx bench/bare-server.ts <dir with answers.json and map.json>
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Fastify from 'fastify'
import { serveAnswers } from './answers.js'

const dir = process.argv[2]
if (!dir) throw new Error('usage: bare-server.ts <dir>')
const mapObjects: unknown = JSON.parse(readFileSync(join(dir, 'map.json'), 'utf8'))

const app = Fastify({ logger: false })
serveAnswers(app, dir)
app.get('/map', (_request, reply) => {
  reply.type('application/json; charset=utf-8').send(JSON.stringify(mapObjects))
})
const url = await app.listen({ host: '127.0.0.1', port: 0 })
console.log(`listening ${url}`)
