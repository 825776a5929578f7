/**
 * Concurrent calls of one statement gathered into one statement. PostgreSQL's cost of a small write is
 * mostly per statement and per commit (a round trip, opening the tables and indexes, the commit's WAL
 * flush), and so is the client's (a message out and a result in): `n` creates in one statement pay those
 * once.
 *
 * Each call still has its own outcome:
 * - `many` answers one result per item, in order (a row per item, never one verdict for all);
 * - an item that `joins` says must not share a statement with those already taken (the same reward, the
 *   same signature: one statement could not tell which of the two won) waits for a later batch, so items
 *   of one batch never decide each other's outcome;
 * - when `many` fails (a lost race, a constraint, a cut statement), each item of that batch runs alone
 *   through `one`, so that a failure is the failing item's only and each gets the answer it would get on
 *   its own;
 * - a batch of one item runs through `one`: a lone request does exactly what it did unbatched.
 *
 * When to flush: on the event loop's next turn, so that the calls made in one turn (requests whose reads
 * answered together) go together, while fewer than `maxInFlight` batches are running; otherwise the items
 * wait for one to end, and the next batch takes up to `maxItems` of them. Under light load a call goes
 * alone after one turn; under load the batches grow with the queue (group commit). More than one batch
 * may run, so that one slow statement (a lock waited for) does not hold every other call.
 */
export interface BatcherOptions<In, Out> {
  /** The statement for several items: one result per item, in the items' order. */
  many: (items: In[]) => Promise<Out[]>
  /** The statement for one item (a lone item, and each item of a batch that failed). */
  one: (item: In) => Promise<Out>
  /** Whether `item` may join a batch holding `taken` (default: always). */
  joins?: (taken: In[], item: In) => boolean
  /** Items of one batch at most. */
  maxItems: number
  /** Batches running at once at most. */
  maxInFlight: number
}

export interface Batcher<In, Out> {
  run(item: In): Promise<Out>
}

interface Waiting<In, Out> {
  item: In
  resolve: (out: Out) => void
  reject: (error: unknown) => void
}

export function createBatcher<In, Out>(options: BatcherOptions<In, Out>): Batcher<In, Out> {
  const { many, one, joins = () => true, maxItems, maxInFlight } = options
  let queue: Waiting<In, Out>[] = []
  let inFlight = 0

  /** The next batch: the first waiting item and those after it that may join it, up to maxItems. */
  function take(): Waiting<In, Out>[] {
    const batch: Waiting<In, Out>[] = []
    const items: In[] = []
    const left: Waiting<In, Out>[] = []
    for (const waiting of queue) {
      if (batch.length < maxItems && (batch.length === 0 || joins(items, waiting.item))) {
        batch.push(waiting)
        items.push(waiting.item)
      } else left.push(waiting)
    }
    queue = left
    return batch
  }

  function flush() {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = take()
      inFlight++
      void runBatch(batch).finally(() => {
        inFlight--
        flush()
      })
    }
  }

  async function runBatch(batch: Waiting<In, Out>[]) {
    if (batch.length === 1) return settle(batch[0]!)
    let outs: Out[]
    try {
      outs = await many(batch.map((waiting) => waiting.item))
    } catch {
      // nothing of the failed statement was written: each item again, on its own
      await Promise.all(batch.map(settle))
      return
    }
    for (const [i, waiting] of batch.entries()) waiting.resolve(outs[i]!)
  }

  async function settle(waiting: Waiting<In, Out>) {
    try {
      waiting.resolve(await one(waiting.item))
    } catch (error) {
      waiting.reject(error)
    }
  }

  let scheduled = false
  // flush once per turn, after every call of the turn has joined the queue
  const schedule = () => {
    if (scheduled) return
    scheduled = true
    setImmediate(() => {
      scheduled = false
      flush()
    })
  }

  return {
    run: (item) =>
      new Promise<Out>((resolve, reject) => {
        queue.push({ item, resolve, reject })
        schedule()
      }),
  }
}
