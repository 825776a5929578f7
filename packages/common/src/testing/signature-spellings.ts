import type { App } from '../kit/create-app.js'

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

/** What a replay must answer in each spelling: the accepted ones are the replay they are, the others no signature. */
export const REPLAY_REFUSALS: Record<string, [number, string]> = Object.fromEntries([
  ...ACCEPTED_SPELLINGS.map((spelling) => [spelling, [401, 'replayed']]),
  ...REFUSED_SPELLINGS.map((spelling) => [spelling, [401, 'invalid_signature']]),
])

/**
 * Sends a signed request that was answered once again in every spelling of its signature, each with a body
 * of its own (the body is not signed, so a replay could carry any), alternating between two replicas on one
 * database. Returns what each spelling answered, `[status, data.reason]`, to compare with REPLAY_REFUSALS.
 */
export async function replayRespelled(
  replicas: [App, App],
  request: {
    method: string
    url: string
    headers: Record<string, string>
    payload: () => object | undefined
  },
): Promise<Record<string, [number, string | undefined]>> {
  const answers: Record<string, [number, string | undefined]> = {}
  for (const [i, spelling] of Object.keys(REPLAY_REFUSALS).entries()) {
    const payload = request.payload()
    const answer = await replicas[i % 2]!.inject({
      method: request.method as 'POST',
      url: request.url,
      headers: respellSignature(request.headers, spelling),
      ...(payload === undefined ? {} : { payload }),
    })
    answers[spelling] = [answer.statusCode, answer.json().data?.reason]
  }
  return answers
}
