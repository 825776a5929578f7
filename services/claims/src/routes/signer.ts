import { type App, Envelope, ok } from '@genesis/common'
import { SignerInfo } from '../schemas/index.js'
import { VOUCHER_DOMAIN_NAME, VOUCHER_DOMAIN_VERSION, type VoucherSigner } from '../voucher/voucher.js'

/** Public: the voucher signer's address, to configure on the RewardsDispenser contract. */
export async function signerRoutes(app: App, options: { signer: VoucherSigner }) {
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
        address: options.signer.address,
        domain: { name: VOUCHER_DOMAIN_NAME, version: VOUCHER_DOMAIN_VERSION },
      }),
  )
}
