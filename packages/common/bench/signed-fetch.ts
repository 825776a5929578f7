// Cost of verifying one signed request: a session's first request (owner → ephemeral link checked with
// @dcl/crypto), its later requests (that link cached, each request's own signature recovered natively),
// and the same signed read sent again (remembered); beside @dcl/crypto's full validation of the chain as the baseline.
import { Authenticator } from '@dcl/crypto'
import { signedFetchPayload, verifySignedFetch } from '../src/index.js'
import { createIdentity, signedHeaders } from '../src/testing/index.js'

const N = 300
const sessions = await Promise.all(Array.from({ length: N }, () => createIdentity()))
const sign = (timestamp: number) =>
  sessions.map((identity) => signedHeaders(identity, 'GET', '/api/x', { timestamp }))
const first = sign(Date.now())
const later = sign(Date.now() + 1)
const options = { maxAgeS: 300 }
const request = (headers: Record<string, string>) => ({ method: 'GET', path: '/api/x', headers })

async function perRequestMs(
  signed: Record<string, string>[],
  run: (headers: Record<string, string>) => Promise<unknown>,
) {
  const start = performance.now()
  for (const headers of signed) await run(headers)
  return (performance.now() - start) / N
}

const baseline = await perRequestMs(first, (headers) => {
  const chain = [0, 1, 2].map((i) => JSON.parse(headers[`x-identity-auth-chain-${i}`]!))
  return Authenticator.validateSignature(
    signedFetchPayload('GET', '/api/x', headers['x-identity-timestamp']!, '{}'),
    chain,
    null,
  )
})
const verify = (headers: Record<string, string>) => verifySignedFetch(request(headers), options)
const cold = await perRequestMs(first, verify)
const warm = await perRequestMs(later, verify)
const again = await perRequestMs(later, verify)
console.log(`signed-fetch verification, ms per request (${N} requests):`)
console.log(`  @dcl/crypto full chain (baseline)     ${baseline.toFixed(3)}`)
console.log(`  first request of a session            ${cold.toFixed(3)}`)
console.log(
  `  later requests of a session           ${warm.toFixed(3)}  (${(baseline / warm).toFixed(1)}x faster)`,
)
console.log(`  the same signed request sent again    ${again.toFixed(3)}`)
