// One signing module for the client and the services' test kit: @genesis/common's browser-safe `signing` entry.
export {
  createIdentity,
  type Identity,
  identityFromAuthChain,
  type MessageSigner,
} from '@genesis/wire/signing'
