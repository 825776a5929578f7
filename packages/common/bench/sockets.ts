// What held sockets cost a replica: 2,000 connections that send nothing or trickle a body, opened at once,
// while a cheap read is timed; beside the same read with no such sockets (the baseline, same run). The kit's
// default limits: headers within 10 s, a whole request within 30 s, at most 8,192 connections.
import { connect, type Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import { createApp, DEFAULT_CONNECTION_LIMITS, ok } from '../src/index.js'
import { createTestDatabase } from '../src/testing/index.js'

const HELD = Number(process.env.HELD ?? 2000)
const READS = 200
const db = await createTestDatabase()
const app = await createApp({ name: 'bench', version: '0', sql: db.sql })
app.get('/cheap', async () => ok('yes'))
app.post('/body', async () => ok(null))
await app.listen({ port: 0, host: '127.0.0.1' })
const { port } = app.server.address() as { port: number }
const url = `http://127.0.0.1:${port}/cheap`

async function readLatencies(): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; i < READS; i++) {
    const start = performance.now()
    const answer = await fetch(url, { headers: { connection: 'close' } })
    await answer.arrayBuffer()
    times.push(performance.now() - start)
  }
  return times.sort((a, b) => a - b)
}
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

console.log('measuring the baseline…')
const baseline = await readLatencies()
console.log('opening the held sockets…')

const opened = performance.now()
const closedAfter: number[] = []
const sockets: Socket[] = []
let accepted = 0
app.server.on('connection', () => accepted++)
for (let i = 0; i < HELD; i++) {
  // in batches the listen backlog holds: past it the kernel drops handshakes, not the server
  if (i % 200 === 199) await new Promise((resolve) => setTimeout(resolve, 50))
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  socket.once('close', () => closedAfter.push(performance.now() - opened))
  if (i % 2 === 1) {
    // half trickle a body a byte a second; half send nothing at all
    socket.once('connect', () => {
      socket.write(
        'POST /body HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n',
      )
      const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write('x')), 1000)
      timer.unref()
      socket.once('close', () => clearInterval(timer))
    })
  }
  sockets.push(socket)
}
await new Promise((resolve) => setTimeout(resolve, 500))
console.log(`  the server holds ${accepted} of them`)
const held = await readLatencies()
console.log(`waiting for the server to close them (${closedAfter.length} closed so far)…`)
const progress = setInterval(() => console.log(`  ${closedAfter.length} of ${HELD} closed`), 5000)
while (closedAfter.length < HELD) await new Promise((resolve) => setTimeout(resolve, 100))
clearInterval(progress)
const lastClosed = Math.max(...closedAfter)

const line = (name: string, sorted: number[]) =>
  console.log(
    `  ${name.padEnd(34)} p50 ${percentile(sorted, 0.5).toFixed(1).padStart(6)} ms   p95 ${percentile(sorted, 0.95).toFixed(1).padStart(6)} ms`,
  )
console.log(`a cheap read (${READS} requests, one after another), held sockets of an attacker:`)
line('baseline: no held sockets', baseline)
line(`${HELD} silent or trickling sockets`, held)
console.log(`  target: p95 under 100 ms with them held`)
console.log(
  `  all ${HELD} closed by the server within ${(lastClosed / 1000).toFixed(1)} s ` +
    `(limits: headers ${DEFAULT_CONNECTION_LIMITS.headersTimeoutMs / 1000} s, request ${DEFAULT_CONNECTION_LIMITS.requestTimeoutMs / 1000} s)`,
)
await app.close()
await db.drop()
