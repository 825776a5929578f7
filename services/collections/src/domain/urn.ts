import { URN_NETWORK as NETWORK, URN_SEGMENT as SEGMENT } from '@genesis/wire/collections'

/**
 * Collection URNs. A standard collection's URN is derived from its contract address; a third-party
 * collection's URN names the third party and a suffix chosen by its managers.
 */
export type CollectionUrn =
  | { kind: 'standard'; network: string; contractAddress: string }
  | { kind: 'third_party'; network: string; thirdPartyId: string; suffix: string; urn: string }

const STANDARD = new RegExp(`^urn:decentraland:(${NETWORK}):collections-v2:(0x[0-9a-fA-F]{40})$`)
const THIRD_PARTY = new RegExp(
  `^urn:decentraland:(${NETWORK}):collections-thirdparty:(${SEGMENT}):(${SEGMENT})$`,
)

export const standardCollectionUrn = (network: string, contractAddress: string) =>
  `urn:decentraland:${network}:collections-v2:${contractAddress.toLowerCase()}`

/** The third party's own id, which is also the `thirdPartyId` its cheques sign. */
export const thirdPartyUrn = (network: string, thirdPartyName: string) =>
  `urn:decentraland:${network}:collections-thirdparty:${thirdPartyName}`

export type UrnParseResult = { ok: true; urn: CollectionUrn } | { ok: false; reason: string }

/** Parses a collection URN and checks that it belongs to this deployment's network. */
export function parseCollectionUrn(value: string, expectedNetwork: string): UrnParseResult {
  const standard = STANDARD.exec(value)
  const thirdParty = standard ? null : THIRD_PARTY.exec(value)
  const network = standard?.[1] ?? thirdParty?.[1]
  if (network === undefined) {
    return {
      ok: false,
      reason: `"${value}" is not a collection URN (urn:decentraland:<network>:collections-v2:<address> or urn:decentraland:<network>:collections-thirdparty:<third-party>:<suffix>)`,
    }
  }
  if (network !== expectedNetwork) {
    return {
      ok: false,
      reason: `The URN is for network "${network}", this service works on "${expectedNetwork}"`,
    }
  }
  if (standard) {
    return { ok: true, urn: { kind: 'standard', network, contractAddress: standard[2]!.toLowerCase() } }
  }
  const [, , name, suffix] = thirdParty!
  return {
    ok: true,
    urn: {
      kind: 'third_party',
      network,
      thirdPartyId: thirdPartyUrn(network, name!),
      suffix: suffix!,
      urn: value,
    },
  }
}
