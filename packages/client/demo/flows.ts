/**
 * Every flow of the three services, walked through with @genesis/client and checked step by step: what
 * `pnpm demo` runs against `pnpm start`, and what test/demo.test.ts runs against services in-process.
 */
import { Wallet } from 'ethers'
import {
  createIdentity,
  type FetchLike,
  GenesisApiError,
  GenesisClient,
  type MessageSigner,
  type RegistryConfig,
  type ServiceUrls,
  signCheque,
} from '../src/index.js'

export interface DemoOptions {
  urls: ServiceUrls
  /** The claims operator's token. */
  adminToken: string
  /** A private key of a collections committee member. */
  committeeKey: string
  /** CHAIN_NETWORK of the collections service (the network of its URNs). */
  network: string
  /** THIRD_PARTY_REGISTRY_* of the collections service: the domain cheques are signed for. */
  registry: RegistryConfig
  print?: (line: string) => void
  fetch?: FetchLike
}

/** A step whose answer was not the documented one. */
export class DemoCheckFailed extends Error {
  override readonly name = 'DemoCheckFailed'
}

const check = (condition: unknown, message: string): void => {
  if (!condition) throw new DemoCheckFailed(message)
}

const hex = (bytes: number) => {
  const buffer = new Uint8Array(bytes)
  globalThis.crypto.getRandomValues(buffer)
  return Array.from(buffer, (b) => b.toString(16).padStart(2, '0')).join('')
}

/** A CIDv1 (base32) of the shape IPFS gives a file; random, as the demo uploads nothing. */
const contentHash = () => {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567'
  const bytes = new Uint8Array(52)
  globalThis.crypto.getRandomValues(bytes)
  return `bafkrei${Array.from(bytes, (b) => alphabet[b % 32]).join('')}`
}

const short = (value: string) => (value.length > 22 ? `${value.slice(0, 12)}…${value.slice(-6)}` : value)

/** Runs every flow; throws (DemoCheckFailed or GenesisApiError) at the first step that did not answer as documented. */
export async function runDemo(options: DemoOptions): Promise<{ steps: string[] }> {
  const print = options.print ?? (() => {})
  const steps: string[] = []
  let current = ''
  const section = (title: string) => print(`\n${title}`)
  const step = async <T>(title: string, run: () => Promise<T>, report: (value: T) => string): Promise<T> => {
    current = title
    const value = await run()
    steps.push(title)
    print(`  ✓ ${title}: ${report(value)}`)
    return value
  }
  /** A step whose documented answer is a refusal with this status and code. */
  const refused = async (title: string, run: () => Promise<unknown>, status: number, code: string) =>
    step(
      title,
      async () => {
        try {
          await run()
        } catch (error) {
          if (error instanceof GenesisApiError && error.status === status && error.code === code) return error
          throw error
        }
        throw new DemoCheckFailed(`expected ${status} ${code}, and the call succeeded`)
      },
      (error) => `refused as documented, ${error.status} ${error.code} ("${error.message}")`,
    )

  const base = new GenesisClient({
    urls: options.urls,
    adminToken: options.adminToken,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  })
  const actor = async (wallet: MessageSigner) => base.as(await createIdentity(wallet))

  try {
    // ── claims ────────────────────────────────────────────────────────────────────────────────────────
    section(`Claims (${options.urls.claims})`)
    const userWallet = Wallet.createRandom()
    const user = await actor(userWallet)
    const me = user.identity!.address
    const contract = `0x${hex(20)}`
    const granted = await step(
      'the operator grants two rewards to a new user',
      () =>
        base.claimsAdmin.grantRewards([
          { user: me, chain_id: '137', contract, item_id: '1', campaign: 'demo' },
          { user: me, chain_id: '137', contract, item_id: '2', campaign: 'demo' },
        ]),
      (rewards) => {
        check(rewards.length === 2 && rewards.every((r) => r.claimable), 'expected two claimable rewards')
        return `${rewards.length} rewards for ${short(me)} (items ${rewards.map((r) => r.item_id).join(', ')})`
      },
    )
    const rewardIds = granted.map((r) => r.id)
    await step(
      'the user lists their rewards (signed fetch)',
      () => user.claims.listRewards(),
      (page) => {
        check(page.total === 2 && page.items.every((r) => r.claimable), 'expected the two rewards, claimable')
        return `${page.total} rewards, all claimable`
      },
    )
    const created = await step(
      'the user claims them and gets the calldata',
      () => user.claims.createClaim(rewardIds),
      ({ claim }) => {
        check(claim.status === 'claimed' && claim.user === me, 'expected a claimed claim of the user')
        check(/^0x[0-9a-f]+$/.test(claim.transaction_payload), 'expected hex calldata')
        check(
          claim.contract === contract && claim.chain_id === '137',
          'expected the rewards’ chain and contract',
        )
        return `claim ${claim.id}: send { to: ${short(claim.contract)}, data: ${short(claim.transaction_payload)} } on chain ${claim.chain_id} before ${claim.expires_at}`
      },
    )
    const claim = created.claim
    await step(
      'the same create sent again (a retry) answers the same claim',
      () => user.claims.createClaim(rewardIds, { idempotencyKey: created.idempotencyKey }),
      (again) => {
        check(again.replayed && again.claim.id === claim.id, 'expected the first claim, replayed')
        return `Idempotency-Key ${created.idempotencyKey} → claim ${again.claim.id}, idempotent-replayed`
      },
    )
    await step(
      'the voucher signer is public',
      () => user.claims.signer(),
      (signer) => {
        check(/^0x[0-9a-f]{40}$/.test(signer.address), 'expected an address')
        return `${signer.address} (EIP-712 ${signer.domain.name} v${signer.domain.version})`
      },
    )
    const txHash = `0x${hex(32)}`
    await step(
      'the user reports the transaction hash',
      () => user.claims.reportTransactionHash(claim.id, txHash),
      (c) => {
        check(c.status === 'pending' && c.transaction_hash === txHash, 'expected pending with the hash')
        return `${c.status}, ${short(txHash)}`
      },
    )
    await step(
      'the operator settles it (no chain RPC configured)',
      () => base.claimsAdmin.settleClaim(claim.id, { status: 'successful' }),
      (c) => {
        check(c.status === 'successful', 'expected successful')
        return c.status
      },
    )
    await step(
      'the user reads the claim and their rewards',
      async () => ({ claim: await user.claims.getClaim(claim.id), rewards: await user.claims.listRewards() }),
      (read) => {
        check(read.claim.status === 'successful', 'expected the claim successful')
        check(
          read.rewards.items.every((r) => !r.claimable && r.claim_transaction_id === claim.id),
          'expected the rewards held by the claim',
        )
        return `claim ${read.claim.status}; rewards no longer claimable`
      },
    )

    // ── collections: a standard collection ───────────────────────────────────────────────────────────
    section(`Collections (${options.urls.collections})`)
    const creator = await actor(Wallet.createRandom())
    const collectionId = globalThis.crypto.randomUUID()
    const name = `Demo wearables ${hex(4)}`
    await step(
      'a creator makes a collection',
      async () => {
        await creator.collections.putCollection({ id: collectionId, name })
        return creator.collections.getCollection(collectionId)
      },
      (c) => {
        check(
          c.eth_address === creator.identity!.address && !c.is_published,
          'expected an unpublished own collection',
        )
        check(c.contract_address && c.urn.includes(c.contract_address), 'expected a derived contract and URN')
        return `"${c.name}", contract ${c.contract_address}, ${c.urn}`
      },
    )
    const items = [
      { id: globalThis.crypto.randomUUID(), name: 'Straw hat', content_hash: contentHash() },
      { id: globalThis.crypto.randomUUID(), name: 'Sunglasses', content_hash: contentHash() },
    ]
    await step(
      'adds two items',
      async () => {
        for (const item of items)
          await creator.collections.putItem({ ...item, collection_id: collectionId, type: 'wearable' })
        return creator.collections.listItems(collectionId)
      },
      (listed) => {
        check(listed.length === 2, 'expected two items')
        return listed.map((i) => i.name).join(', ')
      },
    )
    await step(
      'locks it for publication',
      () => creator.collections.lockCollection(collectionId),
      (lock) => `locked since ${lock}`,
    )
    await refused(
      'a rename while locked',
      () => creator.collections.putCollection({ id: collectionId, name: `${name} renamed` }),
      423,
      'collection_locked',
    )
    await step(
      'accepts the terms of service',
      () =>
        creator.collections.acceptTerms(collectionId, {
          email: 'creator@example.com',
          event: 'publish_collection_tos',
          hashes: items.map((i) => i.content_hash),
        }),
      () => `${items.length} content hashes recorded`,
    )
    await step(
      'publishes it',
      async () => {
        await creator.collections.publish(collectionId, { itemIds: items.map((i) => i.id) })
        return {
          collection: await creator.collections.getCollection(collectionId),
          items: await creator.collections.listItems(collectionId),
        }
      },
      (published) => {
        check(published.collection.is_published, 'expected the collection published')
        const ids = published.items.map((i) => i.blockchain_item_id)
        check(ids.join() === '0,1', `expected blockchain item ids 0 and 1, got ${ids.join()}`)
        return `published; blockchain item ids ${ids.join(', ')}`
      },
    )
    await step(
      'anybody finds its contract among the published ones (no signature)',
      () => base.collections.contractAddresses({ q: name }),
      (page) => {
        check(page.total === 1, `expected one contract, got ${page.total}`)
        return page.items.join(', ')
      },
    )

    // ── collections: a third party publishes with a cheque, the committee reads the approval data ────
    const managerWallet = Wallet.createRandom()
    const manager = await actor(managerWallet)
    const thirdPartyName = `demo-${hex(4)}`
    const thirdPartyId = `urn:decentraland:${options.network}:collections-thirdparty:${thirdPartyName}`
    const thirdPartyCollection = globalThis.crypto.randomUUID()
    const thirdPartyItem = { id: globalThis.crypto.randomUUID(), name: 'Cap', content_hash: contentHash() }
    await step(
      'a third party makes a collection and adds an item',
      async () => {
        await manager.collections.putCollection({
          id: thirdPartyCollection,
          name: 'Demo caps',
          urn: `${thirdPartyId}:summer`,
        })
        await manager.collections.putItem({
          ...thirdPartyItem,
          collection_id: thirdPartyCollection,
          type: 'wearable',
        })
        return manager.collections.getCollection(thirdPartyCollection)
      },
      (c) => {
        check(c.contract_address === null, 'a third-party collection has no contract of its own')
        return c.urn
      },
    )
    const cheque = await signCheque(managerWallet, { thirdPartyId, qty: 1, registry: options.registry })
    await step(
      'publishes the item with a cheque for one slot',
      () => manager.collections.publish(thirdPartyCollection, { itemIds: [thirdPartyItem.id], cheque }),
      () => `cheque qty 1, salt ${short(cheque.salt)}, signed by ${short(manager.identity!.address)}`,
    )
    const committee = await actor(new Wallet(options.committeeKey))
    await refused(
      'the third party asks for approval data',
      () => manager.collections.approvalData(thirdPartyCollection),
      403,
      'forbidden',
    )
    await step(
      'the committee reads the approval data',
      () => committee.collections.approvalData(thirdPartyCollection),
      (data) => {
        check(data.cheque.signature === cheque.signature, 'expected the cheque that was sent')
        check(
          data.content_hashes[thirdPartyItem.id] === thirdPartyItem.content_hash,
          'expected the item hash',
        )
        check(/^0x[0-9a-f]{64}$/.test(data.root), 'expected a Merkle root')
        return `root ${short(data.root)}, ${Object.keys(data.content_hashes).length} item, cheque consumed: ${data.chequeWasConsumed}`
      },
    )

    // ── collections: the committee reviews the standard collection ────────────────────────────────────
    const review = await step(
      'the creator asks the committee to review the published collection',
      () => creator.collections.requestReview(collectionId),
      (r) => {
        check(r.status === 'pending' && r.kind === 'collection', `expected a pending review, got ${r.status}`)
        return `review ${r.id} pending`
      },
    )
    await step(
      "sets the review's forum thread",
      async () => {
        await creator.collections.setForum(collectionId, {
          forum_link: 'https://forum.example/t/demo',
          forum_id: 1,
        })
        return creator.collections.getCollection(collectionId)
      },
      (c) => {
        check(c.forum_link === 'https://forum.example/t/demo', 'expected the forum link')
        return `${c.forum_link} (#${c.forum_id})`
      },
    )
    await step(
      'the committee finds it among the pending reviews',
      () => committee.collections.pendingReviews({ q: name }),
      (page) => {
        check(
          page.items.some((r) => r.id === review.id),
          'expected the review in the queue',
        )
        return `${page.total} pending for "${name}"`
      },
    )
    await step(
      'the committee approves it',
      () => committee.collections.decideReview(review.id, 'approve', 'Looks good'),
      (r) => {
        check(r.status === 'approved' && r.reviewed_at !== null, `expected approved, got ${r.status}`)
        return `approved at ${r.reviewed_at} ("${r.comment}")`
      },
    )
    await step(
      'the creator and anybody else read it approved',
      async () => ({
        own: await creator.collections.getCollection(collectionId),
        other: await manager.collections.getCollection(collectionId),
      }),
      ({ own, other }) => {
        check(own.is_approved && own.reviewed_at !== null, 'expected the owner to read it approved')
        check(other.is_approved, 'expected the public view approved')
        return `is_approved true, reviewed_at ${own.reviewed_at}`
      },
    )

    // ── land ──────────────────────────────────────────────────────────────────────────────────────────
    section(`Land (${options.urls.land})`)
    const districts = await step(
      'districts',
      () => base.land.districts(),
      (list) => {
        check(list.length > 0, 'expected districts (land seeds Genesis City on the embedded default)')
        return `${list.length}, e.g. "${list[0]!.name}" (${list[0]!.parcel_count} parcels)`
      },
    )
    const [cx, cy] = districts[0]!.center.split(',').map(Number) as [number, number]
    await step(
      `the parcel at ${cx},${cy}`,
      () => base.land.parcel(cx, cy),
      (p) => {
        check(
          p.x === cx && p.y === cy && p.district_id === districts[0]!.id,
          'expected the district’s centre',
        )
        return `district ${p.district_id}, owner ${p.owner ?? 'none'}`
      },
    )
    const onSale = await step(
      'parcels on sale, cheapest first',
      () => base.land.parcels({ sort_by: 'price', limit: 3 }),
      (page) => {
        check(
          page.total > 0 && page.items.every((p) => p.publication?.status === 'open'),
          'expected open listings',
        )
        return `${page.total} on sale; ${page.items.map((p) => `${p.id} for ${p.publication!.price}`).join(', ')}`
      },
    )
    const listed = onSale.items[0]!
    await step(
      'a listing by its transaction hash',
      () => base.land.publication(listed.publication!.tx_hash),
      (p) => {
        check(p.asset_id === listed.id, 'expected the listing of that parcel')
        return `${p.type} ${p.asset_id}, ${p.price} MANA, seller ${short(p.owner)}`
      },
    )
    await step(
      'what the seller owns',
      () => base.land.parcelsOf(listed.publication!.owner, { limit: 5 }),
      (page) => {
        check(page.total > 0, 'expected at least the parcel on sale')
        return `${short(listed.publication!.owner)} owns ${page.total} parcels`
      },
    )
    await step(
      'the map around 0,0',
      () => base.land.map('-2,2', '2,-2'),
      (m) => {
        check(m.total > 0, 'expected assets in the rectangle')
        return `${m.assets.parcels.length} parcels and ${m.assets.estates.length} estates; PNG ${base.land.mapImageUrl({ center: '0,0', width: 300, height: 300 })}`
      },
    )
  } catch (error) {
    throw Object.assign(error as Error, { step: current })
  }
  return { steps }
}
