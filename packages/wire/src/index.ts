// What every service's answers share: the envelopes, the common fields and the characters refused in text.
// The services' own contracts are the subpaths `./claims`, `./collections` and `./land`; `./signing` signs
// requests.
export type { Static, TSchema } from '@sinclair/typebox'
export * from './envelope.js'
export * from './errors.js'
export * from './text-controls.js'
