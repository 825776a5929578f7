import { Type } from '@sinclair/typebox'
import { BIDI_CONTROLS, C0_CONTROLS, C1_CONTROLS, HINT } from '../index.js'

export const NAME_MAX_LENGTH = 42

/** A URN's network, and a third party's id or a collection's suffix within a third-party URN. */
export const URN_NETWORK = '[a-z0-9-]{1,32}'
export const URN_SEGMENT = '[A-Za-z0-9][A-Za-z0-9._-]{0,99}'

/** The shape every accepted URN has (in the request schemas, so a bad URN is a 400 naming the field). */
const COLLECTION_URN_PATTERN = `^urn:decentraland:${URN_NETWORK}:(collections-v2:0x[0-9a-fA-F]{40}|collections-thirdparty:${URN_SEGMENT}:${URN_SEGMENT})$`

/**
 * 1 to 42 characters once trimmed (the service stores it trimmed), no control characters (C0 or C1: a
 * terminal showing a log reads them as commands), no bidi override or isolate (which make a name read as
 * another) and no lone surrogate (half of a UTF-16 pair, which PostgreSQL would store as U+FFFD). The raw
 * value may carry surrounding blanks; the pattern pins the trimmed length. Patterns are compiled with the
 * `u` flag, so `\uD800-\uDFFF` in a class matches only an unpaired half.
 */
const REFUSED = `${C0_CONTROLS}${C1_CONTROLS}${BIDI_CONTROLS}\\uD800-\\uDFFF`
const NAME_CHAR = `[^${REFUSED}]`
const NAME_EDGE = `[^\\s${REFUSED}]`
export const Name = Type.String({
  maxLength: 200,
  pattern: `^\\s*${NAME_EDGE}(?:${NAME_CHAR}{0,${NAME_MAX_LENGTH - 2}}${NAME_EDGE})?\\s*$`,
  description: `1 to ${NAME_MAX_LENGTH} characters after trimming`,
  [HINT]: `must be 1 to ${NAME_MAX_LENGTH} characters after trimming, without control characters, bidi overrides or unpaired surrogates`,
  examples: ['Summer Wearables'],
})

/** The longest content hash: a CIDv1 of `b` and 100 base32 characters. */
export const MAX_CONTENT_HASH_LENGTH = 101

/** An IPFS CID (v0 `Qm…` or v1 base32 `b…`) or a 32-byte hex digest. */
export const ContentHash = Type.String({
  pattern: `^(Qm[1-9A-HJ-NP-Za-km-z]{44}|b[a-z2-7]{50,${MAX_CONTENT_HASH_LENGTH - 1}}|0x[0-9a-fA-F]{64})$`,
  description: 'IPFS CID (v0 or v1 base32) or a 0x-prefixed 32-byte hex digest',
  examples: ['bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy'],
})

export const CollectionUrn = Type.String({
  maxLength: 300,
  pattern: COLLECTION_URN_PATTERN,
  description:
    'urn:decentraland:<network>:collections-v2:<contract> (standard, derived by the service) or urn:decentraland:<network>:collections-thirdparty:<third-party>:<suffix>',
  examples: ['urn:decentraland:sepolia:collections-thirdparty:cryptohats:summer'],
})

export const Bytes32 = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', examples: [`0x${'ab'.repeat(32)}`] })

export const Signature = Type.String({
  pattern: '^0x([0-9a-fA-F]{128}|[0-9a-fA-F]{130})$',
  description: 'A 65-byte (or compact 64-byte) ECDSA signature',
})

export const Email = Type.String({ format: 'email', maxLength: 254, examples: ['creator@example.com'] })

export const DateTime = Type.String({ format: 'date-time' })

/**
 * A uuid in its canonical text form (either case). The `uuid` format of ajv-formats also admits a
 * `urn:uuid:` prefix, which PostgreSQL's uuid type refuses, so ids are checked with this pattern instead.
 */
export const Id = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'uuid',
  examples: ['6f1c1b0e-8f0e-4c3e-9d7a-2b1f3c4d5e6f'],
})
