/** Claims: the operator grants rewards, a user claims them and the claim settles. */
import { Wallet } from 'ethers'
import { check, type Demo, hex, short } from './demo.js'

export async function claimsFlow({ options, base, section, step, actor }: Demo): Promise<void> {
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
    'the operator settles it (the service follows no chain for these rewards)',
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
}
