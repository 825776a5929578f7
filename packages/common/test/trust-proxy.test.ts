// Behind a gateway that appends to X-Forwarded-For, the client IP is the entry the gateway wrote: whatever
// a client puts further left is its own text. TRUST_PROXY is how many proxies there are, not a yes.
import { expect, it } from 'vitest'
import { baseConfigSchema, ConfigError, createApp, ok, readConfig } from '../src/index.js'
import { useKitDatabase } from './set-up.js'

const db = useKitDatabase()

async function ipSeen(trustProxy: number | undefined, forwardedFor: string | undefined) {
  const app = await createApp({
    name: 'demo',
    version: '1',
    sql: db.sql,
    ...(trustProxy === undefined ? {} : { trustProxy }),
  })
  app.get('/ip', async (request) => ok(request.ip))
  try {
    const answer = await app.inject({
      url: '/ip',
      remoteAddress: '10.0.0.5', // the gateway
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    })
    return answer.json().data as string
  } finally {
    await app.close()
  }
}

it('trusts exactly the hops there are: one gateway appending the address it saw', async () => {
  // the client wrote "6.6.6.6"; the gateway appended the client's real address
  expect(await ipSeen(1, '6.6.6.6, 203.0.113.9')).toBe('203.0.113.9')
  expect(await ipSeen(1, '203.0.113.9')).toBe('203.0.113.9')
  // two proxies (a load balancer, then the gateway): two hops back
  expect(await ipSeen(2, '6.6.6.6, 203.0.113.9, 10.0.0.1')).toBe('203.0.113.9')
  // none: the socket's address, whatever the header says
  expect(await ipSeen(0, '6.6.6.6')).toBe('10.0.0.5')
  expect(await ipSeen(undefined, '6.6.6.6')).toBe('10.0.0.5')
})

it('refuses TRUST_PROXY=true, which would let a client choose its address', () => {
  const schema = baseConfigSchema({ service: 'demo', port: 0 })
  expect(() => readConfig(schema, { TRUST_PROXY: 'true' })).toThrow(ConfigError)
  expect(readConfig(schema, { TRUST_PROXY: '1' }).TRUST_PROXY).toBe('1')
  expect(readConfig(schema, {}).TRUST_PROXY).toBe('0')
})
