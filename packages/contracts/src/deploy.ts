import { Contract, ContractFactory, type ContractRunner, type Signer } from 'ethers'
import { type Artifact, artifact, type ContractName, collectionInitCodeHash } from './artifacts.js'

/** A contract of ours at `address`, speaking its compiled ABI. */
export const contractAt = (name: ContractName, address: string, runner: ContractRunner): Contract =>
  new Contract(address, artifact(name).abi, runner)

/** Deploys one of our contracts and waits until it is mined. */
export async function deploy(name: ContractName, deployer: Signer, ...args: unknown[]): Promise<Contract> {
  const { abi, bytecode }: Artifact = artifact(name)
  const contract = await new ContractFactory(abi, bytecode, deployer).deploy(...args)
  await contract.waitForDeployment()
  return contract as Contract
}

export interface Deployment {
  /** The ERC-721 the dispenser mints claimed items on. */
  rewardsCollection: string
  /** The `contract` of granted rewards: the voucher's verifyingContract. */
  rewardsDispenser: string
  collectionFactory: string
  collectionInitCodeHash: string
  thirdPartyRegistry: string
  thirdPartyRegistryName: string
}

export interface DeployOptions {
  /** The claims service's voucher signer address, trusted by the dispenser. */
  voucherSigner: string
  /** The curation committee: consumes third-party cheques on the registry, approves collections. */
  committee: string
  /** THIRD_PARTY_REGISTRY_NAME; the collections service's default. */
  registryName?: string
}

/**
 * Everything the services talk to, deployed by `deployer`: a rewards collection with the dispenser as its
 * minter, the collection factory and the third-party registry. Sequential, so the deployer's nonces (and so
 * the addresses on a fresh node) are always the same.
 */
export async function deployAll(deployer: Signer, options: DeployOptions): Promise<Deployment> {
  const registryName = options.registryName ?? 'Decentraland Third Party Registry'
  const rewards = await deploy('Collection', deployer)
  await (await rewards.getFunction('initialize')(await deployer.getAddress())).wait()
  const dispenser = await deploy(
    'RewardsDispenser',
    deployer,
    options.voucherSigner,
    await rewards.getAddress(),
  )
  await (await rewards.getFunction('setMinter')(await dispenser.getAddress(), true)).wait()
  const factory = await deploy('CollectionFactory', deployer, options.committee)
  const registry = await deploy('ThirdPartyRegistry', deployer, registryName, options.committee)
  const lower = async (c: Contract) => (await c.getAddress()).toLowerCase()
  return {
    rewardsCollection: await lower(rewards),
    rewardsDispenser: await lower(dispenser),
    collectionFactory: await lower(factory),
    collectionInitCodeHash: collectionInitCodeHash(),
    thirdPartyRegistry: await lower(registry),
    thirdPartyRegistryName: registryName,
  }
}

export interface LandDeployment {
  landRegistry: string
  estateRegistry: string
  marketplace: string
  mana: string
  /** The block the first of them was deployed in: where an indexer starts. */
  startBlock: number
}

/**
 * The LAND registry, the estate registry (allowed to move parcels into itself), MANA and the marketplace
 * priced in it, deployed by `deployer` one after the other (stable addresses on a fresh node).
 */
export async function deployLand(deployer: Signer): Promise<LandDeployment> {
  const land = await deploy('LANDRegistry', deployer)
  const receipt = await land.deploymentTransaction()?.wait()
  const estates = await deploy('EstateRegistry', deployer, await land.getAddress())
  await (await land.getFunction('setEstateRegistry')(await estates.getAddress())).wait()
  const mana = await deploy('MANAToken', deployer)
  const marketplace = await deploy('Marketplace', deployer, await mana.getAddress())
  const lower = async (c: Contract) => (await c.getAddress()).toLowerCase()
  return {
    landRegistry: await lower(land),
    estateRegistry: await lower(estates),
    marketplace: await lower(marketplace),
    mana: await lower(mana),
    startBlock: receipt?.blockNumber ?? 0,
  }
}
