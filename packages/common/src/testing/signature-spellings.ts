import { getAddress } from 'ethers'
import type { App } from '../kit/create-app.js'
import { routesOf } from '../kit/route-table.js'

/** secp256k1's group order: s and n - s are the same signature (with the other recovery id). */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

const body = (signature: string) => signature.slice(2).toLowerCase()
const withV = (signature: string, v: (v: number) => number) => {
  const hex = body(signature)
  return `0x${hex.slice(0, 128)}${v(Number.parseInt(hex.slice(128), 16))
    .toString(16)
    .padStart(2, '0')}`
}
function highS(signature: string, flipV: boolean): string {
  const hex = body(signature)
  const s = BigInt(`0x${hex.slice(64, 128)}`)
  const v = Number.parseInt(hex.slice(128), 16)
  const flipped = flipV ? (v === 27 ? 28 : v === 28 ? 27 : v ^ 1) : v
  return `0x${hex.slice(0, 64)}${(N - s).toString(16).padStart(64, '0')}${flipped.toString(16).padStart(2, '0')}`
}

/**
 * Every re-spelling of a 65-byte `0x r s v` signature an attacker could try: the ones verification
 * accepts must all count as the same signature for replay protection.
 */
export const signatureVariants: Record<string, (signature: string) => string> = {
  'upper case': (s) => `0x${body(s).toUpperCase()}`,
  'one letter re-cased': (s) => {
    const hex = body(s)
    const i = hex.search(/[a-f]/)
    return `0x${hex.slice(0, i)}${hex[i]!.toUpperCase()}${hex.slice(i + 1)}`
  },
  'upper-case 0X': (s) => `0X${body(s)}`,
  'no 0x': (s) => body(s),
  'v as 0/1': (s) => withV(s, (v) => v - 27),
  'v as 0/1 upper case': (s) =>
    withV(s, (v) => v - 27)
      .toUpperCase()
      .replace('0X', '0x'),
  'high s, v flipped': (s) => highS(s, true),
  'high s, v 0/1': (s) => withV(highS(s, true), (v) => v - 27),
  'high s, same v': (s) => highS(s, false),
  'leading zero byte': (s) => `0x00${body(s)}`,
  'leading zero nibble': (s) => `0x0${body(s)}`,
  'trailing zero byte': (s) => `0x${body(s)}00`,
  'v + 2': (s) => withV(s, (v) => v + 2),
  'surrounding space': (s) => ` 0x${body(s)} `,
}

/** The spellings verification accepts (hex case, v as 0/1, the high-s twin): all one signature. */
export const ACCEPTED_SPELLINGS = [
  'upper case',
  'one letter re-cased',
  'v as 0/1',
  'v as 0/1 upper case',
  'high s, v flipped',
  'high s, v 0/1',
]
/** The ones it refuses (no 0x, zero padding, odd length, a wrong v or s): never a signature at all. */
export const REFUSED_SPELLINGS = Object.keys(signatureVariants).filter((v) => !ACCEPTED_SPELLINGS.includes(v))

/** The headers with the signature of link `index` re-spelled. */
export function respellLink(
  headers: Record<string, string>,
  index: number,
  variant: string,
): Record<string, string> {
  const name = `x-identity-auth-chain-${index}`
  const link = JSON.parse(headers[name]!) as { signature: string }
  return {
    ...headers,
    [name]: JSON.stringify({ ...link, signature: signatureVariants[variant]!(link.signature) }),
  }
}

/** The headers with the request's own signature (the chain's last link) re-spelled. */
export function respellSignature(headers: Record<string, string>, variant: string): Record<string, string> {
  const links = Object.keys(headers).filter((name) => name.startsWith('x-identity-auth-chain-')).length
  return respellLink(headers, links - 1, variant)
}

/** A signed request as a test sends it: its URL and headers. */
export interface SentRequest {
  url: string
  headers: Record<string, string>
}

const CHAIN = 'x-identity-auth-chain-'
const linkCount = (headers: Record<string, string>) =>
  Object.keys(headers).filter((name) => name.startsWith(CHAIN)).length

interface Link {
  type: string
  payload: string
  signature: string
}

/** The request with link `index` of its chain changed by `change`. */
function withLink(request: SentRequest, index: number, change: (link: Link) => Link): SentRequest {
  const name = `${CHAIN}${index}`
  const link = JSON.parse(request.headers[name]!) as Link
  return { ...request, headers: { ...request.headers, [name]: JSON.stringify(change(link)) } }
}

const withDelegation = (request: SentRequest, payload: (text: string) => string) =>
  withLink(request, 1, (link) => ({ ...link, payload: payload(link.payload) }))
const withOwner = (request: SentRequest, payload: (address: string) => string) =>
  withLink(request, 0, (link) => ({ ...link, payload: payload(link.payload) }))

/** Link `index` as other JSON text for the same object: spaced out, and its `a`s written as `\u0061`. */
function rewrittenJson(request: SentRequest, index: number): SentRequest {
  const name = `${CHAIN}${index}`
  const link = JSON.parse(request.headers[name]!) as Record<string, string>
  const text = `{ ${Object.entries(link)
    .map(([key, value]) => `${JSON.stringify(key)} : ${JSON.stringify(value).replaceAll('a', '\\u0061')}`)
    .join(' , ')} , "unknown" : 1 }`
  return { ...request, headers: { ...request.headers, [name]: text } }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|0x[0-9a-f]{40}/g

/**
 * Every other spelling of a whole signed request (its URL and headers, beyond the signatures' text) an
 * attacker could try. What the chain signs is read after normalisation: @dcl/crypto drops every `\r` of
 * the owner → ephemeral link before checking the owner's signature, the owner's address is compared
 * lower-case, the request's own link signs `method:path:timestamp:metadata` lower-cased (so the case of
 * the path and the metadata is not signed), the query string is not signed, a missing metadata header
 * reads as `{}`, and each header is JSON (any spacing, escapes or extra keys for one object).
 */
export const requestVariants: Record<string, (request: SentRequest) => SentRequest> = {
  'delegation with \\r\\n line endings': (r) => withDelegation(r, (p) => p.replaceAll('\n', '\r\n')),
  'delegation ending in \\r': (r) => withDelegation(r, (p) => `${p}\r`),
  'delegation with \\r inside a word': (r) =>
    withDelegation(r, (p) => p.replace('Decentraland', 'Decen\rtraland')),
  'delegation with \\r before every character': (r) =>
    withDelegation(r, (p) => p.replace(/[\s\S]/g, (c) => `\r${c}`)),
  'delegation signature upper case': (r) => ({ ...r, headers: respellLink(r.headers, 1, 'upper case') }),
  'delegation signature v as 0/1': (r) => ({ ...r, headers: respellLink(r.headers, 1, 'v as 0/1') }),
  'delegation signature high s': (r) => ({ ...r, headers: respellLink(r.headers, 1, 'high s, v flipped') }),
  'owner upper case': (r) => withOwner(r, (a) => `0x${a.slice(2).toUpperCase()}`),
  'owner checksummed': (r) => withOwner(r, (a) => getAddress(a.toLowerCase())),
  'owner with 0X': (r) => withOwner(r, (a) => `0X${a.slice(2)}`),
  'owner link as other JSON': (r) => rewrittenJson(r, 0),
  'delegation link as other JSON': (r) => rewrittenJson(r, 1),
  'request link as other JSON': (r) => rewrittenJson(r, linkCount(r.headers) - 1),
  'metadata re-cased': (r) => ({
    ...r,
    headers: {
      ...r.headers,
      'x-identity-metadata': (r.headers['x-identity-metadata'] ?? '{}').toUpperCase(),
    },
  }),
  'metadata header left out when {}': (r) => {
    if (r.headers['x-identity-metadata'] !== '{}') return r
    const { 'x-identity-metadata': _, ...headers } = r.headers
    return { ...r, headers }
  },
  'ids in the path upper-cased': (r) => ({ ...r, url: r.url.replace(UUID, (id) => id.toUpperCase()) }),
  'a query string added': (r) => ({ ...r, url: `${r.url}${r.url.includes('?') ? '&' : '?'}respelled=1` }),
  // refused: no second spelling of these
  'metadata re-spaced': (r) => ({
    ...r,
    headers: {
      ...r.headers,
      'x-identity-metadata': (r.headers['x-identity-metadata'] ?? '{}').replace('{', '{ '),
    },
  }),
  'a path character percent-encoded': (r) => ({
    ...r,
    url: r.url.replace(/[a-z](?=[^/]*(?:\?|$))/i, (c) => `%${c.charCodeAt(0).toString(16)}`),
  }),
  'timestamp zero-padded': (r) => ({
    ...r,
    headers: { ...r.headers, 'x-identity-timestamp': `0${r.headers['x-identity-timestamp']}` },
  }),
  'owner with a space': (r) => withOwner(r, (a) => ` ${a}`),
  'delegation with \\r for \\n': (r) => withDelegation(r, (p) => p.replaceAll('\n', '\r')),
  'delegation with a line added': (r) => withDelegation(r, (p) => `${p}\nNonce: 1`),
}

/** What each of requestVariants must answer once the request was used: the same request, or no request. */
const REQUEST_REFUSALS: Record<string, [number, string]> = Object.fromEntries(
  Object.keys(requestVariants).map((spelling) => [
    spelling,
    spelling === 'timestamp zero-padded'
      ? [401, 'malformed']
      : spelling === 'metadata re-spaced' || spelling === 'a path character percent-encoded'
        ? [401, 'payload_mismatch']
        : ['owner with a space', 'delegation with \\r for \\n', 'delegation with a line added'].includes(
              spelling,
            )
          ? [401, 'invalid_signature']
          : [401, 'replayed'],
  ]),
)

/** Every spelling of a request verification accepts as that request: signatures' text, headers and URL. */
export const ACCEPTED_REQUEST_SPELLINGS = [
  ...ACCEPTED_SPELLINGS,
  ...Object.keys(REQUEST_REFUSALS).filter((spelling) => REQUEST_REFUSALS[spelling]![1] === 'replayed'),
]

/** The request in one of the spellings of signatureVariants (its own signature) or requestVariants. */
export function respellRequest(request: SentRequest, spelling: string): SentRequest {
  const variant = requestVariants[spelling]
  if (variant) return variant(request)
  if (!signatureVariants[spelling]) throw new Error(`unknown spelling "${spelling}"`)
  return { ...request, headers: respellSignature(request.headers, spelling) }
}

/**
 * What a replay must answer in each spelling: the accepted ones are the replay they are, the others no
 * signature (or a malformed request).
 */
export const REPLAY_REFUSALS: Record<string, [number, string]> = Object.fromEntries([
  ...ACCEPTED_SPELLINGS.map((spelling) => [spelling, [401, 'replayed']]),
  ...REFUSED_SPELLINGS.map((spelling) => [spelling, [401, 'invalid_signature']]),
  ...Object.entries(REQUEST_REFUSALS),
])

/**
 * Sends a signed request that was answered once again in every spelling of REPLAY_REFUSALS (its
 * signatures, its delegation, owner, headers and URL), each with a body of its own (the body is not
 * signed, so a replay could carry any), alternating between two replicas on one database. Returns what
 * each spelling answered, `[status, data.reason]`, to compare with REPLAY_REFUSALS.
 */
/** A signed request sent once: the method, URL and signed headers, and the body of each replay of it. */
export interface SpentRequest {
  method: string
  url: string
  headers: Record<string, string>
  payload: () => object | undefined
}

/** The routes of `app` that take a signature and change something (POST, PUT, PATCH, DELETE). */
export const mutatingSignedRoutes = (app: App) =>
  routesOf(app).filter(
    (route) => route.auth !== undefined && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method),
  )

export async function replayRespelled(
  replicas: [App, App],
  request: SpentRequest,
): Promise<Record<string, [number, string | undefined]>> {
  const answers: Record<string, [number, string | undefined]> = {}
  for (const [i, spelling] of Object.keys(REPLAY_REFUSALS).entries()) {
    const payload = request.payload()
    const sent = respellRequest({ url: request.url, headers: request.headers }, spelling)
    const answer = await replicas[i % 2]!.inject({
      method: request.method as 'POST',
      url: sent.url,
      headers: sent.headers,
      ...(payload === undefined ? {} : { payload }),
    })
    answers[spelling] = [answer.statusCode, answer.json().data?.reason]
  }
  return answers
}
