/*
 * What a service needs to speak to the land contracts, and nothing of this package's tooling (no imports, so
 * a service's runtime takes it without anvil, solc or the artefacts): the LAND token id codec and the
 * events the land contracts emit, with Decentraland's own signatures (the real LANDRegistry,
 * EstateRegistry and Marketplace emit exactly these, so what follows ours follows theirs).
 */

const TRANSFER = 'event Transfer(address indexed from, address indexed to, uint256 indexed assetId)'

/** The events of each land contract, as human-readable ABI fragments. */
export const LAND_EVENTS = {
  LANDRegistry: [
    TRANSFER,
    'event Update(uint256 indexed assetId, address indexed holder, address indexed operator, string data)',
  ],
  EstateRegistry: [
    TRANSFER,
    'event CreateEstate(address indexed _owner, uint256 indexed _estateId, string _data)',
    'event AddLand(uint256 indexed _estateId, uint256 indexed _landId)',
    'event RemoveLand(uint256 indexed _estateId, uint256 indexed _landId, address indexed _destinatary)',
    'event Update(uint256 indexed _assetId, address indexed _holder, address indexed _operator, string _data)',
  ],
  Marketplace: [
    'event OrderCreated(bytes32 id, uint256 indexed assetId, address indexed seller, address nftAddress, uint256 priceInWei, uint256 expiresAt)',
    'event OrderSuccessful(bytes32 id, uint256 indexed assetId, address indexed seller, address nftAddress, uint256 totalPrice, address indexed buyer)',
    'event OrderCancelled(bytes32 id, uint256 indexed assetId, address indexed seller, address nftAddress)',
  ],
} as const

export type LandContract = keyof typeof LAND_EVENTS

/** The name of an event of `Contract` (`Transfer`, `AddLand`...), read from its signature. */
export type LandEventName<Contract extends LandContract> = NameOf<(typeof LAND_EVENTS)[Contract][number]>
type NameOf<Signature> = Signature extends `event ${infer Name}(${string}` ? Name : never

/** `Contract:Event`, the way an event of the land contracts is named (`EstateRegistry:AddLand`). */
export type LandEventKey = { [C in LandContract]: `${C}:${LandEventName<C>}` }[LandContract]

/** The signature of the event `Contract:Event` names, or undefined for an event the contracts do not emit. */
export function landEventSignature(key: string): string | undefined {
  const [contract, name] = key.split(':')
  const signatures: readonly string[] | undefined = LAND_EVENTS[contract as LandContract]
  return signatures?.find((s) => s.startsWith(`event ${name}(`))
}

const INT128_MIN = -(1n << 127n)
const INT128_MAX = (1n << 127n) - 1n
const MASK128 = (1n << 128n) - 1n

/** Decentraland's LAND token id: x as int128 in the high 128 bits, y as int128 in the low 128 bits. */
export function encodeTokenId(x: number | bigint, y: number | bigint): bigint {
  const bx = BigInt(x)
  const by = BigInt(y)
  if (bx < INT128_MIN || bx > INT128_MAX || by < INT128_MIN || by > INT128_MAX) {
    throw new RangeError(`coordinate outside int128: ${x},${y}`)
  }
  return ((bx & MASK128) << 128n) | (by & MASK128)
}

/** The inverse of encodeTokenId (of the low 256 bits of `id`). */
export function decodeTokenId(id: bigint): { x: bigint; y: bigint } {
  const signed = (v: bigint) => (v > INT128_MAX ? v - (1n << 128n) : v)
  return { x: signed((id >> 128n) & MASK128), y: signed(id & MASK128) }
}
