import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  collect,
  createIdentity,
  GenesisApiError,
  GenesisClient,
  type Identity,
  isGenesisApiError,
  items,
} from '../src/index.js'
import { ADMIN_TOKEN, type Running, startServices } from './services.js'

const CONTRACT = '0x1111111111111111111111111111111111111111'
let services: Running
let client: GenesisClient

beforeAll(async () => {
  services = await startServices()
  client = new GenesisClient({ urls: services.urls, adminToken: ADMIN_TOKEN })
})
afterAll(() => services?.close())

async function userWithRewards(n: number): Promise<{ me: GenesisClient; identity: Identity }> {
  const identity = await createIdentity(Wallet.createRandom())
  if (n > 0)
    await client.claimsAdmin.grantRewards(
      Array.from({ length: n }, (_, i) => ({
        user: identity.address,
        chain_id: '137',
        contract: CONTRACT,
        item_id: String(i + 1),
      })),
    )
  return { me: client.as(identity), identity }
}

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const bodyOf = async (request: IncomingMessage) => {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

describe('errors', () => {
  it('a refusal is a GenesisApiError with the status, code and data of the envelope', async () => {
    const { me } = await userWithRewards(1)
    const missing = randomUUID()
    const error = await me.claims.createClaim([missing]).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GenesisApiError)
    expect(error).toMatchObject({ status: 400, code: 'reward_not_found', data: { rewards: [missing] } })
    expect(isGenesisApiError(error, 'reward_not_found')).toBe(true)

    const invalid = await me.claims.createClaim(['not-a-uuid']).catch((e: unknown) => e)
    expect(invalid).toMatchObject({ status: 400, code: 'bad_request' })
    expect((invalid as GenesisApiError).data?.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: expect.stringContaining('rewards') })]),
    )

    const notFound = await me.collections.getCollection(randomUUID()).catch((e: unknown) => e)
    expect(notFound).toMatchObject({ status: 404, code: 'not_found' })

    const land = await client.land.parcel(151, 0).catch((e: unknown) => e)
    expect(land).toMatchObject({ status: 400, code: 'bad_request' })
  })

  it('no answer is status 0 network_error; an answer without the envelope is unexpected_response', async () => {
    const closed = createServer()
    const url = await listening(closed)
    await new Promise((resolve) => closed.close(resolve))
    const offline = new GenesisClient({ urls: { land: url } })
    await expect(offline.land.districts()).rejects.toMatchObject({ status: 0, code: 'network_error' })

    const proxy = createServer((_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad gateway</html>')
    })
    const proxyUrl = await listening(proxy)
    try {
      const behindProxy = new GenesisClient({ urls: { land: proxyUrl } })
      const error = await behindProxy.land.districts().catch((e: unknown) => e)
      expect(error).toMatchObject({ status: 502, code: 'unexpected_response' })
      expect((error as Error).message).toContain('Bad gateway')
    } finally {
      await new Promise((resolve) => proxy.close(resolve))
    }
  })
})

describe('claim creates carry an Idempotency-Key', () => {
  it('the same key gives back the same claim; another body with it is 409', async () => {
    const { me } = await userWithRewards(2)
    const [first, second] = (await me.claims.listRewards()).items
    const key = randomUUID()
    const made = await me.claims.createClaim([first!.id], { idempotencyKey: key })
    expect(made).toMatchObject({ replayed: false, idempotencyKey: key })
    const again = await me.claims.createClaim([first!.id], { idempotencyKey: key })
    expect(again.replayed).toBe(true)
    expect(again.claim.id).toBe(made.claim.id)
    await expect(me.claims.createClaim([second!.id], { idempotencyKey: key })).rejects.toMatchObject({
      status: 409,
      code: 'idempotency_key_reused',
    })
  })

  it('retries after a 503 re-sign with the same key, and a lost answer gives back the claim it made', async () => {
    const { me, identity } = await userWithRewards(1)
    const [reward] = (await me.claims.listRewards()).items
    // A real HTTP hop in front of claims: the first create reaches the service but its answer is lost
    // (503 instead); the client's retry must not make a second claim.
    const seen: Array<string | undefined> = []
    const proxy = createServer(async (request, response) => {
      const body = await bodyOf(request)
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => !['host', 'content-length'].includes(name)),
      ) as Record<string, string>
      const answer = await fetch(`${services.urls.claims}${request.url}`, {
        method: request.method,
        headers,
        ...(body.length ? { body } : {}),
      })
      seen.push(request.headers['idempotency-key'] as string | undefined)
      if (seen.length === 1) return response.writeHead(503).end()
      // fetch has decoded the body already: pass the rest of the headers on
      const passed = [...answer.headers].filter(
        ([name]) => !['content-encoding', 'content-length'].includes(name),
      )
      response.writeHead(answer.status, Object.fromEntries(passed)).end(await answer.text())
    })
    const proxyUrl = await listening(proxy)
    try {
      const viaProxy = new GenesisClient({ urls: { claims: proxyUrl }, identity })
      const created = await viaProxy.claims.createClaim([reward!.id])
      expect(seen).toHaveLength(2)
      expect(seen[0]).toBe(created.idempotencyKey)
      expect(seen[1]).toBe(created.idempotencyKey)
      expect(created.replayed).toBe(true)
      expect((await me.claims.listClaims()).items.map((c) => c.id)).toEqual([created.claim.id])
    } finally {
      await new Promise((resolve) => proxy.close(resolve))
    }
  })
})

describe('paging', () => {
  it('walks every page of a page-numbered list', async () => {
    const { me } = await userWithRewards(45)
    const pages = await collect(me.claims.rewardPages({ limit: 20 }))
    expect(pages.map((p) => [p.page, p.items.length, p.total, p.pages])).toEqual([
      [1, 20, 45, 3],
      [2, 20, 45, 3],
      [3, 5, 45, 3],
    ])
    const all = await collect(items(me.claims.rewardPages({ limit: 20 })))
    expect(new Set(all.map((r) => r.id)).size).toBe(45)
    const byOperator = await collect(
      items(client.claimsAdmin.rewardPages(me.identity!.address, { limit: 50 })),
    )
    expect(byOperator.map((r) => r.id).sort()).toEqual(all.map((r) => r.id).sort())
  })

  it("walks the collections' lists by their cursors, page numbers included", async () => {
    const { me, identity } = await userWithRewards(0)
    const marker = randomUUID().slice(0, 8)
    for (let i = 0; i < 7; i++) {
      const collectionId = randomUUID()
      await me.collections.putCollection({ id: collectionId, name: `Cursor ${marker} ${i}` })
    }
    const pages = await collect(me.collections.collectionsOfPages(identity.address, { limit: 3 }))
    expect(pages.map((p) => [p.page, p.items.length, p.total, p.pages])).toEqual([
      [1, 3, 7, 3],
      [2, 3, 7, 3],
      [3, 1, 7, 3],
    ])
    expect(pages.map((p) => p.nextCursor === null)).toEqual([false, false, true])
    expect(pages.flatMap((p) => p.items.map((c) => c.name))).toEqual(
      [6, 5, 4, 3, 2, 1, 0].map((i) => `Cursor ${marker} ${i}`),
    )
    // from a later page on: that page by number, the next ones by cursor
    const fromSecond = await collect(
      items(me.collections.collectionsOfPages(identity.address, { limit: 3, page: 2 })),
    )
    expect(fromSecond.map((c) => c.name)).toEqual([3, 2, 1, 0].map((i) => `Cursor ${marker} ${i}`))
  })

  it("walks land's offset-paged lists in pages of the same shape", async () => {
    const first = await client.land.parcels({ limit: 7 })
    expect(first.total).toBeGreaterThan(7)
    const seen: string[] = []
    let count = 0
    for await (const page of client.land.parcelPages({ limit: 7 })) {
      expect(page.items.length).toBeLessThanOrEqual(7)
      seen.push(...page.items.map((p) => p.id))
      if (++count === 3) break
    }
    expect(seen.slice(0, 7)).toEqual(first.items.map((p) => p.id))
    expect(new Set(seen).size).toBe(21)
    const second = await client.land.parcels({ limit: 7, offset: 7 })
    expect(second.page).toBe(2)
    expect(seen.slice(7, 14)).toEqual(second.items.map((p) => p.id))
  })
})
