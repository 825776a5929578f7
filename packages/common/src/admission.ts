import { ServiceUnavailableError } from './errors.js'

export interface AdmissionOptions {
  /** Most pieces of work running at once; 0 turns admission off (everything runs at once, at once). */
  concurrency: number
  /** Most pieces of work waiting for their turn; past it a new one is refused at once. */
  queue: number
  /** Longest wait for a turn; past it the work is refused. */
  maxWaitMs: number
  /** What a refusal asks the client to wait before trying again (Retry-After), in seconds. */
  retryAfterS: number
  /** The work, in the refusal's message: "signature verifications". */
  what: string
  /**
   * Most pieces of one caller (the `caller` given to run/acquire) waiting at once; past it that caller's
   * new piece is refused at once. Default: the whole queue (callers are then not told apart in the queue).
   */
  perCaller?: number
}

export interface AdmissionStats {
  running: number
  waiting: number
  /** Refused since the start: the queue full, or a wait too long. */
  refused: number
}

export interface Admission {
  /**
   * Runs `work` in its turn, or throws a 503 (with Retry-After) when it cannot have one soon enough. Turns
   * go round the callers waiting (`caller`: who asks, e.g. the client's address), one piece each, so that
   * one caller's flood waits behind its own pieces, not in front of everybody's.
   */
  run<T>(work: () => Promise<T>, caller?: string): Promise<T>
  /**
   * Waits for a turn as `run` does and hands back its release, for work that ends elsewhere (an answer
   * once written); releasing twice releases once.
   */
  acquire(caller?: string): Promise<() => void>
  stats(): AdmissionStats
}

/** 503 service_unavailable with Retry-After: too much of this work is running or waiting. */
export const overloaded = (options: Pick<AdmissionOptions, 'what' | 'retryAfterS'>) =>
  new ServiceUnavailableError(`Too many ${options.what} in progress; retry in ${options.retryAfterS} s`, {
    data: { reason: 'overloaded' },
    retryAfterS: options.retryAfterS,
  })

/**
 * How long one turn of the event loop may go on admitting work that finishes without awaiting I/O: cheap
 * pieces (a cached delegation, a native recovery) run many to a turn, a costly one (a long chain recovered
 * in JavaScript) alone, and the loop polls its sockets at least this often.
 */
const TURN_BUDGET_MS = 10

interface Ticket {
  caller: string
  admit: () => void
  timer: NodeJS.Timeout
}

/**
 * Admission control for CPU-heavy work a stranger can ask for (signature verification, renders). Work
 * waits for its turn: the event loop admits waiting pieces one after another for at most TURN_BUDGET_MS of
 * a turn, then yields to poll its sockets (a health probe is answered after one costly piece, not after all
 * those a flood queued), and at most `concurrency` pieces are in progress at once (those awaiting I/O, an
 * RPC, included). At most `queue` pieces wait, each for at most `maxWaitMs`; past either, 503 with
 * Retry-After.
 */
export function createAdmission(options: AdmissionOptions): Admission {
  let refused = 0
  if (options.concurrency <= 0) {
    return {
      run: (work) => work(),
      acquire: async () => () => {},
      stats: () => ({ running: 0, waiting: 0, refused }),
    }
  }
  // Each caller's waiting pieces, callers in the order of their turns (a Map keeps insertion order: a
  // caller served goes to the back).
  const queues = new Map<string, Ticket[]>()
  let waitingCount = 0
  const perCaller = options.perCaller ?? options.queue
  let running = 0
  let turnScheduled = false
  /** When the current turn of the event loop began admitting work. */
  let turnStarted = 0

  /** Takes the ticket out of its caller's queue; the caller leaves the round when it has none left. */
  const remove = (ticket: Ticket, queue: Ticket[]) => {
    queue.splice(queue.indexOf(ticket), 1)
    waitingCount--
    if (queue.length === 0) queues.delete(ticket.caller)
  }
  const admitNext = () => {
    const next = queues.entries().next()
    if (next.done) return
    const [caller, queue] = next.value
    const ticket = queue[0]!
    remove(ticket, queue)
    // the caller's next piece waits for the others' turns
    if (queue.length > 0) {
      queues.delete(caller)
      queues.set(caller, queue)
    }
    clearTimeout(ticket.timer)
    running++
    ticket.admit()
  }
  const scheduleTurn = () => {
    if (turnScheduled || waitingCount === 0 || running >= options.concurrency) return
    turnScheduled = true
    // an immediate queued from an immediate runs in the next iteration of the loop, after its poll phase
    setImmediate(nextTurn)
  }
  function nextTurn() {
    turnScheduled = false
    if (running >= options.concurrency) return
    turnStarted = performance.now()
    admitNext()
    scheduleTurn()
  }
  /** A piece finished: the next runs at once while this turn is young, else in a turn of its own. */
  const finished = () => {
    running--
    if (performance.now() - turnStarted < TURN_BUDGET_MS && running < options.concurrency) admitNext()
    else scheduleTurn()
  }

  async function acquire(caller = ''): Promise<() => void> {
    const own = queues.get(caller)
    if (waitingCount >= options.queue || (own?.length ?? 0) >= perCaller) {
      refused++
      throw overloaded(options)
    }
    await new Promise<void>((resolve, reject) => {
      const queue = own ?? []
      const ticket: Ticket = {
        caller,
        admit: resolve,
        timer: setTimeout(() => {
          remove(ticket, queue)
          refused++
          reject(overloaded(options))
        }, options.maxWaitMs),
      }
      queue.push(ticket)
      if (!own) queues.set(caller, queue)
      waitingCount++
      scheduleTurn()
    })
    let released = false
    return () => {
      if (released) return
      released = true
      finished()
    }
  }

  return {
    async run(work, caller) {
      const release = await acquire(caller)
      try {
        return await work()
      } finally {
        release()
      }
    },
    acquire,
    stats: () => ({ running, waiting: waitingCount, refused }),
  }
}
