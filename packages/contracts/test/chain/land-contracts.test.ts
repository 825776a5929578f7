import { type Contract, Interface, type JsonRpcProvider, type Log, parseEther, type Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Anvil,
  artifact,
  chainTestsSkipReason,
  contractAt,
  decodeTokenId,
  deploy,
  deployLand,
  encodeTokenId,
  LAND_EVENTS,
  type LandDeployment,
  startAnvil,
} from '../../src/index.js'

const skip = chainTestsSkipReason()

// Decentraland's event signatures, written out by hand: the contracts must emit exactly these.
const DCL = new Interface([
  'event Transfer(address indexed from, address indexed to, uint256 indexed assetId)',
  'event Update(uint256 indexed assetId, address indexed holder, address indexed operator, string data)',
  'event CreateEstate(address indexed _owner, uint256 indexed _estateId, string _data)',
  'event AddLand(uint256 indexed _estateId, uint256 indexed _landId)',
  'event RemoveLand(uint256 indexed _estateId, uint256 indexed _landId, address indexed _destinatary)',
  'event OrderCreated(bytes32 id, uint256 indexed assetId, address indexed seller, address nftAddress, uint256 priceInWei, uint256 expiresAt)',
  'event OrderSuccessful(bytes32 id, uint256 indexed assetId, address indexed seller, address nftAddress, uint256 totalPrice, address indexed buyer)',
  'event OrderCancelled(bytes32 id, uint256 indexed assetId, address indexed seller, address nftAddress)',
])

/** Set once deployed. */
let manaAddress = ''

interface Parsed {
  address: string
  name: string
  args: Record<string, unknown>
}

/** Every log of a transaction parsed with Decentraland's signatures (a log they do not know fails the test). */
async function events(tx: Promise<{ wait(): Promise<{ logs: readonly Log[] } | null> }>): Promise<Parsed[]> {
  const receipt = await (await tx).wait()
  // MANA's ERC-20 Transfer (value not indexed) is not one of the events the indexer follows
  return receipt!.logs
    .filter((log) => log.address.toLowerCase() !== manaAddress)
    .map((log) => {
      const parsed = DCL.parseLog({ topics: [...log.topics], data: log.data })
      if (!parsed) throw new Error(`unknown log ${log.topics[0]}`)
      const args: Record<string, unknown> = {}
      parsed.fragment.inputs.forEach((input, i) => {
        const value = parsed.args[i]
        args[input.name] =
          typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value) ? value.toLowerCase() : value
      })
      return { address: log.address.toLowerCase(), name: parsed.name, args }
    })
}

describe.skipIf(skip)('LAND, estate registry and marketplace on anvil', () => {
  let anvil: Anvil
  let provider: JsonRpcProvider
  let d: LandDeployment
  let admin: Wallet
  let alice: Wallet
  let bob: Wallet
  let land: Contract
  let estates: Contract
  let market: Contract
  let mana: Contract
  let a: string
  let b: string
  const ZERO = '0x0000000000000000000000000000000000000000'

  beforeAll(async () => {
    anvil = await startAnvil()
    provider = anvil.provider()
    admin = anvil.devWallet(0, provider)
    alice = anvil.devWallet(1, provider)
    bob = anvil.devWallet(2, provider)
    a = alice.address.toLowerCase()
    b = bob.address.toLowerCase()
    d = await deployLand(admin)
    manaAddress = d.mana
    land = contractAt('LANDRegistry', d.landRegistry, admin)
    estates = contractAt('EstateRegistry', d.estateRegistry, admin)
    market = contractAt('Marketplace', d.marketplace, admin)
    mana = contractAt('MANAToken', d.mana, admin)
  })
  afterAll(async () => {
    provider?.destroy()
    await anvil?.close()
  })

  it('exports Decentraland’s signatures, and the compiled contracts declare each', () => {
    // types and indexing, names aside (the estate registry's Update names its parameters with underscores)
    const shapes = (abi: Interface) => abi.fragments.map((f) => f.format('minimal'))
    for (const [contract, signatures] of Object.entries(LAND_EVENTS)) {
      const exported = shapes(new Interface(signatures))
      expect(shapes(DCL)).toEqual(expect.arrayContaining(exported))
      const compiled = new Interface(artifact(contract as keyof typeof LAND_EVENTS).abi)
      expect(shapes(compiled)).toEqual(expect.arrayContaining(exported))
    }
  })

  it('encodes token ids as Decentraland does (two’s complement int128 halves), on chain and off', async () => {
    for (const [x, y] of [
      [0, 0],
      [1, 2],
      [-1, -1],
      [-150, 150],
      [150, -150],
    ] as const) {
      const id = encodeTokenId(x, y)
      expect(await land.getFunction('encodeTokenId')(x, y)).toBe(id)
      expect(decodeTokenId(id)).toEqual({ x: BigInt(x), y: BigInt(y) })
    }
    // -1,-1 is all ones in both halves
    expect(encodeTokenId(-1, -1)).toBe((1n << 256n) - 1n)
    expect(encodeTokenId(1, -1)).toBe((1n << 128n) | ((1n << 128n) - 1n))
  })

  it('assigns parcels in a batch (one Transfer from zero each) and emits Update for LAND data', async () => {
    const minted = await events(land.getFunction('assignMultipleParcels')([1, 2, 3, -4], [1, 1, 1, -5], a))
    expect(minted.map((e) => [e.name, e.address, e.args.from, e.args.to, e.args.assetId])).toEqual(
      [
        [1, 1],
        [2, 1],
        [3, 1],
        [-4, -5],
      ].map(([x, y]) => ['Transfer', d.landRegistry, ZERO, a, encodeTokenId(x!, y!)]),
    )
    const data = '0,"Name, with comma",desc,'
    const updated = await events((land.connect(alice) as Contract).getFunction('updateLandData')(1, 1, data))
    expect(updated).toEqual([
      {
        address: d.landRegistry,
        name: 'Update',
        args: { assetId: encodeTokenId(1, 1), holder: a, operator: a, data },
      },
    ])
    await expect((land.connect(bob) as Contract).getFunction('updateLandData')(1, 1, 'x')).rejects.toThrow()
    const transferred = await events((land.connect(alice) as Contract).getFunction('transferLand')(3, 1, b))
    expect(transferred).toEqual([
      { address: d.landRegistry, name: 'Transfer', args: { from: a, to: b, assetId: encodeTokenId(3, 1) } },
    ])
  })

  it('creates an estate from parcels, grows it, shrinks it and transfers it', async () => {
    const created = await events(
      (estates.connect(alice) as Contract).getFunction('createEstate')(
        [1, 2],
        [1, 1],
        a,
        '0,Home,A nice place',
      ),
    )
    const estateId = 1n
    expect(created).toEqual([
      { address: d.estateRegistry, name: 'Transfer', args: { from: ZERO, to: a, assetId: estateId } },
      {
        address: d.estateRegistry,
        name: 'CreateEstate',
        args: { _owner: a, _estateId: estateId, _data: '0,Home,A nice place' },
      },
      {
        address: d.landRegistry,
        name: 'Transfer',
        args: { from: a, to: d.estateRegistry, assetId: encodeTokenId(1, 1) },
      },
      {
        address: d.estateRegistry,
        name: 'AddLand',
        args: { _estateId: estateId, _landId: encodeTokenId(1, 1) },
      },
      {
        address: d.landRegistry,
        name: 'Transfer',
        args: { from: a, to: d.estateRegistry, assetId: encodeTokenId(2, 1) },
      },
      {
        address: d.estateRegistry,
        name: 'AddLand',
        args: { _estateId: estateId, _landId: encodeTokenId(2, 1) },
      },
    ])
    // someone else's parcel cannot go into an estate
    await expect(
      (estates.connect(bob) as Contract).getFunction('createEstate')([-4], [-5], b, ''),
    ).rejects.toThrow()
    const grown = await events(
      (estates.connect(alice) as Contract).getFunction('addLand')(estateId, [-4], [-5]),
    )
    expect(grown.map((e) => e.name)).toEqual(['Transfer', 'AddLand'])
    expect(await estates.getFunction('getEstateSize')(estateId)).toBe(3n)

    const shrunk = await events(
      (estates.connect(alice) as Contract).getFunction('removeLand')(estateId, encodeTokenId(2, 1), b),
    )
    expect(shrunk).toEqual([
      {
        address: d.estateRegistry,
        name: 'RemoveLand',
        args: { _estateId: estateId, _landId: encodeTokenId(2, 1), _destinatary: b },
      },
      {
        address: d.landRegistry,
        name: 'Transfer',
        args: { from: d.estateRegistry, to: b, assetId: encodeTokenId(2, 1) },
      },
    ])
    const updated = await events(
      (estates.connect(alice) as Contract).getFunction('updateMetadata')(estateId, '0,Renamed,'),
    )
    expect(updated).toEqual([
      {
        address: d.estateRegistry,
        name: 'Update',
        args: { assetId: estateId, holder: a, operator: a, data: '0,Renamed,' },
      },
    ])
    const moved = await events(
      (estates.connect(alice) as Contract).getFunction('transferFrom')(a, b, estateId),
    )
    expect(moved).toEqual([
      { address: d.estateRegistry, name: 'Transfer', args: { from: a, to: b, assetId: estateId } },
    ])
  })

  it('creates, cancels and executes orders in MANA, refusing expired ones', async () => {
    const now = async () => BigInt((await provider.getBlock('latest'))!.timestamp)
    const tokenId = encodeTokenId(2, 1) // bob's since the estate shrank
    const asBob = market.connect(bob) as Contract
    await (await (land.connect(bob) as Contract).getFunction('setApprovalForAll')(d.marketplace, true)).wait()
    const price = parseEther('12.5')
    const created = await events(
      asBob.getFunction('createOrder')(d.landRegistry, tokenId, price, (await now()) + 3600n),
    )
    expect(created).toHaveLength(1)
    expect(created[0]).toMatchObject({
      address: d.marketplace,
      name: 'OrderCreated',
      args: { assetId: tokenId, seller: b, nftAddress: d.landRegistry, priceInWei: price },
    })
    const orderId = created[0]!.args.id
    const cancelled = await events(asBob.getFunction('cancelOrder')(d.landRegistry, tokenId))
    expect(cancelled).toEqual([
      {
        address: d.marketplace,
        name: 'OrderCancelled',
        args: { id: orderId, assetId: tokenId, seller: b, nftAddress: d.landRegistry },
      },
    ])

    const expiring = (await now()) + 5n
    await events(asBob.getFunction('createOrder')(d.landRegistry, tokenId, price, expiring))
    await provider.send('evm_increaseTime', [10])
    await provider.send('evm_mine', [])
    await (await mana.getFunction('mint')(a, parseEther('100'))).wait()
    await (
      await (mana.connect(alice) as Contract).getFunction('approve')(d.marketplace, parseEther('100'))
    ).wait()
    const asAlice = market.connect(alice) as Contract
    await expect(asAlice.getFunction('executeOrder')(d.landRegistry, tokenId, price)).rejects.toThrow()

    const open = await events(
      asBob.getFunction('createOrder')(d.landRegistry, tokenId, price, (await now()) + 3600n),
    )
    await expect(asAlice.getFunction('executeOrder')(d.landRegistry, tokenId, price - 1n)).rejects.toThrow()
    const sold = await events(asAlice.getFunction('executeOrder')(d.landRegistry, tokenId, price))
    // (the MANA payment's ERC-20 Transfer is filtered out by events())
    expect(sold.map((e) => e.name)).toEqual(['Transfer', 'OrderSuccessful'])
    expect(sold[0]).toMatchObject({ address: d.landRegistry, args: { from: b, to: a, assetId: tokenId } })
    expect(sold[1]).toMatchObject({
      address: d.marketplace,
      args: {
        id: open[0]!.args.id,
        assetId: tokenId,
        seller: b,
        nftAddress: d.landRegistry,
        totalPrice: price,
        buyer: a,
      },
    })
    expect(await mana.getFunction('balanceOf')(b)).toBe(price)
    expect(((await land.getFunction('ownerOf')(tokenId)) as string).toLowerCase()).toBe(a)
  })

  it('lists other NFTs too (the indexer must tell them apart by nftAddress)', async () => {
    const other = await deploy('LANDRegistry', admin)
    await (await other.getFunction('assignNewParcel')(0, 0, a)).wait()
    await (
      await (other.connect(alice) as Contract).getFunction('setApprovalForAll')(d.marketplace, true)
    ).wait()
    const block = await provider.getBlock('latest')
    const created = await events(
      (market.connect(alice) as Contract).getFunction('createOrder')(
        (await other.getAddress()).toLowerCase(),
        encodeTokenId(0, 0),
        1n,
        BigInt(block!.timestamp) + 3600n,
      ),
    )
    expect(created[0]!.args.nftAddress).toBe((await other.getAddress()).toLowerCase())
  })
})
