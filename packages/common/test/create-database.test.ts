// A DATABASE_URL naming a database that does not exist yet: created when the server lets its user, else one
// line saying what to do (never a stack trace), on the real PostgreSQL.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSql, DatabaseSetupError, ensureDatabase, type Sql } from '../src/index.js'
import { postgresAnswers, startPrivateCluster, testServerUrl } from '../src/testing/index.js'

const serverUrl = testServerUrl()
const real = await postgresAnswers(serverUrl)
if (!real) console.warn('Skipped: creating databases needs a real PostgreSQL server')

const urlOf = (database: string, user?: string) => {
  const url = new URL(serverUrl)
  url.pathname = `/${database}`
  if (user) url.username = user
  return url.toString()
}

/** Runs openService in its own process: its exit code and what it printed. */
function openInProcess(
  databaseUrl: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'fixtures/open-service.ts')],
      {
        env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    child.on('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

describe.skipIf(!real)('a database that does not exist yet', () => {
  let admin: Sql
  const suffix = randomBytes(4).toString('hex')
  const created = `created_${suffix}`
  const refused = `refused_${suffix}`
  const role = `nocreate_${suffix}`

  beforeAll(async () => {
    admin = createSql(serverUrl, { max: 1 })
    await admin.unsafe(`create role "${role}" login nocreatedb`)
  })
  afterAll(async () => {
    for (const name of [created, refused])
      await admin.unsafe(`drop database if exists "${name}" with (force)`)
    await admin.unsafe(`drop role if exists "${role}"`)
    await admin.end({ timeout: 5 })
  })

  it('is created, once, even when replicas start together; the service then opens it', async () => {
    const url = urlOf(created)
    const results = await Promise.all([ensureDatabase(url), ensureDatabase(url), ensureDatabase(url)])
    expect(results.filter(Boolean)).toHaveLength(1)
    expect(await ensureDatabase(url)).toBe(false)
    const [row] = await admin<
      Array<{ n: number }>
    >`select count(*)::int as n from pg_database where datname = ${created}`
    expect(row!.n).toBe(1)
    const run = await openInProcess(url)
    expect(run).toMatchObject({ code: 0, stdout: 'opened\n' })
  }, 60_000)

  it('a user who may not create it is told what to do, in one line, and the process exits 1', async () => {
    const url = urlOf(refused, role)
    await expect(ensureDatabase(url)).rejects.toThrow(DatabaseSetupError)
    await expect(ensureDatabase(url)).rejects.toThrow(
      `DATABASE_URL names the database "${refused}", which does not exist, and its user may not create databases`,
    )
    const run = await openInProcess(url)
    expect(run.code).toBe(1)
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^demo: DATABASE_URL names the database "refused_\w+", which does not exist.*createdb/,
      ),
    ])
  }, 60_000)

  it('a server that does not answer is one line too', async () => {
    const url = new URL(urlOf('whatever'))
    url.port = '1' // nothing listens there
    const run = await openInProcess(url.toString())
    expect(run.code).toBe(1)
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^demo: PostgreSQL at .*:1 \(DATABASE_URL\) does not answer/),
    ])
  }, 60_000)
})

describe.skipIf(!real)('a server that will not let the user in', () => {
  it('a user without CONNECT on its database is one line, and the process exits 1', async () => {
    const suffix = randomBytes(4).toString('hex')
    const [database, role] = [`closed_${suffix}`, `noconnect_${suffix}`]
    const admin = createSql(serverUrl, { max: 1 })
    try {
      await admin.unsafe(`create role "${role}" login`)
      await admin.unsafe(`create database "${database}"`)
      await admin.unsafe(`revoke connect on database "${database}" from public`)
      const run = await openInProcess(urlOf(database, role))
      expect(run.code).toBe(1)
      expect(run.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^demo: PostgreSQL at .* \(DATABASE_URL\) refused: permission denied for database "closed_\w+" \(check the user/,
        ),
      ])
    } finally {
      await admin.unsafe(`drop database if exists "${database}" with (force)`)
      await admin.unsafe(`drop role if exists "${role}"`)
      await admin.end({ timeout: 5 })
    }
  }, 60_000)

  it('a wrong password is one line that never prints a password', async () => {
    const cluster = await startPrivateCluster({ password: 'right-horse-battery' })
    if (!cluster) return
    try {
      const wrong = new URL(cluster.url)
      wrong.password = 'Wr0ngPassw0rd'
      const run = await openInProcess(wrong.toString())
      expect(run.code).toBe(1)
      expect(run.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^demo: PostgreSQL at 127\.0\.0\.1:\d+ \(DATABASE_URL\) refused: password authentication failed for user "postgres"/,
        ),
      ])
      expect(`${run.stdout}${run.stderr}`).not.toMatch(/Wr0ngPassw0rd|right-horse-battery/)
      // The right one opens it: the refusal was the password's.
      expect(await openInProcess(cluster.url)).toMatchObject({ code: 0, stdout: 'opened\n' })
    } finally {
      await cluster.destroy()
    }
  }, 120_000)
})

describe('a refused setting', () => {
  it('names the setting and what is wrong, never the value of a secret', async () => {
    const run = await openInProcess('mysql://operator:Sup3rSecret@db.example/genesis')
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/DATABASE_URL: .* \(the value, not shown, is a mysql: URL\)/)
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/Sup3rSecret|operator/)
  })
})
