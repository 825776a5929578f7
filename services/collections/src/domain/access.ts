/** Who the caller is for one collection. Every rule of the service is phrased with these roles. */
export interface CollectionRoles {
  owner: boolean
  /** A manager of the collection, or of its third party. */
  manager: boolean
  minter: boolean
  committee: boolean
}

export interface CollectionMembers {
  eth_address: string
  managers: readonly string[]
  minters: readonly string[]
  /** Managers of the collection's third party; empty for a standard collection. */
  third_party_managers: readonly string[]
}

export function rolesOf(
  caller: string,
  collection: CollectionMembers,
  committee: ReadonlySet<string>,
): CollectionRoles {
  return {
    owner: collection.eth_address === caller,
    manager: collection.managers.includes(caller) || collection.third_party_managers.includes(caller),
    minter: collection.minters.includes(caller),
    committee: committee.has(caller),
  }
}

/** Owners and managers edit a collection (its record, items, lock and terms). */
export const canEdit = (roles: CollectionRoles) => roles.owner || roles.manager

/** The full view: owner, managers, minters and the committee. */
export const seesFullView = (roles: CollectionRoles) =>
  roles.owner || roles.manager || roles.minter || roles.committee
