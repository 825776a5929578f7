// `pnpm chain`: a local anvil node with our contracts deployed, and the environment to give the services,
// printed as `export` lines and written to the chain env file that `pnpm start` and `pnpm demo` read.
// Stays in the foreground; Ctrl-C stops the node (its state is not kept) and removes the file.
import { relative } from 'node:path'
import { Wallet } from 'ethers'
import { devPrivateKey, LOCAL_CHAIN_ID, startAnvil } from './anvil.js'
import { chainEnvFile, exportLines, removeChainEnv, writeChainEnv } from './chain-env.js'
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
  // claims: anvil mines a block per transaction and never reorganises, so a block counts once mined,
  // and the reconciler looks every second (a claim settles at its first tick after the voucher is mined)
  [`RPC_URL_${LOCAL_CHAIN_ID}`]: anvil.url,
  CLAIMS_SIGNER_PRIVATE_KEY: voucherSigner.privateKey,
  CLAIMS_CONFIRMATIONS: '0',
  RECONCILE_INTERVAL_MS: '1000',
  // the contract rewards on this chain are granted with (`pnpm demo --chain` reads it)
  REWARDS_DISPENSER_ADDRESS: d.rewardsDispenser,
  // collections
  RPC_URL: anvil.url,
  COLLECTION_FACTORY_ADDRESS: d.collectionFactory,
  COLLECTION_INIT_CODE_HASH: d.collectionInitCodeHash,
  THIRD_PARTY_REGISTRY_ADDRESS: d.thirdPartyRegistry,
  THIRD_PARTY_REGISTRY_CHAIN_ID: String(LOCAL_CHAIN_ID),
  THIRD_PARTY_REGISTRY_NAME: d.thirdPartyRegistryName,
  COMMITTEE_ADDRESSES: committee.address.toLowerCase(),
  // the committee member's key, for `pnpm demo` (collections reads only the address)
  COMMITTEE_PRIVATE_KEY: committee.privateKey,
  // land
  LAND_RPC_URL: anvil.url,
  LAND_REGISTRY_ADDRESS: land.landRegistry,
  ESTATE_REGISTRY_ADDRESS: land.estateRegistry,
  MARKETPLACE_ADDRESS: land.marketplace,
  LAND_START_BLOCK: String(land.startBlock),
}
const file = chainEnvFile()
const near = relative(process.env.INIT_CWD ?? process.cwd(), file)
const shown = near && !near.startsWith('..') ? near : file
const written = writeChainEnv(file, env, [
  `Written by \`pnpm chain\` (anvil ${anvil.url}, chain ${LOCAL_CHAIN_ID}); removed when it stops.`,
  '`pnpm start` and `pnpm demo` read it; a variable exported in the shell wins over it.',
])

console.log(`anvil ${anvil.url} (chain ${LOCAL_CHAIN_ID}), contracts deployed by ${deployer.address}
  rewards dispenser   ${d.rewardsDispenser}  (grant rewards with chain_id "${LOCAL_CHAIN_ID}" and this contract)
  rewards collection  ${d.rewardsCollection}  (ERC-721 the dispenser mints on)
  collection factory  ${d.collectionFactory}  (deployCollection(salt))
  third-party registry ${d.thirdPartyRegistry}  (committee ${committee.address}, key ${committee.privateKey})
  LAND registry       ${land.landRegistry}  (owner ${deployer.address})
  estate registry     ${land.estateRegistry}
  marketplace         ${land.marketplace}  (priced in MANA ${land.mana}, minted by ${deployer.address})

The services' environment, written to ${shown}:
\`pnpm start\` and \`pnpm demo --chain\` in another shell read it by themselves. For any other command,
load it first with \`set -a; . ${shown}; set +a\`, or paste these lines:

${exportLines(env).join('\n')}

Put Genesis City on this chain with \`pnpm --filter @genesis/land chain:demo\` (with that environment).
Funded wallets: anvil's development accounts (mnemonic "test test test test test test test test test test test junk").
Ctrl-C stops the node.`)

const shutdown = async () => {
  removeChainEnv(file, written)
  provider.destroy()
  await anvil.close()
  process.exit(0)
}
process.once('SIGINT', shutdown)
process.once('SIGTERM', shutdown)
