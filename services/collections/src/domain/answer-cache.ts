import { LRUCache } from 'lru-cache'

/** A bound on the memory the serialised answers take (a full page of 100 collections is ~50 KB). */
const MAX_BYTES = 16 * 1024 * 1024

/**
 * Serialised list answers of one replica, valid for one answers version (src/db/answers-version.ts).
 * Every request reads the version first; an answer is reused only under the version it was built under, so
 * a committed write (which advances it, on any replica) is seen by the next read. Older answers are
 * dropped as soon as a newer version is seen. An answer built from a snapshot newer than its version is
 * still right for it: it can only be reused by requests that overlapped that write.
 */
export class AnswerCache {
  #version = -1
  readonly #answers = new LRUCache<string, Buffer>({
    maxSize: MAX_BYTES,
    sizeCalculation: (body, key) => body.length + key.length,
  })

  get(version: number, key: string): Buffer | undefined {
    return version === this.#version ? this.#answers.get(key) : undefined
  }

  set(version: number, key: string, body: Buffer): void {
    if (version < this.#version) return
    if (version > this.#version) {
      this.#answers.clear()
      this.#version = version
    }
    this.#answers.set(key, body)
  }
}
