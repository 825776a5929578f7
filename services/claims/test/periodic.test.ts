import { describe, expect, it } from 'vitest'
import { startPeriodic } from '../src/jobs/periodic.js'

describe('startPeriodic', () => {
  it('never overlaps runs, survives a failed run, and stop() waits for the run in progress', async () => {
    const warnings: string[] = []
    const logger = { info: () => {}, warn: (_obj: object, msg: string) => warnings.push(msg) }
    let running = 0
    let maxRunning = 0
    let runs = 0
    let finished = 0
    let thirdRun: () => void = () => {}
    const reachedThird = new Promise<void>((resolve) => {
      thirdRun = resolve
    })
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
        if (runs === 1) throw new Error('first run fails')
      },
      logger,
    )
    await reachedThird
    await periodic.stop()
    expect(maxRunning).toBe(1)
    expect(warnings).toContain('task failed')
    expect(finished).toBe(runs)
  })
})
