/**
 * Claims on a real chain (`pnpm demo --chain`, against `pnpm chain` and `pnpm start`): the operator grants
 * rewards on the chain's dispenser, a user claims them, sends the voucher from their own funded wallet,
 * and the service settles the claim from the chain alone.
 */
import { Contract, JsonRpcProvider, type TransactionReceipt, Wallet } from 'ethers'
import type { ClaimTransaction, RewardGrant } from '../src/index.js'
import { check, type Demo, type DemoBaseOptions, DemoCheckFailed, short } from './demo.js'

export interface ChainDemoOptions {
  /** The node's JSON-RPC URL (claims' RPC_URL_<chain id>). */
  rpcUrl: string
  chainId: RewardGrant['chain_id']
  /** The RewardsDispenser rewards are granted on. */
  dispenser: string
  /** The private key of a funded wallet: the user who claims and sends the voucher. */
  userKey: string
  /** How long the claim may take to settle once its voucher is mined. */
  settleTimeoutMs?: number
}

const DISPENSER_ABI = [
  'function signer() view returns (address)',
  'function collection() view returns (address)',
]
const COLLECTION_ABI = ['function ownerOf(uint256) view returns (address)']

/** A token id nobody has minted yet on the rewards collection: random, 128 bits. */
const freshItemId = () => {
  const bytes = new Uint8Array(16)
  globalThis.crypto.getRandomValues(bytes)
  return BigInt(`0x${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`).toString()
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function claimsOnChainFlow(demo: Demo<DemoBaseOptions>, chain: ChainDemoOptions): Promise<void> {
  const { base, section, step, actor } = demo
  const provider = new JsonRpcProvider(chain.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 })
  try {
    section(`Claims on chain ${chain.chainId} (${chain.rpcUrl}, claims at ${demo.options.urls.claims})`)
    const wallet = new Wallet(chain.userKey, provider)
    const dispenser = new Contract(chain.dispenser, DISPENSER_ABI, provider)

    await step(
      'the chain answers, with the dispenser on it',
      async () => ({
        network: await provider.getNetwork(),
        block: await provider.getBlockNumber(),
        code: await provider.getCode(chain.dispenser),
      }),
      ({ network, block, code }) => {
        check(
          String(network.chainId) === chain.chainId,
          `expected chain ${chain.chainId}, the node is on ${network.chainId}`,
        )
        check(code !== '0x', `no contract at ${chain.dispenser}: is this the chain pnpm chain started?`)
        return `chain ${network.chainId} at block ${block}, dispenser ${short(chain.dispenser)}`
      },
    )
    await step(
      'the claims service signs vouchers as the signer the dispenser trusts',
      async () => ({
        service: (await base.claims.signer()).address.toLowerCase(),
        trusted: String(await dispenser.getFunction('signer')()).toLowerCase(),
      }),
      ({ service, trusted }) => {
        check(
          service === trusted,
          `claims signs as ${service}, the dispenser trusts ${trusted}: start the services with pnpm chain's ` +
            'environment (pnpm chain, then pnpm start in another terminal)',
        )
        return `${service}`
      },
    )

    const user = await actor(wallet)
    const me = user.identity!.address
    const itemIds = [freshItemId(), freshItemId()]
    const granted = await step(
      `the operator grants two rewards on chain ${chain.chainId} to a development wallet`,
      () =>
        base.claimsAdmin.grantRewards(
          itemIds.map((item_id) => ({
            user: me,
            chain_id: chain.chainId,
            contract: chain.dispenser,
            item_id,
            campaign: 'demo-chain',
          })),
        ),
      (rewards) => {
        check(rewards.length === 2 && rewards.every((r) => r.claimable), 'expected two claimable rewards')
        return `${rewards.length} rewards for ${short(me)}`
      },
    )
    const { claim } = await step(
      'the user claims them and gets the voucher as calldata',
      () => user.claims.createClaim(granted.map((r) => r.id)),
      ({ claim }) => {
        check(claim.status === 'claimed', 'expected a claimed claim')
        check(claim.contract === chain.dispenser, 'expected the dispenser as the contract to send to')
        return `claim ${claim.id}, valid until ${claim.expires_at}`
      },
    )
    const receipt = await step(
      'the user sends it from their wallet',
      async () => {
        const sent = await wallet.sendTransaction({ to: claim.contract, data: claim.transaction_payload })
        return (await sent.wait()) as TransactionReceipt
      },
      (mined) => {
        check(mined.status === 1, `the transaction ${mined.hash} reverted`)
        return `${short(mined.hash)} mined in block ${mined.blockNumber}`
      },
    )
    await step(
      'the user reports the transaction hash',
      async () => {
        try {
          return await user.claims.reportTransactionHash(claim.id, receipt.hash)
        } catch (error) {
          // The service may have seen the redemption on chain first: then the claim is settled already.
          const read = await user.claims.getClaim(claim.id)
          if (read.status === 'successful') return read
          throw error
        }
      },
      (reported) => {
        check(['pending', 'successful'].includes(reported.status), `expected pending, got ${reported.status}`)
        return reported.status
      },
    )
    const timeoutMs = chain.settleTimeoutMs ?? 60_000
    const sentAt = Date.now()
    await step(
      'the service settles it from the chain',
      async () => {
        const deadline = Date.now() + timeoutMs
        let read: ClaimTransaction
        for (;;) {
          read = await user.claims.getClaim(claim.id)
          if (read.status === 'successful' || Date.now() > deadline) break
          await sleep(500)
        }
        if (read.status !== 'successful')
          throw new DemoCheckFailed(
            `still ${read.status} after ${timeoutMs / 1000} s: claims settles claims only on chains it watches ` +
              `(RPC_URL_${chain.chainId}) once their block is CLAIMS_CONFIRMATIONS deep; pnpm chain's ` +
              'environment sets both for this chain',
          )
        return read
      },
      (settled) => `${settled.status}, ${((Date.now() - sentAt) / 1000).toFixed(1)} s after the report`,
    )
    await step(
      'the items are the user’s on the rewards collection',
      async () => {
        const collection = new Contract(
          String(await dispenser.getFunction('collection')()),
          COLLECTION_ABI,
          provider,
        )
        return Promise.all(itemIds.map(async (id) => String(await collection.getFunction('ownerOf')(id))))
      },
      (owners) => {
        check(
          owners.every((owner) => owner.toLowerCase() === me),
          `expected ${me} to own both items, got ${owners.join(', ')}`,
        )
        return `items ${itemIds.map((id) => short(id)).join(', ')} owned by ${short(me)}`
      },
    )
  } finally {
    provider.destroy()
  }
}
