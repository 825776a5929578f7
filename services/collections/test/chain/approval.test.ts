import { startBeforeAll } from '@genesis/common/testing/vitest'
import { chainTestsSkipReason, contractAt, startChainWithContracts } from '@genesis/contracts'
import { keccak256, toUtf8Bytes, type Wallet } from 'ethers'
import { beforeAll, describe, expect } from 'vitest'
import { describeApprovalOnChain } from '../approval-on-chain.js'
import { useHarness } from '../helpers.js'
import { COMMITTEE_ACCOUNT, chainEnv } from './service.js'

// The approval scenarios (is_approved read from the collection contract) on a real anvil node: collections
// deployed through the factory, approved by the committee with setApproved, the node stopped and restarted.
const skip = chainTestsSkipReason()

describe.skipIf(skip)('the committee approval on a real chain (anvil)', () => {
  const chain = startBeforeAll(() =>
    startChainWithContracts((devWallet) => ({
      voucherSigner: devWallet(COMMITTEE_ACCOUNT).address,
      committee: devWallet(COMMITTEE_ACCOUNT).address,
    })),
  )
  const h = useHarness(() => ({ env: chainEnv(chain) }))
  let committee: Wallet
  let creator: Wallet
  beforeAll(() => {
    committee = chain.devWallet(COMMITTEE_ACCOUNT)
    creator = chain.devWallet(3)
  })

  describeApprovalOnChain(() => h, {
    deploy: async (id, contract, owner) => {
      // the owner's own wallet, funded for the transaction, deploys: the contract's owner is the collection's
      await (await creator.sendTransaction({ to: owner.wallet.address, value: 10n ** 17n })).wait()
      const factory = contractAt(
        'CollectionFactory',
        chain.d.collectionFactory,
        owner.wallet.connect(chain.provider),
      )
      // the salt the service derives: keccak256 of the id as sent
      await (await factory.getFunction('deployCollection')(keccak256(toUtf8Bytes(id)))).wait()
      expect((await chain.provider.getCode(contract)).length).toBeGreaterThan(2)
    },
    makeManager: async (thirdPartyId, address) => {
      const registry = contractAt('ThirdPartyRegistry', chain.d.thirdPartyRegistry, committee)
      await (await registry.getFunction('setManager')(thirdPartyId, address, true)).wait()
    },
    setApproved: async (contract, approved) => {
      const collection = contractAt('Collection', contract, committee)
      await (await collection.getFunction('setApproved')(approved)).wait()
    },
    whileDown: async (during) => {
      await chain.anvil.stop()
      try {
        return await during()
      } finally {
        await chain.anvil.start() // same port, same chain state
      }
    },
  })
})
