/*
 * An RPC setting holds one URL or a comma-separated list of providers of the same chain. A URL may carry
 * a password or an API key (in its user info, path or query): it is never printed, in a refusal or a log
 * line; a provider is named by its position and host instead.
 */

/** What TypeBox checks an RPC setting against: one http(s) URL, or several separated by commas. */
export const RPC_URL_LIST_PATTERN = String.raw`^\s*https?://[^\s,]+\s*(,\s*https?://[^\s,]+\s*)*$`

/** The providers of a setting, in the order given (the first is preferred among equally fresh ones). */
export function splitRpcUrls(value: string): string[] {
  return value
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url.length > 0)
}

/**
 * Why a setting's value is not a list of http(s) provider URLs, naming the setting and the position of the
 * bad entry, never the value; null when it is one.
 */
export function rpcUrlListProblem(name: string, value: string): string | null {
  const urls = value.split(',').map((url) => url.trim())
  if (urls.every((url) => url === ''))
    return `${name}: must be an http(s) URL or a comma-separated list of them`
  for (const [i, url] of urls.entries()) {
    const which = urls.length > 1 ? `entry ${i + 1} of ${urls.length}` : 'the value'
    if (url === '') return `${name}: ${which} is empty (a comma too many?)`
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return `${name}: ${which} is not a URL`
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      return `${name}: ${which} must be an http(s) URL, not ${parsed.protocol.replace(/:$/, '')}`
    }
    if (/\s/.test(url)) return `${name}: ${which} holds a space`
  }
  if (new Set(urls).size !== urls.length) return `${name}: lists the same provider twice`
  return null
}

/** A provider as logs name it: its position and host, without user info, path or query. */
export function providerLabel(url: string, index: number): string {
  try {
    return `#${index + 1} ${new URL(url).host}`
  } catch {
    return `#${index + 1}`
  }
}
