import { Counter, Gauge, type Registry } from 'prom-client'
import { type ChainCursor, lagOf } from '../db/chain-state.js'
import type { SkipReason } from './handlers/index.js'

/** The indexer's metrics, read from its last known cursor when scraped. */
export class IndexerMetrics {
  private readonly skippedEvents: Counter<'reason'>
  private readonly reorgs: Counter
  /** Skipped events by reason, since start (also in the metric). */
  readonly skipped = new Map<SkipReason, number>()

  constructor(registry: Registry | undefined, cursor: () => ChainCursor | null) {
    const registers = registry ? [registry] : []
    new Gauge({
      name: 'land_indexer_block',
      help: 'The last block of the chain indexed into the land tables',
      registers,
      collect() {
        const c = cursor()
        if (c) this.set(Number(c.blockNumber))
      },
    })
    new Gauge({
      name: 'land_indexer_lag_seconds',
      help: 'Seconds since the indexed data was last known to be current with the chain',
      registers,
      collect() {
        const c = cursor()
        if (c) this.set(lagOf(c))
      },
    })
    this.skippedEvents = new Counter({
      name: 'land_indexer_skipped_events_total',
      help: 'Events on chain the indexer skipped, by reason (bad data, other NFTs...)',
      labelNames: ['reason'],
      registers,
    })
    this.reorgs = new Counter({
      name: 'land_indexer_reorgs_total',
      help: 'Chain reorganisations undone',
      registers,
    })
  }

  countSkipped(skipped: ReadonlyMap<SkipReason, number>): void {
    for (const [reason, count] of skipped) {
      this.skipped.set(reason, (this.skipped.get(reason) ?? 0) + count)
      this.skippedEvents.inc({ reason }, count)
    }
  }

  countReorg(): void {
    this.reorgs.inc()
  }
}
