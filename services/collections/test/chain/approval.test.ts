import {
  type Anvil,
  chainTestsSkipReason,
  contractAt,
  type Deployment,
  deployAll,
  startAnvil,
} from '@genesis/contracts'
import { type JsonRpcProvider, keccak256, toUtf8Bytes, type Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect } from 'vitest'
import { describeApprovalOnChain } from '../approval-on-chain.js'
import { type Harness, setup } from '../helpers.js'

// The approval scenarios (is_approved read from the collection contract) on a real anvil node: collections
// deployed through the factory, approved by the committee with setApproved, the node stopped and restarted.
const skip = chainTestsSkipReason()
let anvil: Anvil
let provider: JsonRpcProvider
let deployment: Deployment
let committee: Wallet
let creator: Wallet
let h: Harness

describe.skipIf(skip)('the committee approval on a real chain (anvil)', () => {
  beforeAll(async () => {
    anvil = await startAnvil()
    provider = anvil.provider()
    committee = anvil.devWallet(2, provider)
    creator = anvil.devWallet(3, provider)
    deployment = await deployAll(anvil.devWallet(0, provider), {
      voucherSigner: committee.address,
      committee: committee.address,
    })
    h = await setup({
      env: {
        RPC_URL: anvil.url,
        RPC_TIMEOUT_MS: '2000',
        COLLECTION_FACTORY_ADDRESS: deployment.collectionFactory,
        COLLECTION_INIT_CODE_HASH: deployment.collectionInitCodeHash,
        THIRD_PARTY_REGISTRY_ADDRESS: deployment.thirdPartyRegistry,
        THIRD_PARTY_REGISTRY_CHAIN_ID: String(anvil.chainId),
      },
    })
  })
  afterAll(async () => {
    provider?.destroy()
    await h?.close()
    await anvil?.close()
  })

  describeApprovalOnChain(() => h, {
    deploy: async (id, contract, owner) => {
      // the owner's own wallet, funded for the transaction, deploys: the contract's owner is the collection's
      await (await creator.sendTransaction({ to: owner.wallet.address, value: 10n ** 17n })).wait()
      const factory = contractAt(
        'CollectionFactory',
        deployment.collectionFactory,
        owner.wallet.connect(provider),
      )
      // the salt the service derives: keccak256 of the id as sent
      await (await factory.getFunction('deployCollection')(keccak256(toUtf8Bytes(id)))).wait()
      expect((await provider.getCode(contract)).length).toBeGreaterThan(2)
    },
    makeManager: async (thirdPartyId, address) => {
      const registry = contractAt('ThirdPartyRegistry', deployment.thirdPartyRegistry, committee)
      await (await registry.getFunction('setManager')(thirdPartyId, address, true)).wait()
    },
    setApproved: async (contract, approved) => {
      const collection = contractAt('Collection', contract, committee)
      await (await collection.getFunction('setApproved')(approved)).wait()
    },
    whileDown: async (during) => {
      await anvil.stop()
      try {
        return await during()
      } finally {
        await anvil.start() // same port, same chain state
      }
    },
  })
})
