import { describe, expect, it } from 'vitest'
import { startPeriodic } from '../src/jobs/periodic.js'

/** Timers that keep the process alive (an unref'd timer is not listed). */
const refTimers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length

describe('startPeriodic', () => {
  // Mutation guarded: the warning's fields `{ task: name }` → `{}`: the log would say a task failed but not
  // which one. One line when it starts failing, one when it succeeds again.
  it('never overlaps runs, survives a failed run, and stop() waits for the run in progress', async () => {
    const warnings: { obj: object; msg: string }[] = []
    const infos: { obj: object; msg: string }[] = []
    const logger = {
      info: (obj: object, msg: string) => infos.push({ obj, msg }),
      warn: (obj: object, msg: string) => warnings.push({ obj, msg }),
    }
    let running = 0
    let maxRunning = 0
    let runs = 0
    let finished = 0
    let thirdRun: () => void = () => {}
    const reachedThird = new Promise<void>((resolve) => {
      thirdRun = resolve
    })
    const failure = new Error('first run fails')
    const periodic = startPeriodic(
      'task',
      5,
      async () => {
        running++
        maxRunning = Math.max(maxRunning, running)
        runs++
        if (runs >= 3) thirdRun()
        // each run lasts several intervals
        await new Promise((resolve) => setTimeout(resolve, 20))
        running--
        finished++
        if (runs === 1) throw failure
      },
      logger,
    )
    await reachedThird
    await periodic.stop()
    expect(maxRunning).toBe(1)
    expect(warnings).toEqual([
      {
        obj: { task: 'task', reason: 'first run fails', retryInMs: 1000 },
        msg: 'task: down (first run fails); retrying every 0.005 s',
      },
    ])
    expect(infos).toEqual([
      {
        obj: { task: 'task', downS: expect.any(Number), failures: 1 },
        msg: expect.stringMatching(/^task: back after \d+ s$/),
      },
    ])
    expect(finished).toBe(runs)
  })

  // Mutation guarded: `timer.unref()` removed → the interval alone keeps the process alive, so a server
  // that closed everything else on SIGTERM would never exit.
  it('does not keep the process alive by itself', async () => {
    const before = refTimers()
    const periodic = startPeriodic('idle', 60_000, async () => {}, {
      info: () => {},
      warn: () => {},
    })
    expect(refTimers()).toBe(before)
    await periodic.stop()
  })
})
