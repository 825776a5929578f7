import { afterAll, beforeAll } from 'vitest'
import { loadConfig } from '../src/config.js'
import { describeApprovalOnChain } from './approval-on-chain.js'
import { type Harness, setup } from './helpers.js'
import { JsonRpcNode } from './json-rpc-node.js'

// The approval scenarios over a real ethers JsonRpcProvider against the loopback node; an anvil test can
// run the same scenarios (describeApprovalOnChain) with a ChainControl that deploys and calls setApproved.
const defaults = loadConfig({})
const node = new JsonRpcNode(defaults.THIRD_PARTY_REGISTRY_CHAIN_ID, defaults.THIRD_PARTY_REGISTRY_ADDRESS)
let h: Harness
beforeAll(async () => {
  const rpcUrl = await node.start()
  h = await setup({ env: { RPC_URL: rpcUrl, RPC_TIMEOUT_MS: '2000' } })
})
afterAll(async () => {
  await h.close()
  await node.stop()
})

describeApprovalOnChain(() => h, {
  deploy: async (contract) => {
    node.code.set(contract.toLowerCase(), '0x6080604052')
  },
  setApproved: async (contract, approved) => {
    node.approved.set(contract.toLowerCase(), approved)
  },
  whileDown: async (during) => {
    node.failing = true
    try {
      return await during()
    } finally {
      node.failing = false
    }
  },
})
