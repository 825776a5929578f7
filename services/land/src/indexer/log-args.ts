import { AbiCoder, type EventFragment } from 'ethers'

/** The ABI types the land contracts' events carry, as the handlers read them. */
type ArgType = 'address' | 'uint256' | 'bytes32' | 'bytes'

const coder = AbiCoder.defaultAbiCoder()

const word = (topic: string | undefined): bigint => {
  if (topic === undefined || !/^0x[0-9a-fA-F]{64}$/.test(topic)) throw new Error('malformed topic')
  return BigInt(topic)
}
const addressOf = (topic: string | undefined): string =>
  `0x${word(topic).toString(16).padStart(40, '0')}`.slice(-42)

/**
 * A `string` is decoded as `bytes` (same ABI encoding): the indexer checks UTF-8 itself
 * (`src/domain/land-data.ts`) instead of letting a bad string throw inside the decoder.
 */
const decodedAs = (type: string): ArgType => {
  if (type === 'string' || type === 'bytes') return 'bytes'
  if (type === 'address' || type === 'uint256' || type === 'bytes32') return type
  throw new Error(`land indexer: no decoding for ABI type ${type}`)
}

/**
 * A log's arguments, by their names in the event's signature, each read as its type: addresses and bytes32
 * lower-case, integers as bigint, strings as their bytes. A malformed log throws (the caller counts it as
 * undecodable), and so does asking for an argument the event does not have.
 */
export class LogArgs {
  private constructor(private readonly values: ReadonlyMap<string, { type: ArgType; value: unknown }>) {}

  /** The arguments of a log of `fragment` (its topic count already checked). */
  static decode(fragment: EventFragment, topics: readonly string[], data: string): LogArgs {
    const values = new Map<string, { type: ArgType; value: unknown }>()
    const unindexed = fragment.inputs.filter((input) => !input.indexed)
    const decoded = coder.decode(
      unindexed.map((input) => decodedAs(input.type)),
      data,
    )
    let topic = 1
    let field = 0
    for (const input of fragment.inputs) {
      const type = decodedAs(input.type)
      if (input.indexed) {
        // indexed values here are all one word; a dynamic type's topic is a hash, never its value
        const raw = topics[topic++]
        if (type === 'address') values.set(input.name, { type, value: addressOf(raw) })
        else if (type === 'uint256') values.set(input.name, { type, value: word(raw) })
        else throw new Error(`land indexer: no decoding for indexed ${input.type}`)
      } else {
        const raw: unknown = decoded[field++]
        const value =
          type === 'uint256'
            ? BigInt(raw as bigint)
            : type === 'bytes'
              ? Buffer.from(String(raw).slice(2), 'hex')
              : String(raw).toLowerCase()
        values.set(input.name, { type, value })
      }
    }
    return new LogArgs(values)
  }

  address(name: string): string {
    return this.take(name, 'address') as string
  }

  uint(name: string): bigint {
    return this.take(name, 'uint256') as bigint
  }

  bytes32(name: string): string {
    return this.take(name, 'bytes32') as string
  }

  bytes(name: string): Uint8Array {
    return this.take(name, 'bytes') as Uint8Array
  }

  private take(name: string, type: ArgType): unknown {
    const found = this.values.get(name)
    if (found?.type !== type) throw new Error(`land indexer: the event has no ${type} argument ${name}`)
    return found.value
  }
}
