// Cost of verifying one signed request: a session's first request (owner → ephemeral link checked with
// @dcl/crypto) and the following ones (that link cached, the request's own signature checked natively),
// beside @dcl/crypto's full validation of the same chain as the baseline.
import { Authenticator } from '@dcl/crypto'
import { signedFetchPayload, verifySignedFetch } from '../src/index.js'
import { createIdentity, signedHeaders } from '../src/testing/index.js'

const N = 300
const sessions = await Promise.all(Array.from({ length: N }, () => createIdentity()))
const signed = sessions.map((identity) => signedHeaders(identity, 'POST', '/api/x'))
const options = { maxAgeS: 300 }
const request = (headers: Record<string, string>) => ({ method: 'POST', path: '/api/x', headers })

async function perRequestMs(run: (headers: Record<string, string>) => Promise<unknown>) {
  const start = performance.now()
  for (const headers of signed) await run(headers)
  return (performance.now() - start) / N
}

const baseline = await perRequestMs((headers) => {
  const chain = [0, 1, 2].map((i) => JSON.parse(headers[`x-identity-auth-chain-${i}`]!))
  return Authenticator.validateSignature(
    signedFetchPayload('POST', '/api/x', headers['x-identity-timestamp']!, '{}'),
    chain,
    null,
  )
})
const cold = await perRequestMs((headers) => verifySignedFetch(request(headers), options))
const warm = await perRequestMs((headers) => verifySignedFetch(request(headers), options))
console.log(`signed-fetch verification, ms per request (${N} requests):`)
console.log(`  @dcl/crypto full chain (baseline)     ${baseline.toFixed(3)}`)
console.log(`  first request of a session            ${cold.toFixed(3)}`)
console.log(
  `  later requests of a session           ${warm.toFixed(3)}  (${(baseline / warm).toFixed(1)}x faster)`,
)
