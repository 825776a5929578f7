// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

interface IMintableCollection {
    function mint(address to, uint256 itemId) external;
}

/// Redeems the claims service's EIP-712 vouchers: domain {name "RewardsDispenser", version "1", chainId,
/// verifyingContract: this}, type Claim(bytes32 claimId,address beneficiary,uint256[] itemIds,uint256 expiresAt).
/// Each voucher mints its item ids, once, to its beneficiary, who must be the sender, until it expires.
contract RewardsDispenser is EIP712 {
    struct Voucher {
        bytes32 claimId;
        address beneficiary;
        uint256[] itemIds;
        uint256 expiresAt;
    }

    bytes32 public constant CLAIM_TYPEHASH =
        keccak256("Claim(bytes32 claimId,address beneficiary,uint256[] itemIds,uint256 expiresAt)");

    /// The claims service's voucher signer.
    address public immutable signer;
    IMintableCollection public immutable collection;
    mapping(bytes32 => bool) public claimed;

    error VoucherExpired(uint256 expiresAt);
    error ClaimAlreadyUsed(bytes32 claimId);
    error NotBeneficiary(address beneficiary, address sender);
    error InvalidSigner(address recovered);

    event Claimed(bytes32 indexed claimId, address indexed beneficiary, uint256[] itemIds);

    constructor(address signer_, IMintableCollection collection_) EIP712("RewardsDispenser", "1") {
        signer = signer_;
        collection = collection_;
    }

    function claim(Voucher calldata voucher, bytes calldata signature) external {
        if (block.timestamp > voucher.expiresAt) revert VoucherExpired(voucher.expiresAt);
        if (claimed[voucher.claimId]) revert ClaimAlreadyUsed(voucher.claimId);
        if (voucher.beneficiary != msg.sender) revert NotBeneficiary(voucher.beneficiary, msg.sender);
        address recovered = ECDSA.recover(_hashTypedDataV4(hashVoucher(voucher)), signature);
        if (recovered != signer) revert InvalidSigner(recovered);

        claimed[voucher.claimId] = true;
        for (uint256 i = 0; i < voucher.itemIds.length; i++) {
            collection.mint(voucher.beneficiary, voucher.itemIds[i]);
        }
        emit Claimed(voucher.claimId, voucher.beneficiary, voucher.itemIds);
    }

    function hashVoucher(Voucher calldata voucher) public pure returns (bytes32) {
        return keccak256(
            abi.encode(
                CLAIM_TYPEHASH,
                voucher.claimId,
                voucher.beneficiary,
                keccak256(abi.encodePacked(voucher.itemIds)),
                voucher.expiresAt
            )
        );
    }

    /// The EIP-712 domain separator (chain id and this address included).
    function domainSeparator() external view returns (bytes32) {
        return _domainSeparatorV4();
    }
}
