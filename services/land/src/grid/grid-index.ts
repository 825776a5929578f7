import type { Sql } from '@genesis/common'
import {
  type DeltaPart,
  LAND_CHANGED_CHANNEL,
  type LandDelta,
  mergeLandDeltas,
  parseLandDelta,
} from '../db/land-changes.js'
import type { Cell } from '../domain/geometry.js'
import { indexNotReady } from '../errors.js'
import type { MapSnapshot, MapSource } from '../render/types.js'
import { applyDelta } from './delta.js'
import { loadGridData } from './load.js'
import { GridView } from './view.js'

export { LAND_CHANGED_CHANNEL }

/** While deltas keep coming, the whole-grid /map is prewarmed only once a view has lasted this long. */
const WHOLE_MAP_QUIET_MS = 3000

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
  /**
   * Awaited once, after the first build and before its view is served (so while the service is not ready
   * and no request waits on it): the server compacts its heap here. Its failure is logged, not fatal.
   */
  beforeFirstView?: () => Promise<void>
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
  /** The newest view whose parcel answers are serialised: the next prewarm carries them over. */
  private answered: GridView | undefined
  /** The one loop that builds and patches, one at a time, in the order asked (see drain). */
  private draining: Promise<void> | undefined
  /** Callers of refresh() waiting for a full build that starts after their call. */
  private fullWaiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = []
  /** A full build is wanted (a refresh() call, or a notification that names no rows). */
  private fullWanted = false
  /** Rows named by notifications and not yet re-read. */
  private pendingDelta: LandDelta | undefined
  /** The parts received of changes sent in parts, by token (a transaction's parts arrive together). */
  private readonly partial = new Map<string, Map<number, LandDelta>>()
  /** A notification asked for a full build; the debounce timer turns it into one. */
  private noticedFull = false
  private timer: NodeJS.Timeout | undefined
  private pendingSince = 0
  private unlisten: (() => Promise<void>) | undefined
  private closed = false
  private readonly debounceMs: number
  private readonly prewarm: boolean
  private beforeFirstView: (() => Promise<void>) | undefined
  private readonly logger: GridLogger
  /** Told of every view swapped in (the atlas builds its answers ahead of the requests). */
  private readonly viewListeners = new Set<(view: GridView) => void>()
  /** How many builds have been swapped in; tests wait on it. */
  generation = 0
  /** How many of those were full builds, and how many patched the previous data with a delta. */
  readonly refreshes = { full: 0, delta: 0 }

  constructor(
    private readonly sql: Sql,
    options: GridIndexOptions = {},
  ) {
    this.debounceMs = options.debounceMs ?? 100
    this.prewarm = options.prewarm ?? false
    this.beforeFirstView = options.beforeFirstView
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
    this.adopt(next, true)
    return next
  }

  /** Calls `listener` with each view swapped in from now on; returns what stops it. */
  onView(listener: (view: GridView) => void): () => void {
    this.viewListeners.add(listener)
    return () => this.viewListeners.delete(listener)
  }

  /**
   * Swaps the view in. `carry`: its data keeps the previous data's unchanged records (a delta, an expiry),
   * so its prewarm re-serialises only the parcels that differ from the newest prewarmed view.
   */
  private adopt(view: GridView, carry: boolean): void {
    const old = this.view
    if (old?.prewarmed) this.answered = old
    if (!carry) this.answered = undefined
    this.view = view
    for (const listener of this.viewListeners) listener(view)
    if (this.prewarm) {
      const stillCurrent = () => this.view === view && !this.closed
      view.prewarm(stillCurrent, this.answered, carry ? WHOLE_MAP_QUIET_MS : 0).catch((err) => {
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
    return new Promise<void>((resolve, reject) => {
      this.fullWaiters.push({ resolve, reject })
      this.fullWanted = true
      this.kick()
    })
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

  /**
   * Follows what another process (or replica) changes in the land tables. Real PostgreSQL only. A
   * notification naming rows (the indexer's) patches the index with those rows; any other (a table name)
   * rebuilds it.
   */
  async listen(): Promise<void> {
    let connected = false
    const { unlisten } = await this.sql.listen(
      LAND_CHANGED_CHANNEL,
      (payload) => this.noticed(payload),
      () => {
        // On a reconnect notifications may have been missed while the connection was down.
        if (connected) {
          this.partial.clear()
          this.scheduleRefresh()
        }
        connected = true
      },
    )
    this.unlisten = unlisten
  }

  /** Resolves once no change is waiting to be read and no build or patch is running. */
  async idle(): Promise<void> {
    while (this.timer || this.draining || this.fullWanted || this.pendingDelta) {
      await (this.draining?.catch(() => {}) ?? new Promise((resolve) => setTimeout(resolve, 10)))
    }
  }

  /** Debounced full rebuild: waits for a quiet period, but never longer than 10 periods after the first change. */
  scheduleRefresh(): void {
    this.noticedFull = true
    this.debounce()
  }

  /**
   * A land_changed payload: from LISTEN, or from a writer in this process on the embedded database (which
   * has no NOTIFY across connections). Rows named are patched in; anything else rebuilds.
   */
  noticed(payload: string): void {
    const parsed = parseLandDelta(payload)
    if (!parsed) {
      this.scheduleRefresh()
      return
    }
    const delta = parsed.part ? this.assemble(parsed.delta, parsed.part) : parsed.delta
    if (!delta) return
    this.pendingDelta = this.pendingDelta ? mergeLandDeltas(this.pendingDelta, delta) : delta
    this.debounce()
  }

  /** A part of a change sent in parts: the whole change once every part is in, else undefined. */
  private assemble(delta: LandDelta, part: DeltaPart): LandDelta | undefined {
    const parts = this.partial.get(part.token) ?? new Map<number, LandDelta>()
    this.partial.set(part.token, parts.set(part.index, delta))
    if (parts.size < part.count) return undefined
    this.partial.delete(part.token)
    return [...parts.values()].reduce(mergeLandDeltas)
  }

  private debounce(): void {
    if (this.closed) return
    const now = Date.now()
    if (this.timer) clearTimeout(this.timer)
    else this.pendingSince = now
    const deadline = Math.min(now + this.debounceMs, this.pendingSince + this.debounceMs * 10)
    this.timer = setTimeout(
      () => {
        this.timer = undefined
        if (!this.noticedFull) {
          this.kick()
          return
        }
        this.noticedFull = false
        this.refresh().catch((err) => {
          this.logger.error({ err }, 'refreshing the land index failed, retrying')
          this.retryLater()
        })
      },
      Math.max(0, deadline - now),
    )
    this.timer.unref()
  }

  private retryLater(): void {
    setTimeout(() => this.scheduleRefresh(), 1000).unref()
  }

  private kick(): void {
    if (this.draining) return
    // after the current task: the calls made in it share one build
    this.draining = Promise.resolve()
      .then(() => this.drain())
      .finally(() => {
        this.draining = undefined
        if (!this.closed && (this.fullWanted || this.pendingDelta)) this.kick()
      })
  }

  /**
   * Builds and patches one at a time, in the order the changes were committed: a full build clears the
   * deltas noticed before it starts (its snapshot holds them), and a delta noticed while a build runs is
   * applied after it (the build's snapshot may predate the delta's commit).
   */
  private async drain(): Promise<void> {
    for (;;) {
      if (this.closed) {
        for (const waiter of this.fullWaiters.splice(0)) waiter.resolve()
        return
      }
      if (this.fullWanted || (this.pendingDelta && !this.view)) {
        const waiters = this.fullWaiters.splice(0)
        const dropped = this.pendingDelta !== undefined
        this.fullWanted = false
        this.pendingDelta = undefined
        try {
          await this.build()
          for (const waiter of waiters) waiter.resolve()
        } catch (err) {
          for (const waiter of waiters) waiter.reject(err)
          // nobody asked who would retry: the changes it was to show must not be lost
          if (waiters.length === 0 || dropped) {
            this.logger.error({ err }, 'rebuilding the land index failed, retrying')
            this.retryLater()
          }
        }
      } else if (this.pendingDelta) {
        const delta = this.pendingDelta
        this.pendingDelta = undefined
        try {
          if (!(await this.patch(delta))) this.fullWanted = true
        } catch (err) {
          this.logger.error({ err }, 'patching the land index failed, rebuilding it')
          this.fullWanted = true
        }
      } else return
    }
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    await this.unlisten?.().catch(() => {})
    await this.draining?.catch(() => {})
  }

  private async build(): Promise<void> {
    const started = Date.now()
    const data = await loadGridData(this.sql, started)
    if (this.closed) return
    const before = this.beforeFirstView
    if (before) {
      this.beforeFirstView = undefined
      await before().catch((err: unknown) =>
        this.logger.error({ err }, 'preparing the first land view failed'),
      )
      if (this.closed) return
    }
    // One assignment swaps everything: a request holds the view it started with.
    const view = new GridView(data, Date.now())
    this.adopt(view, false)
    this.generation++
    this.refreshes.full++
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

  /** Re-reads the rows a delta names into a new view; false when only a full build can show it. */
  private async patch(delta: LandDelta): Promise<boolean> {
    const base = this.view
    if (!base) return false
    const started = Date.now()
    const result = await applyDelta(this.sql, base.data, delta, started)
    if (!result) return false
    if (this.closed) return true
    const view = new GridView(result.data, Date.now())
    this.adopt(view, true)
    this.generation++
    this.refreshes.delta++
    this.logger.info(
      {
        ms: Date.now() - started,
        parcels: result.parcels,
        estates: result.estates,
        assets: result.assets,
        version: view.version,
        generation: this.generation,
      },
      'land index patched',
    )
    return true
  }
}
