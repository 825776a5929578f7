/** .github/workflows/ci.yml: the toolchain it installs matches the repository's, and it runs what CI must. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { repoRoot, SERVICES } from './support/paths.js'

interface Step {
  name?: string
  uses?: string
  run?: string
  with?: Record<string, string | boolean>
}
interface Job {
  'runs-on': string
  services?: Record<string, { image: string }>
  env?: Record<string, string | boolean>
  strategy?: { matrix: Record<string, string[]> }
  steps: Step[]
}
interface Workflow {
  env: Record<string, string | number>
  jobs: Record<string, Job>
}

const workflow = parse(readFileSync(join(repoRoot, '.github/workflows/ci.yml'), 'utf8')) as Workflow
const rootManifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  packageManager: string
}
/** A GitHub Actions expression as written in the workflow: ${{ inner }}. */
const expression = (inner: string) => `\${{ ${inner} }}`
const runs = (job: Job) => job.steps.map((s) => s.run ?? '').join('\n')

describe('the CI workflow', () => {
  it('installs Node 20 and exactly the pinned pnpm, with npm (not corepack)', () => {
    expect(`pnpm@${workflow.env.PNPM_VERSION}`).toBe(rootManifest.packageManager)
    expect(String(workflow.env.NODE_VERSION)).toBe('20')
    const test = workflow.jobs.test!
    expect(test.steps.find((s) => s.uses?.startsWith('actions/setup-node@'))?.with?.['node-version']).toBe(
      expression('env.NODE_VERSION'),
    )
    expect(runs(test)).toContain(`npm install --global pnpm@${expression('env.PNPM_VERSION')}`)
    expect(runs(test)).toContain('pnpm install --frozen-lockfile')
    expect(runs(test)).not.toContain('corepack')
  })

  it('lints, typechecks and tests with turbo against a PostgreSQL 15 service container, with a turbo cache', () => {
    const test = workflow.jobs.test!
    expect(test.services?.postgres?.image).toBe('postgres:15')
    expect(test.env?.DATABASE_URL).toMatch(/^postgres:\/\/.+@127\.0\.0\.1:5432\//)
    expect(test.env?.CI).toBe(true)
    const commands = runs(test)
    expect(commands).toContain('pnpm lint')
    expect(commands).toContain('pnpm turbo run typecheck')
    expect(commands).toContain('pnpm turbo run test')
    expect(commands).toContain('infra/scripts/ensure-nginx.sh')
    expect(
      test.steps.some((s) => s.uses?.startsWith('actions/cache@') && s.with?.path === '.turbo/cache'),
    ).toBe(true)
  })

  it('builds one image per service from the one Dockerfile, without pushing, and runs it', () => {
    const image = workflow.jobs.image!
    expect(image.strategy?.matrix.service).toEqual([...SERVICES])
    const build = image.steps.find((s) => s.uses?.startsWith('docker/build-push-action@'))
    expect(build?.with).toMatchObject({
      context: '.',
      file: 'infra/docker/Dockerfile',
      'build-args': `SERVICE=${expression('matrix.service')}`,
      push: false,
    })
    expect(runs(image)).toContain('node dist/migrate.js')
    expect(runs(image)).toContain('.State.Health.Status')
  })
})
