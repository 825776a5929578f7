import { createHash } from 'node:crypto'

/** A strong ETag: rendering is deterministic, so one version and one set of parameters is one byte string. */
export function imageETag(version: string, key: string): string {
  return `"${createHash('sha1').update(version).update('\n').update(key).digest('base64url')}"`
}

/** RFC 9110 If-None-Match: `*` or a list of (possibly weak) entity tags, compared weakly. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  const wanted = etag.replace(/^W\//, '')
  return header.split(',').some((candidate) => {
    const tag = candidate.trim()
    return tag === '*' || tag.replace(/^W\//, '') === wanted
  })
}
