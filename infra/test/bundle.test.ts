/**
 * The image's build steps (infra/scripts/bundle.sh, which the Dockerfile runs) produce each service's
 * pruned production bundle; the service is then migrated and started from that bundle alone, outside the
 * repository, as its own database role, exactly as the container runs it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createIdentity, signedHeaders } from '@genesis/common/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServiceDatabases, psql, type ServiceDatabases } from './support/databases.js'
import { type ErrorEnvelope, send } from './support/http.js'
import { infraDir, repoRoot, SERVICES, type ServiceName } from './support/paths.js'
import { type RunningProcess, run } from './support/processes.js'
import { realInfrastructure } from './support/requirements.js'
import { serviceProcessEnv, startService } from './support/services.js'

const bundleScript = join(infraDir, 'scripts', 'bundle.sh')
/** One real request per service, beyond health: proves routes, database and native modules work. */
const realEndpoint: Record<ServiceName, (port: number) => Promise<void>> = {
  async claims(port) {
    const unsigned = await send({ port, path: '/api/rewards' })
    expect(unsigned.status).toBe(401)
    expect(unsigned.json<ErrorEnvelope>()).toMatchObject({ ok: false, code: 'unauthorized' })

    const alice = await createIdentity()
    const signed = await send({
      port,
      path: '/api/rewards',
      headers: signedHeaders(alice, 'GET', '/api/rewards'),
    })
    expect(signed.status, signed.text).toBe(200)
    expect(signed.json()).toMatchObject({ ok: true, data: [] })
  },
  async collections(port) {
    const addresses = await send({ port, path: '/v1/addresses' })
    expect(addresses.status, addresses.text).toBe(200)
    expect(addresses.json()).toEqual(expect.objectContaining({ ok: true, data: [] }))

    const unsigned = await send({ port, path: '/v1/collections' })
    expect(unsigned.status).toBe(401)
    expect(unsigned.json<ErrorEnvelope>()).toMatchObject({ ok: false, code: 'unauthorized' })
  },
  async land(port) {
    const districts = await send({ port, path: '/v1/districts' })
    expect(districts.status, districts.text).toBe(200)
    expect(districts.json()).toMatchObject({ ok: true, data: expect.any(Array) })

    // the PNG renderer loads @napi-rs/canvas's native binary from the bundle
    const png = await send({ port, path: '/v1/map.png?width=32&height=32&size=10' })
    expect(png.status, png.text.slice(0, 300)).toBe(200)
    expect(png.headers['content-type']).toBe('image/png')
    expect(png.body.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a')

    // the map explorer's static files ship in the bundle, beside dist/
    const page = await send({ port, path: '/' })
    expect(page.status, page.text.slice(0, 300)).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    const script = page.text.match(/"(\/explorer\/explorer\.js\?v=[^"]+)"/)?.[1]
    expect(script).toBeDefined()
    const js = await send({ port, path: script! })
    expect(js.status).toBe(200)
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8')
  },
}

const runnable = await realInfrastructure()

describe.skipIf(!runnable).each(SERVICES)('the %s production bundle', (service) => {
  let work = ''
  let bundle = ''
  let databases: ServiceDatabases | undefined
  let server: RunningProcess | undefined
  let port = 0

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), `genesis-bundle-${service}-`))
    bundle = join(work, 'bundle')
    const built = await run('bash', [bundleScript, service, bundle], { cwd: repoRoot, timeoutMs: 280_000 })
    if (built.code !== 0)
      throw new Error(`bundle.sh ${service} failed (${built.code}):\n${built.stdout}\n${built.stderr}`)
    databases = await createServiceDatabases([service])
  })

  afterAll(async () => {
    await server?.stop()
    await databases?.drop()
    if (work) await rm(work, { recursive: true, force: true })
  })

  it('holds the built service, its migrations and production dependencies only', () => {
    for (const path of [
      'dist/server.js',
      'dist/migrate.js',
      'migrations',
      'package.json',
      'healthcheck.mjs',
    ]) {
      expect(existsSync(join(bundle, path)), path).toBe(true)
    }
    // @genesis/common is a real copy with its build output, not a link back into the workspace
    expect(existsSync(join(bundle, 'node_modules/@genesis/common/dist/index.js'))).toBe(true)
    expect(existsSync(join(bundle, 'node_modules/@genesis/common/dist/testing/index.js'))).toBe(true)
    for (const path of ['src', 'test', 'bench', 'tsconfig.json', 'vitest.config.ts', 'stryker.config.mjs']) {
      expect(existsSync(join(bundle, path)), `${path} should not be shipped`).toBe(false)
    }
    const store = readdirSync(join(bundle, 'node_modules/.pnpm'))
    for (const devOnly of ['vitest@', 'typescript@', 'tsx@', 'autocannon@', '@biomejs']) {
      expect(
        store.filter((entry) => entry.startsWith(devOnly.replace('/', '+'))),
        devOnly,
      ).toEqual([])
    }
    const manifest = JSON.parse(readFileSync(join(bundle, 'package.json'), 'utf8')) as { name: string }
    expect(manifest.name).toBe(`@genesis/${service}`)
    // pnpm's patch of postgres.js (patches/) ships with the bundle
    const postgresQueue = readFileSync(join(bundle, 'node_modules/postgres/src/queue.js'), 'utf8')
    expect(postgresQueue).toContain('genesis patch')
  })

  it('migrates from the bundle as the service’s own (non-superuser) database role', async () => {
    const url = databases!.urls[service]
    const migrated = await run('node', ['dist/migrate.js'], {
      cwd: bundle,
      env: serviceProcessEnv(service, { databaseUrl: url, dataDir: join(work, 'data') }),
      timeoutMs: 120_000,
    })
    expect(migrated.code, `${migrated.stdout}\n${migrated.stderr}`).toBe(0)
    const role = databases!.names[service]
    const owners = await psql(
      `select tableowner, count(*) from pg_tables where schemaname = 'public' group by tableowner`,
      role,
    )
    // tables exist, and every one belongs to the service's role: no superuser was needed
    expect(owners).toMatch(new RegExp(`^${role}\\|\\d+$`))
    // running it again is a no-op (the pre-deploy Job and every replica's start both run it)
    const again = await run('node', ['dist/migrate.js'], {
      cwd: bundle,
      env: serviceProcessEnv(service, { databaseUrl: url, dataDir: join(work, 'data') }),
      timeoutMs: 120_000,
    })
    expect(again.code, `${again.stdout}\n${again.stderr}`).toBe(0)
  })

  it('starts from the bundle alone and reports ready, to the image’s health check too', async () => {
    const started = await startService(service, {
      cwd: bundle,
      databaseUrl: databases!.urls[service],
      dataDir: join(work, 'data'),
    })
    server = started.process
    port = started.port

    const ready = await send({ port, path: '/health/ready' })
    expect(ready.status).toBe(200)
    expect(ready.json()).toMatchObject({ ok: true })

    const healthcheck = await run('node', ['healthcheck.mjs'], {
      cwd: bundle,
      env: { PATH: process.env.PATH, PORT: String(port) },
      timeoutMs: 15_000,
    })
    expect(healthcheck.code, healthcheck.stderr).toBe(0)
  })

  it('serves a real endpoint', async () => {
    expect(port, 'the service did not start').toBeGreaterThan(0)
    await realEndpoint[service](port)
  })

  it('drains and exits 0 on SIGTERM, and the health check then fails', async () => {
    expect(server, 'the service did not start').toBeDefined()
    const code = await server!.stop(20_000)
    expect(code, server!.output().slice(-2000)).toBe(0)
    const healthcheck = await run('node', ['healthcheck.mjs'], {
      cwd: bundle,
      env: { PATH: process.env.PATH, PORT: String(port) },
      timeoutMs: 15_000,
    })
    expect(healthcheck.code).toBe(1)
  })
})
