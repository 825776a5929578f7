/**
 * Shares one read among concurrent callers without ever answering a caller with a read that was sent
 * before it asked: a caller that arrives while a read is under way waits for the next one, which is sent
 * as soon as that read ends and serves every caller that arrived in between. So whatever was committed
 * before a caller asked is in what it gets, and under load one read serves many requests.
 */
export function freshRead<T>(read: () => Promise<T>): () => Promise<T> {
  let underWay: Promise<T> | null = null
  let next: Promise<T> | null = null
  const send = (): Promise<T> => {
    const sent = read()
    underWay = sent
    const done = () => {
      if (underWay === sent) underWay = null
    }
    sent.then(done, done)
    return sent
  }
  return () => {
    if (underWay === null) return send()
    if (next === null) {
      const settle = () => {
        next = null
        return send()
      }
      next = underWay.then(settle, settle)
    }
    return next
  }
}
