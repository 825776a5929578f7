/**
 * infra/compose.yaml, infra/.env.example and the PostgreSQL init script. There is no Docker engine here,
 * so the compose file is checked for what `docker compose` would do with it (every variable defined,
 * migrations before services, files that exist), and the init script is run against the real PostgreSQL.
 */
import { accessSync, constants, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { createServiceDatabases, libpqEnv, psql, type ServiceDatabases } from './support/databases.js'
import { infraDir, repoRoot, SERVICES } from './support/paths.js'
import { run } from './support/processes.js'
import { realInfrastructure } from './support/requirements.js'
import { RUNTIME_VARIABLES, serviceReads } from './support/service-variables.js'

interface ComposeService {
  image?: string
  build?: { context: string; dockerfile: string; args?: Record<string, string> }
  command?: string[]
  environment?: Record<string, string>
  depends_on?: Record<string, { condition: string }>
  ports?: string[]
  volumes?: string[]
  profiles?: string[]
  read_only?: boolean
  restart?: string
}
interface Compose {
  services: Record<string, ComposeService>
  volumes?: Record<string, unknown>
}

const composeText = readFileSync(join(infraDir, 'compose.yaml'), 'utf8')
// YAML merge keys (<<) are how compose files share blocks; compose resolves them, so do we
const compose = parse(composeText, { merge: true }) as Compose
const envExample = readFileSync(join(infraDir, '.env.example'), 'utf8')
const exampleVariables = new Map(
  envExample
    .split('\n')
    .filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const),
)
/** ${VAR}, ${VAR:-default}, ${VAR:?message}; $${VAR} is an escaped literal for the container's shell. */
const referenced = new Set(
  [...composeText.matchAll(/(?<!\$)\$\{([A-Z][A-Z0-9_]*)(?::?[-?][^}]*)?\}/g)].map((m) => m[1]!),
)

describe('compose.yaml', () => {
  it('defines PostgreSQL, the gateway, and per service a migration and the service', () => {
    const expected = ['postgres', 'gateway', 'land-seed', ...SERVICES.flatMap((s) => [s, `${s}-migrate`])]
    expect(Object.keys(compose.services).sort()).toEqual(expected.sort())
  })

  it.each(SERVICES)('runs %s’s migrations to completion before the service starts', (service) => {
    const migrate = compose.services[`${service}-migrate`]!
    const app = compose.services[service]!
    expect(migrate.command).toEqual(['node', 'dist/migrate.js'])
    expect(migrate.restart).toBe('no')
    expect(migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } })
    expect(app.depends_on).toEqual({
      [`${service}-migrate`]: { condition: 'service_completed_successfully' },
    })
    // one image, built from the one Dockerfile with this service as its argument
    expect(migrate.image).toBe(app.image)
    expect(app.build).toEqual({
      context: '..',
      dockerfile: 'infra/docker/Dockerfile',
      args: { SERVICE: service },
    })
    expect(existsSync(join(infraDir, app.build!.context, app.build!.dockerfile))).toBe(true)
    // the migration and the service use the same database and configuration
    expect(migrate.environment).toEqual(app.environment)
    expect(app.environment?.DATABASE_URL).toMatch(new RegExp(`^postgres://genesis_${service}:\\$\\{`))
    expect(app.environment?.DATABASE_URL).toMatch(new RegExp(`@postgres:5432/genesis_${service}$`))
    expect(app.read_only).toBe(true)
  })

  it.each(SERVICES)('passes %s only variables it reads', (service) => {
    for (const name of Object.keys(compose.services[service]!.environment ?? {})) {
      expect(
        serviceReads(service, name) || RUNTIME_VARIABLES.has(name),
        `${service} does not read ${name}`,
      ).toBe(true)
    }
  })

  it('creates the databases with the init script, mounted where the postgres image runs it', () => {
    const volumes = compose.services.postgres!.volumes ?? []
    const init = volumes.find((v) => v.includes('/docker-entrypoint-initdb.d/'))
    expect(init).toBeDefined()
    const [source] = init!.split(':')
    const script = join(infraDir, source!)
    expect(existsSync(script)).toBe(true)
    accessSync(script, constants.X_OK)
    const env = compose.services.postgres!.environment ?? {}
    for (const service of SERVICES) expect(env[`${service.toUpperCase()}_DB_PASSWORD`]).toBeDefined()
  })

  it('renders the gateway template with every variable it needs, and only the gateway publishes a port', () => {
    const gateway = compose.services.gateway!
    const template = readFileSync(join(infraDir, 'gateway/templates/default.conf.template'), 'utf8')
    const needed = new Set([...template.matchAll(/\$\{([A-Z_][A-Z0-9_]*)\}/g)].map((m) => m[1]!))
    expect([...needed].filter((name) => !(name in (gateway.environment ?? {})))).toEqual([])
    for (const mount of gateway.volumes ?? []) {
      expect(existsSync(join(infraDir, mount.split(':')[0]!)), mount).toBe(true)
    }
    for (const service of SERVICES) {
      const upstream = gateway.environment?.[`${service.toUpperCase()}_UPSTREAM`]
      expect(upstream).toBe(`${service}:${compose.services[service]!.environment?.PORT}`)
    }
    const publishing = Object.entries(compose.services).filter(([, s]) => s.ports?.length)
    expect(publishing.map(([name]) => name)).toEqual(['gateway'])
  })

  it('runs the gateway with its own main configuration: room for 8,192 connections a worker', () => {
    const gateway = compose.services.gateway!
    expect(gateway.volumes).toContain('./gateway/nginx.conf:/etc/nginx/nginx.conf:ro')
    const main = readFileSync(join(infraDir, 'gateway/nginx.conf'), 'utf8')
    expect(main).toMatch(/^\s*worker_connections 8192;/m)
    expect(main).toMatch(/^worker_rlimit_nofile (\d+);/m)
    expect(Number(/^worker_rlimit_nofile (\d+);/m.exec(main)?.[1])).toBeGreaterThanOrEqual(2 * 8192)
    expect(main).toContain('include /etc/nginx/conf.d/*.conf;')
  })

  it('takes every secret from the environment file, never from the compose file', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        if (/PASSWORD|TOKEN|PRIVATE_KEY|DATABASE_URL/.test(key)) {
          expect(value, `${name}.${key}`).toMatch(/\$\{[A-Z_]+(:[?-][^}]*)?\}/)
        }
      }
    }
  })
})

describe('.env.example', () => {
  it('lists every variable compose.yaml uses, and nothing it does not', () => {
    expect([...referenced].filter((name) => !exampleVariables.has(name)).sort()).toEqual([])
    expect([...exampleVariables.keys()].filter((name) => !referenced.has(name)).sort()).toEqual([])
  })

  it('is not the real .env: the real one is ignored by git', () => {
    const gitignore = readFileSync(join(repoRoot, '.gitignore'), 'utf8')
    expect(gitignore.split('\n')).toContain('.env')
  })
})

const runnable = await realInfrastructure()

/** psql logging in with a service role's URL, to another database (`select 1`). */
function connectAs(roleUrl: string, database: string) {
  const role = new URL(roleUrl)
  return run('psql', ['-At', '-c', 'select 1'], {
    cwd: infraDir,
    env: {
      ...process.env,
      PGHOST: role.hostname,
      PGPORT: role.port || '5432',
      PGUSER: role.username,
      PGPASSWORD: decodeURIComponent(role.password),
      PGDATABASE: database,
    },
    timeoutMs: 30_000,
  })
}

describe.skipIf(!runnable)('the PostgreSQL init script', () => {
  let databases: ServiceDatabases | undefined

  beforeAll(async () => {
    databases = await createServiceDatabases(SERVICES)
  })

  afterAll(async () => {
    await databases?.drop()
  })

  it('creates one database per service, owned by the service’s own login role', async () => {
    for (const service of SERVICES) {
      const name = databases!.names[service]
      expect(await psql(`select pg_get_userbyid(datdba) from pg_database where datname = '${name}'`)).toBe(
        name,
      )
      expect(
        await psql(`select rolcanlogin, rolsuper, rolcreatedb from pg_roles where rolname = '${name}'`),
      ).toBe('t|f|f')
    }
  })

  it('keeps the services apart: a role cannot connect to another service’s database', async () => {
    const attempt = await connectAs(databases!.urls.claims, databases!.names.land)
    expect(attempt.code).not.toBe(0)
    expect(attempt.stderr).toMatch(/permission denied for database/)
  })

  it('caps the connections each role holds, and the maintenance database is nobody else’s', async () => {
    for (const service of SERVICES) {
      const name = databases!.names[service]
      expect(await psql(`select rolconnlimit from pg_roles where rolname = '${name}'`)).toBe('64')
    }
    // PUBLIC keeps no CONNECT on the maintenance database: a service's role reaches its own database only
    expect(
      await psql(`select has_database_privilege('${databases!.names.claims}', 'postgres', 'CONNECT')`),
    ).toBe('f')
    const attempt = await connectAs(databases!.urls.claims, 'postgres')
    expect(attempt.code).not.toBe(0)
    expect(attempt.stderr).toMatch(/permission denied for database "postgres"/)
  })

  it('is idempotent, and refuses to run without a password', async () => {
    const prefix = databases!.names.claims.replace(/claims$/, '')
    const env = {
      ...libpqEnv(),
      POSTGRES_USER: libpqEnv().PGUSER,
      GENESIS_SERVICES: 'claims',
      GENESIS_DB_PREFIX: prefix,
      CLAIMS_DB_PASSWORD: 'another-password',
    }
    const again = await run('bash', [join(infraDir, 'postgres/init-databases.sh')], { cwd: infraDir, env })
    expect(again.code, again.stderr).toBe(0)
    // a limit of the operator's own for one service
    const limited = await run('bash', [join(infraDir, 'postgres/init-databases.sh')], {
      cwd: infraDir,
      env: { ...env, CLAIMS_DB_CONNECTION_LIMIT: '12' },
    })
    expect(limited.code, limited.stderr).toBe(0)
    expect(await psql(`select rolconnlimit from pg_roles where rolname = '${databases!.names.claims}'`)).toBe(
      '12',
    )
    const bad = await run('bash', [join(infraDir, 'postgres/init-databases.sh')], {
      cwd: infraDir,
      env: { ...env, CLAIMS_DB_CONNECTION_LIMIT: '12; drop table x' },
    })
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain('must be a whole number')
    const missing = await run('bash', [join(infraDir, 'postgres/init-databases.sh')], {
      cwd: infraDir,
      env: { ...env, CLAIMS_DB_PASSWORD: '' },
    })
    expect(missing.code).not.toBe(0)
    expect(missing.stderr).toContain('CLAIMS_DB_PASSWORD is not set')
  })
})
