// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// The smallest contract wallet a signed-fetch chain can start with: EIP-1271 (EIP-1654's
/// `isValidSignature(bytes32,bytes)`), a signature being valid when it recovers to the wallet's owner EOA.
/// The hash is taken as given: Decentraland's verifier asks with keccak256 of the message, then with its
/// personal-sign (EIP-191) hash, so an owner signing either way is accepted.
contract ContractWallet {
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;
    // What EIP-1271 suggests for a refusal: returning, not reverting, so that callers can tell "no" from a fault.
    bytes4 internal constant INVALID = 0xffffffff;

    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address signer, ECDSA.RecoverError failure,) = ECDSA.tryRecoverCalldata(hash, signature);
        return failure == ECDSA.RecoverError.NoError && signer == owner ? MAGIC_VALUE : INVALID;
    }
}
