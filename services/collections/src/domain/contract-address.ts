import { getCreate2Address, keccak256, toUtf8Bytes } from 'ethers'

/** The CREATE2 salt of a standard collection: keccak256 of its id as text (lower-case, with dashes). */
export const collectionSalt = (id: string): string => keccak256(toUtf8Bytes(id.toLowerCase()))

/** Where the factory deploys (or will deploy) the collection's contract; lower-case. */
export const collectionContractAddress = (
  factoryAddress: string,
  salt: string,
  initCodeHash: string,
): string => getCreate2Address(factoryAddress, salt, initCodeHash).toLowerCase()
