/**
 * Cores for the bench's processes on a machine of two: the servers under test on the last core, the load
 * client, this process and the database's backends on core 0. A backend the scheduler put on the servers'
 * core took its time from whichever server was being measured. Without taskset (or with one core) nothing
 * is pinned.
 */
import { spawnSync } from 'node:child_process'
import { cpus } from 'node:os'
import { createSql } from '../src/db/database.js'

export const serverCore = cpus().length - 1
export const pinning = cpus().length >= 2 && spawnSync('taskset', ['-V']).status === 0

/** Pins a process and all its threads to a core. */
export function pin(pid: number, core: number): void {
  if (pinning) spawnSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' })
}

/** The command that starts `args` on the servers' core. */
export function onServerCore(command: string, args: string[]): [string, string[]] {
  return pinning ? ['taskset', ['-c', String(serverCore), command, ...args]] : [command, args]
}

/** Pins the database's backends other than this query's own (the servers' pool connections) to core 0. */
export async function pinBackends(databaseUrl: string | undefined): Promise<void> {
  if (!pinning || !databaseUrl) return
  const sql = createSql(databaseUrl, { max: 1 })
  try {
    const rows = await sql<{ pid: number }[]>`
      select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`
    for (const row of rows) pin(row.pid, 0)
  } finally {
    await sql.end({ timeout: 5 })
  }
}
