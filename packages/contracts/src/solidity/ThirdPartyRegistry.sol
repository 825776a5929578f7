// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// The part of a third-party registry the collections service relies on: a third party's manager signs an
/// EIP-712 `ConsumeSlots(string thirdPartyId,uint256 qty,bytes32 salt)` cheque; the committee consumes it on
/// chain, and `receipts(thirdPartyId, digest)` then holds its quantity. The domain carries the chain id as a
/// 32-byte `salt` and has no `chainId` field: {name, version "1", verifyingContract: this, salt}.
contract ThirdPartyRegistry {
    bytes32 public constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,address verifyingContract,bytes32 salt)");
    bytes32 public constant CONSUME_SLOTS_TYPEHASH =
        keccak256("ConsumeSlots(string thirdPartyId,uint256 qty,bytes32 salt)");

    string public name;
    address public immutable committee;
    mapping(string => mapping(address => bool)) public isManager;
    /// Third party id → cheque digest → quantity consumed (0 while unconsumed).
    mapping(string => mapping(bytes32 => uint256)) public receipts;

    error NotCommittee();
    error NotManager(address signer);
    error ChequeAlreadyConsumed(bytes32 digest);
    error NothingToConsume();

    event ManagerSet(string thirdPartyId, address indexed manager, bool allowed);
    event SlotsConsumed(string thirdPartyId, bytes32 indexed digest, address indexed signer, uint256 qty);

    constructor(string memory name_, address committee_) {
        name = name_;
        committee = committee_;
    }

    modifier onlyCommittee() {
        if (msg.sender != committee) revert NotCommittee();
        _;
    }

    function setManager(string calldata thirdPartyId, address manager, bool allowed) external onlyCommittee {
        isManager[thirdPartyId][manager] = allowed;
        emit ManagerSet(thirdPartyId, manager, allowed);
    }

    /// Whether `manager` manages the third party: the view Decentraland's registry has under this name and
    /// signature, which the collections service asks.
    function isThirdPartyManager(string calldata thirdPartyId, address manager) external view returns (bool) {
        return isManager[thirdPartyId][manager];
    }

    /// Consumes a manager's cheque once: the signer must manage the third party.
    function consumeSlots(string calldata thirdPartyId, uint256 qty, bytes32 salt, bytes calldata signature)
        external
        onlyCommittee
    {
        if (qty == 0) revert NothingToConsume();
        bytes32 digest = chequeDigest(thirdPartyId, qty, salt);
        address signer = ECDSA.recover(digest, signature);
        if (!isManager[thirdPartyId][signer]) revert NotManager(signer);
        if (receipts[thirdPartyId][digest] != 0) revert ChequeAlreadyConsumed(digest);
        receipts[thirdPartyId][digest] = qty;
        emit SlotsConsumed(thirdPartyId, digest, signer, qty);
    }

    function domainSeparator() public view returns (bytes32) {
        return keccak256(
            abi.encode(
                DOMAIN_TYPEHASH, keccak256(bytes(name)), keccak256("1"), address(this), bytes32(block.chainid)
            )
        );
    }

    function chequeDigest(string calldata thirdPartyId, uint256 qty, bytes32 salt) public view returns (bytes32) {
        bytes32 structHash = keccak256(abi.encode(CONSUME_SLOTS_TYPEHASH, keccak256(bytes(thirdPartyId)), qty, salt));
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(), structHash));
    }
}
