// `pnpm chain`: a local anvil node with our contracts deployed, and the environment to give the services.
// Stays in the foreground; Ctrl-C stops the node (its state is not kept).
import { Wallet } from 'ethers'
import { devPrivateKey, LOCAL_CHAIN_ID, startAnvil } from './anvil.js'
import { deployAll } from './deploy.js'

const port = Number(process.env.ANVIL_PORT ?? 8545)
const anvil = await startAnvil({ port, chainId: LOCAL_CHAIN_ID })
const provider = anvil.provider()
const deployer = anvil.devWallet(0, provider)
// Dev accounts 9 and 8 (funded, keys public): the claims voucher signer and the curation committee.
const voucherSigner = new Wallet(devPrivateKey(9))
const committee = new Wallet(devPrivateKey(8))
const d = await deployAll(deployer, { voucherSigner: voucherSigner.address, committee: committee.address })

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
}
const lines = Object.entries(env).map(([k, v]) => `${k}=${/\s/.test(v) ? `'${v}'` : v}`)
console.log(`anvil ${anvil.url} (chain ${LOCAL_CHAIN_ID}), contracts deployed by ${deployer.address}
  rewards dispenser   ${d.rewardsDispenser}  (grant rewards with chain_id "${LOCAL_CHAIN_ID}" and this contract)
  rewards collection  ${d.rewardsCollection}  (ERC-721 the dispenser mints on)
  collection factory  ${d.collectionFactory}  (deployCollection(salt))
  third-party registry ${d.thirdPartyRegistry}  (committee ${committee.address}, key ${committee.privateKey})

Environment for the services (both read what they need; e.g. \`export\` these lines, then \`pnpm start\`):
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
