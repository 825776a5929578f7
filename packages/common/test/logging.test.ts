import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { stripVTControlCharacters } from 'node:util'
import { describe, expect, it } from 'vitest'
import { prettyLogStream } from '../src/kit/pretty-log.js'
import { useTestDatabase } from '../src/testing/vitest.js'

const script = fileURLToPath(new URL('./fixtures/logging-server.ts', import.meta.url))
const db = useTestDatabase()

interface Line {
  level: number
  msg: string
  address?: string
  req?: { url?: string }
  res?: { statusCode?: number }
}

/** Starts the service at this level, sends the requests, stops it and answers every line it logged. */
async function linesOf(
  level: 'info' | 'debug',
  paths: string[],
  options: { readyAfterMs?: number } = {},
): Promise<Line[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      LOG_LEVEL: level,
      READY_AFTER_MS: String(options.readyAfterMs ?? 0),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  const exited = once(child, 'exit')
  try {
    const address = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString()
        const match = /"address":"([^"]+)"/.exec(output)
        if (match) resolve(match[1]!)
      })
      child.once('exit', (code) => reject(new Error(`server exited early with ${code}: ${output}`)))
    })
    if (options.readyAfterMs) {
      // polled as `pnpm start` and an orchestrator do, until it answers 200
      let polls = 0
      while ((await fetch(`${address}/health/ready`)).status !== 200) {
        polls++
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(polls).toBeGreaterThan(3)
    }
    for (const path of paths) expect((await fetch(`${address}${path}`)).status).toBe(200)
  } finally {
    child.kill('SIGTERM')
    await exited
  }
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line)
}

const urlOf = (line: Line) => line.req?.url
const requestLines = (lines: Line[], url: string) =>
  lines.filter((line) => line.msg === 'incoming request' && urlOf(line) === url)

describe('what the log shows', () => {
  it('one start-up line, the requests people send, and no health probe at info', async () => {
    const lines = await linesOf('info', ['/health/live', '/health/ready', '/hello'])
    const startUp = lines.filter((line) => /listening/i.test(line.msg))
    expect(startUp).toHaveLength(1)
    expect(startUp[0]).toMatchObject({
      msg: 'listening',
      address: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    })
    expect(requestLines(lines, '/hello')).toHaveLength(1)
    expect(lines.filter((line) => line.msg === 'request completed')).toHaveLength(1)
    expect(requestLines(lines, '/health/live')).toEqual([])
    expect(requestLines(lines, '/health/ready')).toEqual([])
  })

  it('logs the health probes at debug', async () => {
    const lines = await linesOf('debug', ['/health/live', '/health/ready', '/hello'])
    for (const url of ['/health/live', '/health/ready']) {
      const probe = requestLines(lines, url)
      expect(probe).toHaveLength(1)
      expect(probe[0]!.level).toBe(20)
    }
    expect(requestLines(lines, '/hello')[0]!.level).toBe(30)
    const completed = lines.filter((line) => line.msg === 'request completed')
    expect(completed.map((line) => line.level).sort()).toEqual([20, 20, 30])
  })
})

describe('readiness in the log', () => {
  it('says once that the service is not ready yet and once that it is, however often it is polled', async () => {
    const lines = await linesOf('info', ['/hello'], { readyAfterMs: 1500 })
    expect(lines.filter((line) => /ready/.test(line.msg)).map((line) => [line.level, line.msg])).toEqual([
      [30, 'not ready yet: starting'],
      [30, 'ready'],
    ])
    expect(lines.filter((line) => line.res?.statusCode === 503)).toEqual([])
  })
})

/** Whether util-linux's `script` is here to give a child a terminal. */
const scriptBinary = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0

describe('in a terminal', () => {
  it.skipIf(!scriptBinary)('the process logger prints readable lines, not JSON', async () => {
    // `script` runs the service with a pseudo-terminal as its stdout, as a person's terminal would be.
    const command = [process.execPath, '--import', 'tsx', script].map((part) => `'${part}'`).join(' ')
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    })
    let output = ''
    const exited = once(child, 'exit')
    try {
      const address = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString()
          const match = /"address":"(http:[^"]+)"/.exec(output)
          if (match) resolve(match[1]!)
        })
        child.once('exit', (code) => reject(new Error(`server exited early with ${code}: ${output}`)))
      })
      expect((await fetch(`${address}/hello`)).status).toBe(200)
      await new Promise<void>((resolve) => {
        const poll = () => (output.includes('request completed') ? resolve() : setTimeout(poll, 50))
        poll()
      })
    } finally {
      process.kill(-child.pid!, 'SIGTERM')
      await exited
    }
    const plain = stripVTControlCharacters(output)
    expect(plain).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening/m)
    expect(plain).toMatch(/INFO: incoming request GET \/hello\r?\n/)
    expect(plain).toMatch(/INFO: request completed → 200 in [\d.]+ ms/)
    expect(plain).not.toMatch(/^\{"level"/m)
  })
})

describe('the readable form of a line', () => {
  it("never passes a request's control or bidi characters to the terminal", async () => {
    const out = new PassThrough()
    let printed = ''
    out.on('data', (chunk: Buffer) => {
      printed += chunk.toString()
    })
    const pretty = prettyLogStream({ destination: out })
    expect(pretty).toBeDefined()
    const hostile = 'name\u001b[2J\u009b31m\u202egnp.exe\u2066'
    pretty!.write(
      `${JSON.stringify({ level: 30, time: 0, msg: `hello ${hostile}`, req: { method: 'GET', url: `/a${hostile}` }, field: hostile })}\n`,
    )
    await new Promise((resolve) => setImmediate(resolve))
    expect(printed).toContain('hello name\\u001b[2J\\u009b31m\\u202egnp.exe\\u2066 GET /aname')
    expect(printed).toContain('\\u009b31m\\u202egnp.exe') // the extra field, printed as JSON
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters the output must not carry
    expect(printed).not.toMatch(/[\u001b\u0080-\u009f\u202a-\u202e\u2066-\u2069]/u)
  })
})
