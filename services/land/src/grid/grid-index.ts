import type { Sql } from '@genesis/common'
import type { Cell } from '../domain/geometry.js'
import { indexNotReady } from '../errors.js'
import type { MapSnapshot, MapSource } from '../render/types.js'
import { loadGridData } from './load.js'
import { GridView } from './view.js'

export const LAND_CHANGED_CHANNEL = 'land_changed'

export interface GridLogger {
  info(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

export interface GridIndexOptions {
  /** Quiet time after a change notification before rebuilding. */
  debounceMs?: number
  /**
   * Serialise the whole grid (and compress the whole-grid /map) in the background after each build,
   * so that the first client does not pay for it. The server turns it on; tests leave it off.
   */
  prewarm?: boolean
  logger?: GridLogger
}

const silent: GridLogger = { info: () => {}, error: () => {} }

/**
 * The in-memory index of the whole grid. Built from the database, rebuilt off the request path when the
 * data changes (LISTEN land_changed, or refresh() after an in-process write) and swapped in atomically:
 * a request reads one view from start to end.
 */
export class GridIndex implements MapSource {
  private view: GridView | undefined
  private building: Promise<void> | undefined
  private queued: Promise<void> | undefined
  private timer: NodeJS.Timeout | undefined
  private pendingSince = 0
  private unlisten: (() => Promise<void>) | undefined
  private closed = false
  private readonly debounceMs: number
  private readonly prewarm: boolean
  private readonly logger: GridLogger
  /** How many builds have been swapped in; tests wait on it. */
  generation = 0

  constructor(
    private readonly sql: Sql,
    options: GridIndexOptions = {},
  ) {
    this.debounceMs = options.debounceMs ?? 100
    this.prewarm = options.prewarm ?? false
    this.logger = options.logger ?? silent
  }

  get ready(): boolean {
    return this.view !== undefined
  }

  /** The view to answer a request with; a 503 until the first build is done. */
  current(now = Date.now()): GridView {
    const view = this.view
    if (!view) throw indexNotReady()
    if (now < view.validUntil) return view
    // An active publication expired: same data, new view.
    const next = new GridView(view.data, now)
    this.adopt(next)
    return next
  }

  private adopt(view: GridView): void {
    this.view = view
    if (this.prewarm) {
      view
        .prewarm(() => this.view === view && !this.closed)
        .catch((err) => {
          this.logger.error({ err }, 'pre-serialising the land index failed (answers are made on demand)')
        })
    }
  }

  snapshot(): MapSnapshot {
    return this.current()
  }

  /** The estate's parcels (empty for an estate that has none left), undefined for an unknown estate. */
  estateParcels(id: string): Cell[] | undefined {
    return this.current().data.estates.get(id)?.parcels
  }

  /**
   * Rebuilds from the database. Concurrent calls share work, and a call made while a build is running
   * waits for one more build that starts after it (that build sees every change committed before the call).
   */
  refresh(): Promise<void> {
    if (!this.building) {
      this.building = this.build().finally(() => {
        this.building = undefined
      })
      return this.building
    }
    this.queued ??= this.building
      .catch(() => {})
      .then(() => {
        this.queued = undefined
        return this.refresh()
      })
    return this.queued
  }

  /** The first build, retried until it succeeds (the database may still be starting). */
  async start(retryMs = 1000): Promise<void> {
    for (;;) {
      try {
        await this.refresh()
        return
      } catch (err) {
        if (this.closed) return
        this.logger.error({ err }, 'building the land index failed, retrying')
        await new Promise((resolve) => setTimeout(resolve, retryMs))
      }
    }
  }

  /** Rebuilds when another process (or replica) changes the land tables. Real PostgreSQL only. */
  async listen(): Promise<void> {
    let connected = false
    const { unlisten } = await this.sql.listen(
      LAND_CHANGED_CHANNEL,
      () => this.scheduleRefresh(),
      () => {
        // On a reconnect notifications may have been missed while the connection was down.
        if (connected) this.scheduleRefresh()
        connected = true
      },
    )
    this.unlisten = unlisten
  }

  /** Debounced refresh: waits for a quiet period, but never longer than 10 periods after the first change. */
  scheduleRefresh(): void {
    if (this.closed) return
    const now = Date.now()
    if (this.timer) clearTimeout(this.timer)
    else this.pendingSince = now
    const deadline = Math.min(now + this.debounceMs, this.pendingSince + this.debounceMs * 10)
    this.timer = setTimeout(
      () => {
        this.timer = undefined
        this.refresh().catch((err) => {
          this.logger.error({ err }, 'refreshing the land index failed, retrying')
          setTimeout(() => this.scheduleRefresh(), 1000).unref()
        })
      },
      Math.max(0, deadline - now),
    )
    this.timer.unref()
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    await this.unlisten?.().catch(() => {})
    await this.building?.catch(() => {})
    await this.queued?.catch(() => {})
  }

  private async build(): Promise<void> {
    const started = Date.now()
    const data = await loadGridData(this.sql, started)
    if (this.closed) return
    // One assignment swaps everything: a request holds the view it started with.
    const view = new GridView(data, Date.now())
    this.adopt(view)
    this.generation++
    this.logger.info(
      {
        ms: Date.now() - started,
        estates: data.estates.size,
        version: view.version,
        generation: this.generation,
      },
      'land index built',
    )
  }
}
