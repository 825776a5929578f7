// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// What a collection asks its factory: who the curation committee is.
interface ICommitteeSource {
    function committee() external view returns (address);
}

/// A standard collection: an ERC-721 whose token ids are item ids, minted by the addresses its owner allows.
/// It takes no constructor arguments, so that every collection has the same init code and the factory's
/// CREATE2 address depends on the salt alone (the collections service computes it off chain).
contract Collection is ERC721 {
    address public immutable factory;
    address public owner;
    mapping(address => bool) public isMinter;
    /// Set by the curation committee: the collections service reads it as the source of truth.
    bool public isApproved;

    error AlreadyInitialized();
    error NotFactory();
    error NotOwner();
    error NotMinter();
    error NotCommittee();

    event MinterSet(address indexed minter, bool allowed);
    event ApprovalSet(bool approved);

    constructor() ERC721("Genesis Collection", "GENESIS") {
        factory = msg.sender;
    }

    /// Called by the factory in the deploying transaction: the creator becomes the owner.
    function initialize(address creator) external {
        if (msg.sender != factory) revert NotFactory();
        if (owner != address(0)) revert AlreadyInitialized();
        owner = creator;
    }

    function setMinter(address minter, bool allowed) external {
        if (msg.sender != owner) revert NotOwner();
        isMinter[minter] = allowed;
        emit MinterSet(minter, allowed);
    }

    /// The committee (the factory's) approves or withdraws the approval of the collection.
    function setApproved(bool approved) external {
        if (msg.sender != ICommitteeSource(factory).committee()) revert NotCommittee();
        isApproved = approved;
        emit ApprovalSet(approved);
    }

    function mint(address to, uint256 itemId) external {
        if (!isMinter[msg.sender]) revert NotMinter();
        _safeMint(to, itemId);
    }
}
