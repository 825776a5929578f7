/**
 * infra/docker/Dockerfile, read as the instructions Docker would run (no engine here to build it): the
 * bundle script is its build step, the runtime stage is non-root with an init and a health check, and no
 * secret is baked in. What the bundle contains and that it runs is infra/test/bundle.test.ts.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { infraDir, repoRoot, SERVICES, serviceDir } from './support/paths.js'

interface Instruction {
  keyword: string
  args: string
}

/** Instructions in order, with continuation lines joined and comments dropped. */
function instructions(text: string): Instruction[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/)
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') }
    })
}

const dockerfile = instructions(readFileSync(join(infraDir, 'docker/Dockerfile'), 'utf8'))
const stages = dockerfile.reduce<Instruction[][]>((all, instruction) => {
  if (instruction.keyword === 'FROM') all.push([])
  all.at(-1)?.push(instruction)
  return all
}, [])
const runtime = stages.at(-1)!
const build = stages.find((stage) => / AS build$/i.test(stage[0]!.args))!
const of = (stage: Instruction[], keyword: string) => stage.filter((i) => i.keyword === keyword)

describe('the Dockerfile', () => {
  it('is multi-stage: the build stage runs the bundle script for ARG SERVICE', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2)
    expect(of(build, 'ARG').map((i) => i.args)).toContain('SERVICE')
    expect(of(build, 'RUN').some((i) => i.args.includes('infra/scripts/bundle.sh "$SERVICE" /bundle'))).toBe(
      true,
    )
    expect(of(runtime, 'COPY').map((i) => i.args)).toContain('--from=build /bundle /app')
  })

  it('installs the pinned pnpm on the Node major the repository requires', () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      packageManager: string
    }
    const pnpmArg = dockerfile.find((i) => i.keyword === 'ARG' && i.args.startsWith('PNPM_VERSION='))
    expect(`pnpm@${pnpmArg?.args.split('=')[1]}`).toBe(manifest.packageManager)
    const nodeArg = dockerfile.find((i) => i.keyword === 'ARG' && i.args.startsWith('NODE_IMAGE='))
    expect(nodeArg?.args).toMatch(/^NODE_IMAGE=node:20\.\d+\.\d+-bookworm-slim$/)
    expect(of(build, 'RUN').some((i) => i.args.includes('pnpm install --frozen-lockfile'))).toBe(true)
  })

  it('copies every workspace manifest before installing, so the install layer sees the whole lockfile', () => {
    const copied = new Set(of(build, 'COPY').map((i) => i.args.split(' ')[0]))
    // the manifests the repository holds: another test's scratch directory may sit beside them meanwhile
    const workspaces = execFileSync(
      'git',
      ['ls-files', 'packages/*/package.json', 'services/*/package.json'],
      {
        cwd: repoRoot,
        encoding: 'utf8',
      },
    )
      .split('\n')
      .filter(Boolean)
    expect(workspaces.length).toBeGreaterThanOrEqual(6)
    for (const manifest of [...workspaces, 'infra/package.json']) expect(copied, manifest).toContain(manifest)
    // the install applies pnpm's patchedDependencies from patches/, so they must be there before it
    if (readFileSync(join(repoRoot, 'pnpm-workspace.yaml'), 'utf8').includes('patchedDependencies'))
      expect(copied).toContain('patches/')
  })

  it('runs as a non-root user, under tini, with a Node health check on /health/ready', () => {
    expect(of(runtime, 'USER').at(-1)?.args).toBe('node')
    expect(of(runtime, 'ENTRYPOINT').at(-1)?.args).toBe('["/usr/bin/tini", "--"]')
    expect(of(runtime, 'CMD').at(-1)?.args).toBe(
      '["node", "--single-threaded-gc", "--max-semi-space-size=8", "--min-semi-space-size=8", ' +
        '"--max-valid-polymorphic-map-count=32", "dist/server.js"]',
    )
    expect(of(runtime, 'HEALTHCHECK').at(-1)?.args).toMatch(/CMD \["node", "\/app\/healthcheck\.mjs"\]$/)
    const healthcheck = readFileSync(join(infraDir, 'docker/healthcheck.mjs'), 'utf8')
    expect(healthcheck).toContain('/health/ready')
  })

  it("is what each service's `pnpm start` runs: the same Node flags on the same entry", () => {
    const command = (JSON.parse(of(runtime, 'CMD').at(-1)?.args ?? '[]') as string[]).join(' ')
    for (const service of SERVICES) {
      const manifest = JSON.parse(readFileSync(join(serviceDir(service), 'package.json'), 'utf8')) as {
        scripts: { start: string }
      }
      expect(manifest.scripts.start, service).toBe(command)
    }
  })

  it("starts each service at an entry point whose first import keeps Node's tick objects' shapes", () => {
    for (const service of SERVICES) {
      const entry = readFileSync(join(serviceDir(service), 'src/server.ts'), 'utf8')
      expect(entry.match(/^import .*$/m)?.[0], service).toBe("import '@genesis/common/keep-tick-shape'")
    }
  })

  it('bakes no secret into the image', () => {
    for (const instruction of dockerfile.filter((i) => i.keyword === 'ENV' || i.keyword === 'ARG')) {
      expect(instruction.args).not.toMatch(/DATABASE_URL|PASSWORD|TOKEN|PRIVATE_KEY|SECRET/)
    }
    const ignore = readFileSync(join(infraDir, 'docker/Dockerfile.dockerignore'), 'utf8').split('\n')
    for (const pattern of ['**/node_modules', '.env', '**/.env', '.git']) expect(ignore).toContain(pattern)
  })
})
