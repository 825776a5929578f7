export {
  ANVIL_MNEMONIC,
  type Anvil,
  type AnvilOptions,
  anvilBinary,
  anvilUnavailableReason,
  chainTestsSkipReason,
  devPrivateKey,
  LOCAL_CHAIN_ID,
  startAnvil,
} from './anvil.js'
export { type Artifact, artifact, type ContractName, collectionInitCodeHash } from './artifacts.js'
export {
  contractAt,
  type Deployment,
  type DeployOptions,
  deploy,
  deployAll,
  deployLand,
  type LandDeployment,
} from './deploy.js'
export {
  decodeTokenId,
  encodeTokenId,
  LAND_EVENTS,
  type LandContract,
  type LandEventKey,
  type LandEventName,
  landEventSignature,
} from './land.js'
export {
  type ChainWithContracts,
  DEPLOYER_ACCOUNT,
  FUNDER_ACCOUNT,
  startChainWithContracts,
} from './test-chain.js'
