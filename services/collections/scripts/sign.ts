/**
 * Prints a signed-fetch curl command for the collections service, or signs a third-party cheque.
 *
 *   PRIVATE_KEY=0x… tsx scripts/sign.ts <METHOD> <path[?query]> [json-body]   → a curl command (pipe it to sh)
 *   PRIVATE_KEY=0x… tsx scripts/sign.ts cheque <third-party-id> <qty>          → a cheque JSON for publish
 *   tsx scripts/sign.ts address                                                → the signer's address
 *
 * BASE_URL defaults to http://localhost:3002. Without PRIVATE_KEY a random wallet is used and its key is
 * printed on stderr, so the next calls can act as the same user.
 */
import { randomBytes } from 'node:crypto'
import { createIdentity, signedHeaders } from '@genesis/common/testing'
import { Wallet } from 'ethers'
import { loadConfig } from '../src/config.js'
import { CONSUME_SLOTS_TYPES, registryDomain } from '../src/domain/cheque.js'

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`

function wallet(): Wallet {
  if (process.env.PRIVATE_KEY) return new Wallet(process.env.PRIVATE_KEY)
  const created = Wallet.createRandom()
  console.error(`# no PRIVATE_KEY: using a new wallet ${created.address.toLowerCase()}`)
  console.error(`# export PRIVATE_KEY=${created.privateKey}`)
  return new Wallet(created.privateKey)
}

async function main(args: string[]) {
  const [command, ...rest] = args
  if (!command)
    throw new Error('usage: sign.ts <METHOD> <path> [body] | cheque <third-party-id> <qty> | address')
  const signer = wallet()
  if (command === 'address') {
    console.log(signer.address.toLowerCase())
    return
  }
  if (command === 'cheque') {
    const [thirdPartyId, qty] = rest
    if (!thirdPartyId || !qty) throw new Error('usage: sign.ts cheque <third-party-id> <qty>')
    // The same variables as the service: the domain must match its THIRD_PARTY_REGISTRY_* settings.
    const config = loadConfig(process.env)
    const domain = registryDomain({
      name: config.THIRD_PARTY_REGISTRY_NAME,
      address: config.THIRD_PARTY_REGISTRY_ADDRESS,
      chainId: config.THIRD_PARTY_REGISTRY_CHAIN_ID,
    })
    const salt = `0x${randomBytes(32).toString('hex')}`
    const value = { thirdPartyId, qty: Number(qty), salt }
    const signature = await signer.signTypedData(domain, CONSUME_SLOTS_TYPES, value)
    console.log(JSON.stringify({ qty: value.qty, salt, signature }))
    return
  }
  const method = command.toUpperCase()
  const [path, body] = rest
  if (!path?.startsWith('/')) throw new Error('the path must start with /, e.g. /v1/collections')
  const identity = await createIdentity(signer)
  const headers = signedHeaders(identity, method, path, {
    metadata: { nonce: randomBytes(8).toString('hex') },
  })
  const base = process.env.BASE_URL ?? 'http://localhost:3002'
  const parts = [`curl -sS -X ${method} ${quote(`${base}${path}`)}`]
  for (const [name, value] of Object.entries(headers)) parts.push(`-H ${quote(`${name}: ${value}`)}`)
  if (body !== undefined) parts.push(`-H 'content-type: application/json' --data ${quote(body)}`)
  console.log(parts.join(' \\\n  '))
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
