import { type Static, Type } from '@sinclair/typebox'

export const SignerInfo = Type.Object({
  address: Type.String({ description: 'The address that signs every voucher (lower-case)' }),
  domain: Type.Object({ name: Type.String(), version: Type.String() }),
})
export type SignerInfo = Static<typeof SignerInfo>
