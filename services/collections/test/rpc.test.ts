import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { chequeMessageHash } from '../src/domain/cheque.js'
import type { Collection } from '../src/schemas/collection.js'
import { domainOf, signCheque } from './chequebook.js'
import {
  acceptTos,
  call,
  createCollection,
  createIdentity,
  createItem,
  type Harness,
  type Identity,
  randomUUID,
  refusal,
  setup,
} from './helpers.js'
import { JsonRpcNode } from './json-rpc-node.js'

const defaults = loadConfig({})
const node = new JsonRpcNode(defaults.THIRD_PARTY_REGISTRY_CHAIN_ID, defaults.THIRD_PARTY_REGISTRY_ADDRESS)
let h: Harness
let alice: Identity
beforeAll(async () => {
  const rpcUrl = await node.start()
  h = await setup({ env: { RPC_URL: rpcUrl, RPC_TIMEOUT_MS: '2000' } })
  alice = await createIdentity()
})
afterAll(async () => {
  await h.close()
  await node.stop()
})

const read = async (id: string) =>
  (await call(h.app, alice, 'GET', `/v1/collections/${id}`)).json().data as Collection

async function readyToPublish() {
  const id = await createCollection(h.app, alice)
  const itemIds = [await createItem(h.app, alice, id), await createItem(h.app, alice, id)]
  await acceptTos(h.app, alice, id)
  return { id, itemIds, contract: (await read(id)).contract_address! }
}

describe('publish checks the contract is deployed, over JSON-RPC', () => {
  it('refuses while no code is at the contract address (409 not_deployed)', async () => {
    const { id, itemIds, contract } = await readyToPublish()
    refusal(
      await call(h.app, alice, 'POST', `/v1/collections/${id}/publish`, { itemIds }),
      409,
      'not_deployed',
    )
    expect(
      node.calls.some(
        (c) => c.method === 'eth_getCode' && (c.params[0] as string).toLowerCase() === contract,
      ),
    ).toBe(true)
    expect((await read(id)).is_published).toBe(false)
  })

  it('publishes once the contract has code', async () => {
    const { id, itemIds, contract } = await readyToPublish()
    node.code.set(contract, '0x6080604052')
    const res = await call(h.app, alice, 'POST', `/v1/collections/${id}/publish`, { itemIds })
    expect(res.statusCode, res.body).toBe(204)
    expect((await read(id)).is_published).toBe(true)
  })

  it('answers 503 when the node fails, and publishes nothing', async () => {
    const { id, itemIds, contract } = await readyToPublish()
    node.code.set(contract, '0x6080604052')
    node.failing = true
    try {
      refusal(
        await call(h.app, alice, 'POST', `/v1/collections/${id}/publish`, { itemIds }),
        503,
        'rpc_unavailable',
      )
    } finally {
      node.failing = false
    }
    expect((await read(id)).is_published).toBe(false)
  })
})

describe('approval data asks the registry whether the cheque was consumed', () => {
  it('is false until the registry has a receipt for the cheque, then true', async () => {
    const tpId = `urn:decentraland:sepolia:collections-thirdparty:tp${randomUUID().slice(0, 8)}`
    const collection = await createCollection(h.app, alice, { urn: `${tpId}:drop` })
    const itemIds = [await createItem(h.app, alice, collection)]
    const cheque = await signCheque(h.config, alice, tpId, 1)
    expect(
      (await call(h.app, alice, 'POST', `/v1/collections/${collection}/publish`, { itemIds, cheque }))
        .statusCode,
    ).toBe(204)

    const approval = () => call(h.app, h.committee, 'GET', `/v1/collections/${collection}/approvalData`)
    expect((await approval()).json().data.chequeWasConsumed).toBe(false)
    node.receipts.set(`${tpId} ${chequeMessageHash(domainOf(h.config), tpId, cheque)}`, 1n)
    expect((await approval()).json().data.chequeWasConsumed).toBe(true)
    expect(node.calls.filter((c) => c.method === 'eth_call').length).toBeGreaterThanOrEqual(2)
  })
})
