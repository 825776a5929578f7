import { LAND_EVENTS, type LandContract } from '@genesis/contracts/land'
import { Interface } from 'ethers'
import { describe, expect, it } from 'vitest'
import { type Contracts, decodeLog, type RpcLog, TOPICS } from '../src/indexer/events.js'
import { type EventKind, handlers } from '../src/indexer/handlers/index.js'

/*
 * The handler table against the contracts' signatures: each `Contract:Event` decodes from a log of that
 * contract encoded with @genesis/contracts' ABI (the anvil tests do it with the real contracts).
 */

const contracts: Contracts = {
  land: `0x${'1'.repeat(40)}`,
  estates: `0x${'2'.repeat(40)}`,
  marketplace: `0x${'3'.repeat(40)}`,
}
const ADDRESS: Record<LandContract, string> = {
  LANDRegistry: contracts.land,
  EstateRegistry: contracts.estates,
  Marketplace: contracts.marketplace,
}

/** A value of each ABI type, and what the indexer makes of it. */
const SAMPLES: Record<string, { value: unknown; decoded: unknown }> = {
  address: { value: `0x${'ab'.repeat(20)}`, decoded: `0x${'ab'.repeat(20)}` },
  uint256: { value: 7n, decoded: 7n },
  bytes32: { value: `0x${'cd'.repeat(32)}`, decoded: `0x${'cd'.repeat(32)}` },
  string: { value: '0,Name,', decoded: new Uint8Array(Buffer.from('0,Name,')) },
}

const logOf = (contract: LandContract, topics: readonly string[], data: string): RpcLog => ({
  address: ADDRESS[contract],
  topics: [...topics],
  data,
  blockNumber: '0x1',
  blockHash: `0x${'0'.repeat(64)}`,
  transactionHash: `0x${'9'.repeat(64)}`,
  logIndex: '0x0',
})

describe('the handler table', () => {
  it('decodes each of its events from a log of its contract, every argument read', () => {
    for (const kind of Object.keys(handlers) as EventKind[]) {
      const [contract, name] = kind.split(':') as [LandContract, string]
      const abi = new Interface(LAND_EVENTS[contract])
      const fragment = abi.getEvent(name)!
      const samples = fragment.inputs.map((input) => SAMPLES[input.type]!)
      const { topics, data } = abi.encodeEventLog(
        fragment,
        samples.map((s) => s.value),
      )
      expect(TOPICS).toContain(topics[0])
      const event = decodeLog(logOf(contract, topics, data), contracts)
      expect(event?.kind, kind).toBe(kind)
      // every field the handler made is one of the log's arguments, as the indexer reads it
      const { kind: _, ...fields } = event!
      const decoded = samples.map((s) => s.decoded)
      for (const [field, value] of Object.entries(fields)) {
        expect(decoded, `${kind} ${field}`).toContainEqual(
          value instanceof Uint8Array ? new Uint8Array(value) : value,
        )
      }
      // and every argument is read, but an Update's holder and operator (who wrote the data does not matter)
      expect(Object.keys(fields).length, kind).toBe(fragment.inputs.length - (name === 'Update' ? 2 : 0))
    }
  })

  it('leaves out a log of another contract, and an ERC-20 Transfer (one topic fewer)', () => {
    const abi = new Interface(LAND_EVENTS.LANDRegistry)
    const { topics, data } = abi.encodeEventLog('Transfer', [contracts.land, contracts.estates, 1n])
    expect(
      decodeLog({ ...logOf('LANDRegistry', topics, data), address: `0x${'4'.repeat(40)}` }, contracts),
    ).toBeNull()
    expect(decodeLog(logOf('LANDRegistry', topics.slice(0, 3), data), contracts)).toBeNull()
    expect(decodeLog(logOf('Marketplace', topics, data), contracts)).toBeNull()
  })
})
