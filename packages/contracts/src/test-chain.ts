import { type JsonRpcProvider, Wallet } from 'ethers'
import { type Anvil, startAnvil } from './anvil.js'
import { type Deployment, type DeployOptions, deployAll } from './deploy.js'

/** Anvil's development account that deploys the contracts. */
export const DEPLOYER_ACCOUNT = 0
/** Anvil's development account that funds the tests' new wallets. */
export const FUNDER_ACCOUNT = 1

/** A fresh anvil node with the services' contracts, for the tests on a real chain. */
export interface ChainWithContracts {
  anvil: Anvil
  /** A provider on the node. */
  provider: JsonRpcProvider
  d: Deployment
  /** Development account FUNDER_ACCOUNT, which funds new wallets. */
  funder: Wallet
  /** Development account `index`, connected to the provider. */
  devWallet(index: number): Wallet
  /** A new random wallet on the node, funded with 1 ETH (one funding at a time: the funder's nonces). */
  fundedWallet(): Promise<Wallet>
  /** Destroys the provider and stops the node for good. */
  close(): Promise<void>
}

/**
 * Starts anvil and deploys every contract the services talk to (`deployAll`) from development account
 * DEPLOYER_ACCOUNT; `options` names the voucher signer and the committee, given the development accounts.
 */
export async function startChainWithContracts(
  options: (devWallet: (index: number) => Wallet) => DeployOptions,
): Promise<ChainWithContracts> {
  const anvil = await startAnvil()
  const provider = anvil.provider()
  const devWallet = (index: number) => anvil.devWallet(index, provider)
  const funder = devWallet(FUNDER_ACCOUNT)
  try {
    const d = await deployAll(devWallet(DEPLOYER_ACCOUNT), options(devWallet))
    let funding = Promise.resolve()
    return {
      anvil,
      provider,
      d,
      funder,
      devWallet,
      async fundedWallet() {
        const wallet = Wallet.createRandom().connect(provider) as unknown as Wallet
        const funded = funding.then(async () => {
          await (await funder.sendTransaction({ to: wallet.address, value: 10n ** 18n })).wait()
        })
        funding = funded.catch(() => {})
        await funded
        return wallet
      },
      async close() {
        provider.destroy()
        await anvil.close()
      },
    }
  } catch (error) {
    provider.destroy()
    await anvil.close()
    throw error
  }
}
