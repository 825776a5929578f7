/**
 * The baselines of bench/run.ts, in a process of their own like the service: a bare Fastify (no plugins,
 * no hooks, no logger) answering
 *   GET /parcels/0/0 and GET /districts with the very bytes the service sent, from memory;
 *   GET /map with JSON.stringify of the same whole-grid objects on every request;
 *   GET /map.png with the service's default PNG map, from memory (when map.png is in the directory).
 * Usage: node --import tsx bench/bare-server.ts <dir with parcel.json, districts.json, map.json>
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import Fastify from 'fastify'

const dir = process.argv[2]
if (!dir) throw new Error('usage: bare-server.ts <dir>')
const parcel = readFileSync(join(dir, 'parcel.json'))
const districts = readFileSync(join(dir, 'districts.json'))
const mapObjects: unknown = JSON.parse(readFileSync(join(dir, 'map.json'), 'utf8'))
const mapPng = existsSync(join(dir, 'map.png')) ? readFileSync(join(dir, 'map.png')) : undefined
const JSON_TYPE = 'application/json; charset=utf-8'

const app = Fastify({ logger: false })
app.get('/parcels/0/0', (_request, reply) => {
  reply.type(JSON_TYPE).send(parcel)
})
app.get('/districts', (_request, reply) => {
  reply.type(JSON_TYPE).send(districts)
})
app.get('/map', (_request, reply) => {
  reply.type(JSON_TYPE).send(JSON.stringify(mapObjects))
})
if (mapPng) {
  app.get('/map.png', (_request, reply) => {
    reply.type('image/png').send(mapPng)
  })
}
const url = await app.listen({ host: '127.0.0.1', port: 0 })
console.log(`listening ${url}`)
