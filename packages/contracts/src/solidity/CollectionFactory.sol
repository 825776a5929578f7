// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Collection} from "./Collection.sol";

/// Deploys collections with CREATE2: address = keccak256(0xff ++ factory ++ salt ++ keccak256(Collection
/// init code))[12:], the `contract_address` the collections service answers before anything is deployed.
contract CollectionFactory {
    /// The curation committee: the one address that may approve the collections this factory deploys.
    address public immutable committee;

    event CollectionDeployed(bytes32 indexed salt, address indexed collection, address indexed creator);

    constructor(address committee_) {
        committee = committee_;
    }

    /// Deploys the collection of `salt` (keccak256 of the collection id) owned by the caller; reverts when
    /// that salt was already used.
    function deployCollection(bytes32 salt) external returns (address collection) {
        Collection deployed = new Collection{salt: salt}();
        deployed.initialize(msg.sender);
        collection = address(deployed);
        emit CollectionDeployed(salt, collection, msg.sender);
    }

    /// Where `deployCollection(salt)` deploys, computed on chain.
    function addressOf(bytes32 salt) external view returns (address) {
        bytes32 hash = keccak256(
            abi.encodePacked(bytes1(0xff), address(this), salt, keccak256(type(Collection).creationCode))
        );
        return address(uint160(uint256(hash)));
    }
}
