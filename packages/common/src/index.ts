export * from '@genesis/wire'
export {
  type Admission,
  type AdmissionOptions,
  type AdmissionStats,
  createAdmission,
  overloaded,
} from './admission.js'
export * from './auth/native-crypto.js'
export * from './auth/signed-fetch.js'
export * from './chain/backoff.js'
export * from './chain/chain-identity.js'
export * from './chain/json-rpc.js'
export * from './chain/log-range.js'
export * from './chain/pool-provider.js'
export * from './chain/providers.js'
export * from './chain/rpc-urls.js'
export * from './config.js'
export * from './data-dir.js'
export * from './db/batches.js'
export * from './db/create-database.js'
export * from './db/database.js'
export {
  createEmbeddedCluster,
  EmbeddedDatabaseInUse,
  type EmbeddedPostgres,
  embeddedHolder,
  embeddedLockFile,
  hasEmbeddedCluster,
  lockEmbeddedDataDir,
  startEmbeddedPostgres,
} from './db/embedded.js'
export * from './db/migrate.js'
export * from './db/queryable.js'
export * from './db/transaction-scope.js'
export { DatabaseTimeoutError, isDatabaseUnavailable } from './db/unreachable.js'
export * from './dev-secret.js'
export * from './display-text.js'
export * from './envelope.js'
export * from './errors.js'
export type { AdmissionSettings } from './kit/admission-hooks.js'
export * from './kit/create-app.js'
export * from './kit/logger.js'
export * from './kit/open-service.js'
export { prettyLogStream, wantsPrettyLogs } from './kit/pretty-log.js'
export { type RouteEntry, routesOf } from './kit/route-table.js'
export * from './kit/run-service.js'
export * from './kit/service.js'
export type { AuthMode } from './kit/signed-fetch-hook.js'
