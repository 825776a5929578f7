/**
 * `pnpm bench:publish-flood`: one wallet publishing in twelve loops while the chain provider answers each
 * call after 2 s, against another caller's reads. The service asks the chain before its transaction begins,
 * so a publish waiting on the chain holds no connection and no row lock: the other caller's reads and the
 * readiness probe should not notice. Prints the other caller's read latency with and without the flood
 * (same run), and how many readiness probes failed meanwhile.
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { performance } from 'node:perf_hooks'
import { createIdentity, type Identity, signedHeaders } from '@genesis/common/testing'
import { startChainWithContracts } from '@genesis/contracts'
import { Wallet } from 'ethers'
import { startBenchService } from './service.js'

const uniqueName = (prefix = 'Collection') => `${prefix} ${randomBytes(5).toString('hex')}`
const contentHash = () => `0x${randomBytes(32).toString('hex')}`

/** A really signed request over HTTP, with a nonce (signatures are deterministic). */
async function signedRequest(
  base: string,
  who: Identity,
  method: 'PUT' | 'POST',
  path: string,
  body: unknown,
) {
  const headers = signedHeaders(who, method, path, { metadata: { nonce: randomBytes(8).toString('hex') } })
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as { code?: string } }
}

const LOOPS = 12
const DELAY_MS = 2000
const DURATION_MS = 20_000

const chain = await startChainWithContracts((devWallet) => ({
  voucherSigner: Wallet.createRandom().address,
  committee: devWallet(0).address,
}))
// A provider that answers every call 2 s late (anvil behind it).
const slow = createServer((request, response) => {
  const chunks: Buffer[] = []
  request.on('data', (chunk: Buffer) => chunks.push(chunk))
  request.on('end', () => {
    setTimeout(async () => {
      const answer = await fetch(chain.anvil.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      })
      response.writeHead(answer.status, { 'content-type': 'application/json' })
      response.end(await answer.text())
    }, DELAY_MS)
  })
})
await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve))
const slowUrl = `http://127.0.0.1:${(slow.address() as { port: number }).port}`
const svc = await startBenchService({
  RPC_URL: slowUrl,
  RPC_TIMEOUT_MS: '10000',
  COLLECTION_FACTORY_ADDRESS: chain.d.collectionFactory,
  COLLECTION_INIT_CODE_HASH: chain.d.collectionInitCodeHash,
  THIRD_PARTY_REGISTRY_ADDRESS: chain.d.thirdPartyRegistry,
  THIRD_PARTY_REGISTRY_NAME: chain.d.thirdPartyRegistryName,
  THIRD_PARTY_REGISTRY_CHAIN_ID: String(chain.anvil.chainId),
  COMMITTEE_ADDRESSES: chain.devWallet(0).address,
})

// The flooding wallet's collection: terms accepted, items written, never deployed (every publish: 409).
const flooder = await createIdentity()
const id = crypto.randomUUID()
await signedRequest(svc.url, flooder, 'PUT', `/v1/collections/${id}`, { id, name: uniqueName() })
const itemIds: string[] = []
for (let i = 0; i < 3; i++) {
  const itemId = crypto.randomUUID()
  await signedRequest(svc.url, flooder, 'PUT', `/v1/items/${itemId}`, {
    id: itemId,
    collection_id: id,
    name: uniqueName('Item'),
    type: 'wearable',
    content_hash: contentHash(),
  })
  itemIds.push(itemId)
}
await signedRequest(svc.url, flooder, 'POST', `/v1/collections/${id}/tos`, {
  email: 'flood@example.com',
  event: 'publish_collection_tos',
  hashes: [contentHash()],
})

/** Another caller's reads (a search of the public list) and readiness probes, for `ms`. */
async function otherCaller(ms: number) {
  const latencies: number[] = []
  let notReady = 0
  let probes = 0
  const until = performance.now() + ms
  while (performance.now() < until) {
    const start = performance.now()
    const read = await fetch(`${svc.url}/v1/addresses?q=${uniqueName('q').slice(0, 12)}`)
    await read.arrayBuffer()
    latencies.push(performance.now() - start)
    const ready = await fetch(`${svc.url}/health/ready`)
    await ready.arrayBuffer()
    probes++
    if (ready.status !== 200) notReady++
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  latencies.sort((a, b) => a - b)
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!
  return { p50: at(0.5), p95: at(0.95), reads: latencies.length, probes, notReady }
}

const baseline = await otherCaller(5000)
let stop = false
const answers = new Map<string, number>()
const loops = Array.from({ length: LOOPS }, async () => {
  while (!stop) {
    const res = await signedRequest(svc.url, flooder, 'POST', `/v1/collections/${id}/publish`, { itemIds })
    const key = `${res.status} ${res.body.code ?? ''}`.trim()
    answers.set(key, (answers.get(key) ?? 0) + 1)
  }
})
const flooded = await otherCaller(DURATION_MS)
stop = true
await Promise.all(loops)

const row = (name: string, r: Awaited<ReturnType<typeof otherCaller>>) =>
  console.log(
    `  ${name.padEnd(44)} p50 ${r.p50.toFixed(1).padStart(6)} ms  p95 ${r.p95.toFixed(1).padStart(6)} ms  ` +
      `(${r.reads} reads; readiness failed ${r.notReady} of ${r.probes})`,
  )
console.log(
  `another caller's GET /v1/addresses?q=… while one wallet publishes, chain answering after ${DELAY_MS} ms:`,
)
row('baseline: nobody publishing', baseline)
row(`${LOOPS} publish loops of one wallet`, flooded)
console.log(`  the publishes were answered: ${[...answers].map(([k, n]) => `${n} × ${k}`).join(', ')}`)
console.log('  target: p95 under 500 ms, readiness never failing')
await svc.close()
slow.close()
await chain.close()
