import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Page } from 'playwright-core'

/** Debian's Chromium (`apt-get install -y chromium`), or the one CHROMIUM_PATH names. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)

/**
 * Without Chromium a browser test file is skipped with a warning, except under CI, which installs it
 * (.ci/run): there a missing browser fails the file instead of letting it pass unseen.
 */
export function checkChromium(what: string): void {
  if (hasChromium) return
  if (process.env.CI === 'true') {
    throw new Error(
      `no Chromium at ${CHROMIUM} under CI; .ci/run installs it with apt-get install -y chromium`,
    )
  }
  console.warn(
    `${what} skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`,
  )
}

export interface Browser {
  page: Page
  /** Script errors, console errors and CSP refusals of the page: a page under test must show none. */
  problems: string[]
  close(): Promise<void>
}

/** Headless Chromium in a fresh profile of its own, with one page whose problems are collected. */
export async function openBrowser(options: {
  viewport: { width: number; height: number }
  timeoutMs: number
}): Promise<Browser> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'genesis-chromium-'))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: options.viewport,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  const page = context.pages()[0] ?? (await context.newPage())
  page.setDefaultTimeout(options.timeoutMs)
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`))
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`)
  })
  return {
    page,
    problems,
    close: async () => {
      await context.close()
      await rm(userDataDir, { recursive: true, force: true })
    },
  }
}
