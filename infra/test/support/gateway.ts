import { closeSync, existsSync, openSync, readdirSync } from 'node:fs'
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { send } from './http.js'
import { infraDir } from './paths.js'
import { type RunningProcess, run, startProcess } from './processes.js'

export const templatePath = join(infraDir, 'gateway', 'templates', 'default.conf.template')
export const snippetDir = join(infraDir, 'gateway', 'genesis')
const mainConfPath = join(infraDir, 'gateway', 'nginx.conf')

export interface GatewayVariables {
  GATEWAY_DOMAIN: string
  GATEWAY_LISTEN: string
  CLAIMS_UPSTREAM: string
  COLLECTIONS_UPSTREAM: string
  LAND_UPSTREAM: string
}

/**
 * What the nginx image's entrypoint does to a template: envsubst of the variables that are set, and
 * nothing else (nginx's own $variables stay). Throws if a ${VAR} is left, i.e. the template names one
 * that the deployment does not set.
 */
export function renderTemplate(template: string, variables: GatewayVariables): string {
  const rendered = template.replace(/\$\{([A-Z_][A-Z0-9_]*)\}/g, (whole, name: string) =>
    name in variables ? variables[name as keyof GatewayVariables] : whole,
  )
  const left = rendered.match(/\$\{[A-Z_][A-Z0-9_]*\}/g)
  if (left) throw new Error(`template variables without a value: ${[...new Set(left)].join(', ')}`)
  return rendered
}

export function findNginx(): string {
  for (const candidate of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx']) {
    if (existsSync(candidate)) return candidate
  }
  throw new Error('nginx is not installed: run infra/scripts/ensure-nginx.sh (CI does, in .ci/run)')
}

/** A port that was free a moment ago; the caller retries if nginx then fails to bind it. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()))
    })
  })
}

/**
 * The gateway's main configuration (infra/gateway/nginx.conf, the image's own with room for connections),
 * with its paths moved into `prefix`, no user switch (the test's nginx runs as whoever runs it) and the
 * process kept in the foreground; its http {} block includes the rendered template as conf.d/*.conf does.
 * Keeping its directives (keepalive_timeout, the "main" access log...) makes `nginx -t` catch a template
 * directive that would be a duplicate in the real image.
 */
async function mainNginxConf(prefix: string): Promise<string> {
  const conf = (await readFile(mainConfPath, 'utf8'))
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
  const replaced = conf
    .replace(/^user .*;\n/m, '')
    .replace(/^worker_processes .*;/m, 'daemon off;\nworker_processes 1;')
    .replace('error_log /var/log/nginx/error.log notice;', 'error_log stderr notice;')
    .replace('pid /var/run/nginx.pid;', `pid ${join(prefix, 'nginx.pid')};`)
    .replace('include /etc/nginx/mime.types;\n', '')
    .replace(
      'access_log /var/log/nginx/access.log main;',
      `access_log ${join(prefix, 'main-access.log')} main;`,
    )
    .replace(
      'include /etc/nginx/conf.d/*.conf;',
      [
        `client_body_temp_path ${join(prefix, 'body')};`,
        `proxy_temp_path ${join(prefix, 'proxy')};`,
        `fastcgi_temp_path ${join(prefix, 'fastcgi')};`,
        `uwsgi_temp_path ${join(prefix, 'uwsgi')};`,
        `scgi_temp_path ${join(prefix, 'scgi')};`,
        `include ${join(prefix, 'conf.d', '*.conf')};`,
      ].join('\n    '),
    )
  if (replaced.includes('/etc/nginx') || replaced.includes('/var/')) {
    throw new Error(`infra/gateway/nginx.conf changed: a path is left to move into the prefix:\n${replaced}`)
  }
  return replaced
}

export interface RunningGateway {
  port: number
  /** Where nginx's stdout (the JSON access log) goes. */
  accessLog: string
  /** The image's default "main" access log, which the gateway's servers replace. */
  mainAccessLog: string
  /** What `nginx -t` said about the rendered configuration. */
  configTest: string
  process: RunningProcess
  stop(): Promise<void>
}

/**
 * Renders the gateway template, wraps it in a minimal main configuration (the official image's
 * nginx.conf does the same: http { include conf.d/*.conf; }), checks it with `nginx -t` and runs nginx in
 * the foreground on a loopback port. Everything nginx writes lives in a temporary prefix.
 */
export async function startGateway(options: {
  domain: string
  upstreams: { claims: string; collections: string; land: string }
}): Promise<RunningGateway> {
  const nginx = findNginx()
  const template = await readFile(templatePath, 'utf8')
  let lastError = ''
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort()
    const prefix = await mkdtemp(join(tmpdir(), 'genesis-gateway-'))
    // nginx started as root runs its workers as "nobody": they must reach the temp directories
    await chmod(prefix, 0o755)
    for (const dir of ['conf.d', 'genesis', 'body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
      await mkdir(join(prefix, dir), { mode: 0o777 })
      await chmod(join(prefix, dir), 0o777)
    }
    for (const snippet of readdirSync(snippetDir)) {
      await copyFile(join(snippetDir, snippet), join(prefix, 'genesis', snippet))
    }
    await writeFile(
      join(prefix, 'conf.d', 'default.conf'),
      renderTemplate(template, {
        GATEWAY_DOMAIN: options.domain,
        GATEWAY_LISTEN: `127.0.0.1:${port}`,
        CLAIMS_UPSTREAM: options.upstreams.claims,
        COLLECTIONS_UPSTREAM: options.upstreams.collections,
        LAND_UPSTREAM: options.upstreams.land,
      }),
    )
    await writeFile(join(prefix, 'nginx.conf'), await mainNginxConf(prefix))
    const args = ['-p', `${prefix}/`, '-c', join(prefix, 'nginx.conf'), '-e', 'stderr']
    const accessLog = join(prefix, 'access.log')
    const stdout = openSync(accessLog, 'a')
    const test = await run(nginx, ['-t', ...args], { cwd: prefix, timeoutMs: 30_000, stdout })
    const configTest = `${test.stdout}${test.stderr}`
    if (test.code !== 0) {
      closeSync(stdout)
      await rm(prefix, { recursive: true, force: true })
      throw new Error(`nginx -t failed:\n${configTest}`)
    }
    const proc = startProcess(nginx, args, { cwd: prefix, env: { PATH: process.env.PATH }, stdout })
    const stop = async () => {
      await proc.stop(10_000)
      closeSync(stdout)
      await rm(prefix, { recursive: true, force: true })
    }
    const deadline = Date.now() + 15_000
    while (Date.now() < deadline && proc.child.exitCode === null) {
      try {
        await send({ port, path: '/', host: 'probe.invalid', timeoutMs: 2000 })
        return {
          port,
          accessLog,
          mainAccessLog: join(prefix, 'main-access.log'),
          configTest,
          process: proc,
          stop,
        }
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    lastError = proc.output()
    await stop()
    if (!/Address already in use/.test(lastError)) break
  }
  throw new Error(`nginx did not start:\n${lastError}`)
}
