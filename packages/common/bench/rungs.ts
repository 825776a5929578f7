/** The rungs of bench/kit-ladder.ts, each adding one of the kit's per-request features to the one before. */
export const RUNGS = [
  'bare',
  'request ids',
  'request logger',
  'metrics',
  'cors headers',
  'createApp',
  'compression hooks',
] as const
export type Rung = (typeof RUNGS)[number]
