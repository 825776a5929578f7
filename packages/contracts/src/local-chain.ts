// `pnpm chain`: a local anvil node with our contracts deployed, and the environment to give the services.
// Stays in the foreground; Ctrl-C stops the node (its state is not kept).
import { Wallet } from 'ethers'
import { devPrivateKey, LOCAL_CHAIN_ID, startAnvil } from './anvil.js'
import { deployAll, deployLand } from './deploy.js'

const port = Number(process.env.ANVIL_PORT ?? 8545)
const anvil = await startAnvil({ port, chainId: LOCAL_CHAIN_ID })
const provider = anvil.provider()
const deployer = anvil.devWallet(0, provider)
// Dev accounts 9 and 8 (funded, keys public): the claims voucher signer and the curation committee.
const voucherSigner = new Wallet(devPrivateKey(9))
const committee = new Wallet(devPrivateKey(8))
const d = await deployAll(deployer, { voucherSigner: voucherSigner.address, committee: committee.address })
const land = await deployLand(deployer)

const env = {
  // claims
  [`RPC_URL_${LOCAL_CHAIN_ID}`]: anvil.url,
  CLAIMS_SIGNER_PRIVATE_KEY: voucherSigner.privateKey,
  // collections
  RPC_URL: anvil.url,
  COLLECTION_FACTORY_ADDRESS: d.collectionFactory,
  COLLECTION_INIT_CODE_HASH: d.collectionInitCodeHash,
  THIRD_PARTY_REGISTRY_ADDRESS: d.thirdPartyRegistry,
  THIRD_PARTY_REGISTRY_CHAIN_ID: String(LOCAL_CHAIN_ID),
  THIRD_PARTY_REGISTRY_NAME: d.thirdPartyRegistryName,
  COMMITTEE_ADDRESSES: committee.address.toLowerCase(),
  // land
  LAND_RPC_URL: anvil.url,
  LAND_REGISTRY_ADDRESS: land.landRegistry,
  ESTATE_REGISTRY_ADDRESS: land.estateRegistry,
  MARKETPLACE_ADDRESS: land.marketplace,
  LAND_START_BLOCK: String(land.startBlock),
}
const lines = Object.entries(env).map(([k, v]) => `${k}=${/\s/.test(v) ? `'${v}'` : v}`)
console.log(`anvil ${anvil.url} (chain ${LOCAL_CHAIN_ID}), contracts deployed by ${deployer.address}
  rewards dispenser   ${d.rewardsDispenser}  (grant rewards with chain_id "${LOCAL_CHAIN_ID}" and this contract)
  rewards collection  ${d.rewardsCollection}  (ERC-721 the dispenser mints on)
  collection factory  ${d.collectionFactory}  (deployCollection(salt))
  third-party registry ${d.thirdPartyRegistry}  (committee ${committee.address}, key ${committee.privateKey})
  LAND registry       ${land.landRegistry}  (owner ${deployer.address})
  estate registry     ${land.estateRegistry}
  marketplace         ${land.marketplace}  (priced in MANA ${land.mana}, minted by ${deployer.address})

Environment for the services (each reads what it needs; e.g. \`export\` these lines, then \`pnpm start\`).
Put Genesis City on this chain with \`pnpm --filter @genesis/land chain:demo\` (same environment).
${lines.join('\n')}

Funded wallets: anvil's development accounts (mnemonic "test test test test test test test test test test test junk").
Ctrl-C stops the node.`)

const shutdown = async () => {
  provider.destroy()
  await anvil.close()
  process.exit(0)
}
process.once('SIGINT', shutdown)
process.once('SIGTERM', shutdown)
