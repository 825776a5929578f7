import { createSql } from './database.js'
import { isDatabaseUnavailable } from './unreachable.js'

/** A database the service cannot start on, said in one line (no stack: nothing in the code is wrong). */
export class DatabaseSetupError extends Error {
  override readonly name = 'DatabaseSetupError'
}

const errorCode = (error: unknown) => (error as { code?: unknown } | null)?.code

/** The same server and user, another database. */
const onDatabase = (url: string, database: string) => {
  const parsed = new URL(url)
  parsed.pathname = `/${encodeURIComponent(database)}`
  return parsed.toString()
}

/**
 * Makes sure the database `url` names exists. When the server says it does not (invalid_catalog_name), it
 * is created from the server's maintenance database (`postgres`, else `template1`) if the user may create
 * databases; otherwise a DatabaseSetupError says what to do. Anything else (the server down) is left to
 * the caller's own connection to report. True when it created the database.
 */
export async function ensureDatabase(url: string, options: { connectS?: number } = {}): Promise<boolean> {
  const timeouts = { connectS: options.connectS }
  const probe = createSql(url, { max: 1, timeouts })
  try {
    await probe`select 1`
    return false
  } catch (error) {
    if (errorCode(error) !== '3D000') return false
  } finally {
    await probe.end({ timeout: 1 })
  }
  const name = decodeURIComponent(new URL(url).pathname.slice(1))
  const told = `DATABASE_URL names the database "${name}", which does not exist`
  for (const maintenance of ['postgres', 'template1']) {
    const admin = createSql(onDatabase(url, maintenance), { max: 1, timeouts })
    try {
      await admin.unsafe(`create database "${name.replaceAll('"', '""')}"`)
      return true
    } catch (error) {
      const code = errorCode(error)
      // created meanwhile by another replica starting: duplicate_database, or the catalog's unique index when
      // both creations ran at once
      if (code === '42P04' || code === '23505') return false
      if (code === '3D000') continue
      if (code === '42501') {
        throw new DatabaseSetupError(
          `${told}, and its user may not create databases: create it (\`createdb ${name}\`, or CREATE DATABASE ` +
            'as a user who may), or point DATABASE_URL at a database that exists',
        )
      }
      throw new DatabaseSetupError(`${told}, and creating it failed: ${(error as Error).message}`)
    } finally {
      await admin.end({ timeout: 1 })
    }
  }
  throw new DatabaseSetupError(`${told}, and the server has no maintenance database to create it from`)
}

/**
 * What the server says when it will not let DATABASE_URL's user in: a wrong password
 * (invalid_password), a login it refuses (invalid_authorization_specification), no CONNECT privilege on
 * the database or no right to create the service's tables (insufficient_privilege). The server's message
 * names the user and the database, never the password.
 */
const REFUSED_ACCESS = new Set(['28P01', '28000', '42501'])

/** The one line to print for a database the service cannot start on, or null for an error worth its stack. */
export function databaseStartupProblem(error: unknown, url: string | undefined): string | null {
  if (error instanceof DatabaseSetupError) return error.message
  if (!url) return null
  const { hostname, port } = new URL(url)
  const server = `PostgreSQL at ${hostname}:${port || 5432} (DATABASE_URL)`
  if (isDatabaseUnavailable(error)) return `${server} does not answer: ${(error as Error).message}`
  const code = errorCode(error)
  if (typeof code === 'string' && REFUSED_ACCESS.has(code)) {
    return `${server} refused: ${(error as Error).message} (check the user, its password and its privileges)`
  }
  return null
}
