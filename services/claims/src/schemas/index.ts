export * from './claim-transaction.js'
export * from './primitives.js'
export * from './reward.js'
export * from './signer.js'
