import { LRUCache } from 'lru-cache'

/** A bound on the memory the serialised answers take: room for hundreds of full pages of 100 collections. */
const MAX_BYTES = 16 * 1024 * 1024

/** A serialised answer, and whether it may be reused while the data stays as it is (false: it depends on the clock). */
export interface BuiltAnswer {
  body: Buffer
  reusable: boolean
}

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
  /** Answers being built, by version and key: the requests that ask meanwhile wait for the same build. */
  readonly #building = new Map<string, Promise<BuiltAnswer>>()

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

  /**
   * The answer for `key` under `version`: the one kept, else the one being built for it now, else a build
   * of its own, which the requests arriving meanwhile share (after a write, or for an answer nobody asked
   * for yet, concurrent requests make one build, not one each). A shared build that turns out not
   * reusable (it depends on the clock) serves only the request that started it; the others build their
   * own. A failed build fails the requests that waited for it too, as it would have failed theirs.
   */
  async answer(version: number, key: string, build: () => Promise<BuiltAnswer>): Promise<Buffer> {
    const kept = this.get(version, key)
    if (kept !== undefined) return kept
    const id = `${version}\u0000${key}`
    const underWay = this.#building.get(id)
    if (underWay !== undefined) {
      const shared = await underWay
      return shared.reusable ? shared.body : (await build()).body
    }
    const building = build()
    this.#building.set(id, building)
    try {
      const built = await building
      if (built.reusable) this.set(version, key, built.body)
      return built.body
    } finally {
      this.#building.delete(id)
    }
  }
}
