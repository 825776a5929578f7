import { Envelope, ok, type RoutePlugin } from '@genesis/common'
import { SignerInfo } from '@genesis/wire/claims'
import { VOUCHER_DOMAIN_NAME, VOUCHER_DOMAIN_VERSION } from '../chain/voucher.js'
import type { Context } from '../context.js'

/** Public: the voucher signer's address, to configure on the RewardsDispenser contract. */
export const signerRoutes: RoutePlugin<Context> = async (app, { ctx }) => {
  app.get(
    '/signer',
    {
      schema: {
        tags: ['signer'],
        summary: 'The address that signs claim vouchers, and the EIP-712 domain name and version',
        response: { 200: Envelope(SignerInfo) },
      },
    },
    async () =>
      ok({
        address: ctx.signer.address,
        domain: { name: VOUCHER_DOMAIN_NAME, version: VOUCHER_DOMAIN_VERSION },
      }),
  )
}
