// The client as a dapp gets it: `pnpm pack` of the client and of the wire contract, installed with npm into
// an empty project outside the workspace, then a signed claim and a collection create run from there
// against the real services. Its dependency tree must hold no server package.
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, type Running, startServices } from './services.js'

const run = promisify(execFile)
const packageDir = (name: string) => fileURLToPath(new URL(`../../${name}`, import.meta.url))

/** Packages that belong to a server, never to a dapp's bundle or node_modules. */
const SERVER_PACKAGES =
  /^(fastify|@fastify\/.*|postgres|@electric-sql\/.*|@napi-rs\/canvas|pino|prom-client|@genesis\/(common|claims|collections|land|contracts))$/

interface NpmTree {
  dependencies?: Record<string, NpmTree>
}
const namesIn = (tree: NpmTree, into = new Set<string>()): Set<string> => {
  for (const [name, child] of Object.entries(tree.dependencies ?? {})) {
    into.add(name)
    namesIn(child, into)
  }
  return into
}

// What a dapp developer writes after `npm install @genesis/client`: plain ESM, no workspace, no build step.
const DAPP = `
import { createIdentity, GenesisClient } from '@genesis/client'
import { Wallet } from 'ethers'

const urls = JSON.parse(process.env.GENESIS_URLS)
const operator = new GenesisClient({ urls, adminToken: process.env.ADMIN_TOKEN })
const owner = Wallet.createRandom()
const me = new GenesisClient({ urls }).as(await createIdentity(owner))
const [reward] = await operator.claimsAdmin.grantRewards([
  { user: owner.address, chain_id: '137', contract: '0x${'1'.repeat(40)}', item_id: '7' },
])
const { claim } = await me.claims.createClaim([reward.id])
const id = crypto.randomUUID()
await me.collections.putCollection({ id, name: 'Packed ' + id.slice(0, 8) })
const collection = await me.collections.getCollection(id)
console.log(JSON.stringify({ owner: owner.address.toLowerCase(), claim, collection }))
`

describe('the packed client in a project of its own', () => {
  let services: Running
  let project: string

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'genesis-dapp-'))
    const tarballs: string[] = []
    for (const name of ['wire', 'client']) {
      await run('pnpm', ['pack', '--pack-destination', project], { cwd: packageDir(name) })
      tarballs.push(join(project, readdirSync(project).find((f) => f.startsWith(`genesis-${name}-`))!))
    }
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'a-dapp', private: true, type: 'module' }),
    )
    writeFileSync(join(project, 'dapp.mjs'), DAPP)
    // Both tarballs in one install: the client's dependency on @genesis/wire is met by the packed one.
    await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...tarballs],
      {
        cwd: project,
      },
    )
    services = await startServices({ claims: true, collections: true })
  }, 240_000)
  afterAll(async () => {
    await services?.close()
    if (project) rmSync(project, { recursive: true, force: true })
  })

  it('installs with no server package in its tree', async () => {
    const { stdout } = await run('npm', ['ls', '--all', '--json'], { cwd: project, maxBuffer: 64 * 2 ** 20 })
    const names = namesIn(JSON.parse(stdout) as NpmTree)
    expect(names).toContain('@genesis/client')
    expect(names).toContain('@genesis/wire')
    expect(names).toContain('ethers')
    expect([...names].filter((name) => SERVER_PACKAGES.test(name))).toEqual([])
  })

  it('signs a claim and creates a collection from there', async () => {
    const { stdout } = await run(process.execPath, ['dapp.mjs'], {
      cwd: project,
      env: { ...process.env, GENESIS_URLS: JSON.stringify(services.urls), ADMIN_TOKEN },
    })
    const answer = JSON.parse(stdout) as {
      owner: string
      claim: { user: string; status: string; transaction_payload: string }
      collection: { eth_address: string; name: string }
    }
    expect(answer.claim.user).toBe(answer.owner)
    expect(answer.claim.status).toBe('claimed')
    expect(answer.claim.transaction_payload).toMatch(/^0x[0-9a-f]+$/)
    expect(answer.collection.eth_address).toBe(answer.owner)
    expect(answer.collection.name).toMatch(/^Packed /)
  })
})
