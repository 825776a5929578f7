// `pnpm --filter @genesis/land chain:demo`: writes the Genesis City demo set on the local chain that
// `pnpm chain` started, with the environment it printed (LAND_RPC_URL and the three contract addresses).
// DEMO_ADMIN_KEY: the LAND registry's owner (default: anvil's development account 0, which deployed it);
// DEMO_PARCELS: only the first N parcels of the set (and the estates and listings among them).
import { Wallet } from 'ethers'
import { generateGenesisCity, readSourceData } from '../../src/seed/genesis-city.js'
import { slice } from './slice.js'
import { writeDemoOnChain } from './writer.js'

const ANVIL_ACCOUNT_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'

function required(name: string): string {
  const value = process.env[name]
  if (!value) {
    console.error(`${name} is not set: export the environment \`pnpm chain\` printed first`)
    process.exit(2)
  }
  return value
}

const rpcUrl = required('LAND_RPC_URL')
const admin = new Wallet(process.env.DEMO_ADMIN_KEY ?? ANVIL_ACCOUNT_0)
let set = generateGenesisCity(readSourceData())
if (process.env.DEMO_PARCELS) set = slice(set, Number(process.env.DEMO_PARCELS))
const started = Date.now()
let last = ''
const summary = await writeDemoOnChain(
  rpcUrl,
  admin.address,
  {
    landRegistry: required('LAND_REGISTRY_ADDRESS'),
    estateRegistry: required('ESTATE_REGISTRY_ADDRESS'),
    marketplace: required('MARKETPLACE_ADDRESS'),
  },
  set,
  {
    progress: (step, done, total) => {
      const line = `${step} ${done}/${total}`
      if (step !== last.split(' ')[0] || done === total || done % 2000 < 400)
        process.stderr.write(`\r${line}   `)
      last = line
    },
  },
).catch((error: Error) => {
  process.stderr.write('\n')
  console.error(error.message)
  console.error('(the demo set goes on a chain once: on a chain that has it already, the assignments fail)')
  process.exit(1)
})
process.stderr.write('\n')
console.log(
  `Genesis City on chain in ${((Date.now() - started) / 1000).toFixed(1)} s: ${summary.parcels} parcels, ` +
    `${summary.names} names, ${summary.estates} estates, ${summary.orders} open listings ` +
    `(${summary.transactions} transactions in ${summary.blocks} blocks)`,
)
