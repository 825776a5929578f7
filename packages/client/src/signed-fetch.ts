export {
  AUTH_CHAIN_HEADER_PREFIX,
  AUTH_METADATA_HEADER,
  AUTH_TIMESTAMP_HEADER,
  type SignOptions,
  signedHeaders,
} from '@genesis/wire/signing'

/** A random nonce for the signed metadata: two requests signed in the same millisecond stay distinct. */
export const nonce = (): string => {
  const bytes = new Uint8Array(12)
  globalThis.crypto.getRandomValues(bytes)
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}
