// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// A small LAND registry: an ERC-721 whose token id is encodeTokenId(x, y) (x as int128 in the high 128 bits,
/// y as int128 in the low 128 bits, two's complement) and that emits Decentraland's LAND events. The owner
/// assigns parcels in batches; holders (or their operators) update a parcel's data string.
contract LANDRegistry is ERC721 {
    address public owner;
    /// The estate registry may move a parcel into itself when its holder adds it to an estate.
    address public estateRegistry;
    mapping(uint256 => string) public landData;

    error NotOwner();
    error NotEstateRegistry();
    error NotAuthorized();
    error LengthMismatch();
    error CoordinateOutOfRange();

    event Update(uint256 indexed assetId, address indexed holder, address indexed operator, string data);
    event EstateRegistrySet(address indexed registry);

    constructor() ERC721("Decentraland LAND", "LAND") {
        owner = msg.sender;
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner();
        _;
    }

    function setEstateRegistry(address registry) external onlyOwner {
        estateRegistry = registry;
        emit EstateRegistrySet(registry);
    }

    function encodeTokenId(int256 x, int256 y) public pure returns (uint256) {
        if (x < type(int128).min || x > type(int128).max || y < type(int128).min || y > type(int128).max) {
            revert CoordinateOutOfRange();
        }
        return (uint256(uint128(int128(x))) << 128) | uint256(uint128(int128(y)));
    }

    function decodeTokenId(uint256 value) public pure returns (int256 x, int256 y) {
        x = int256(int128(uint128(value >> 128)));
        y = int256(int128(uint128(value)));
    }

    function exists(int256 x, int256 y) external view returns (bool) {
        return _ownerOf(encodeTokenId(x, y)) != address(0);
    }

    function ownerOfLand(int256 x, int256 y) external view returns (address) {
        return _ownerOf(encodeTokenId(x, y));
    }

    function assignNewParcel(int256 x, int256 y, address beneficiary) external onlyOwner {
        _mint(beneficiary, encodeTokenId(x, y));
    }

    /// Batch assignment: one transaction mints many parcels to one beneficiary.
    function assignMultipleParcels(int256[] calldata x, int256[] calldata y, address beneficiary) external onlyOwner {
        if (x.length != y.length) revert LengthMismatch();
        for (uint256 i = 0; i < x.length; i++) {
            _mint(beneficiary, encodeTokenId(x[i], y[i]));
        }
    }

    function updateLandData(int256 x, int256 y, string calldata data) external {
        _updateLandData(encodeTokenId(x, y), data);
    }

    function updateManyLandData(int256[] calldata x, int256[] calldata y, string calldata data) external {
        if (x.length != y.length) revert LengthMismatch();
        for (uint256 i = 0; i < x.length; i++) {
            _updateLandData(encodeTokenId(x[i], y[i]), data);
        }
    }

    /// For bootstrapping a city: the registry's owner writes many parcels' data strings at once.
    function setLandDataBatch(uint256[] calldata assetIds, string[] calldata data) external onlyOwner {
        if (assetIds.length != data.length) revert LengthMismatch();
        for (uint256 i = 0; i < assetIds.length; i++) {
            address holder = _requireOwned(assetIds[i]);
            landData[assetIds[i]] = data[i];
            emit Update(assetIds[i], holder, msg.sender, data[i]);
        }
    }

    function transferLand(int256 x, int256 y, address to) external {
        transferFrom(msg.sender, to, encodeTokenId(x, y));
    }

    /// Called by the estate registry once it has checked that `from` (or its operator) asked for it.
    function transferToEstateRegistry(address from, uint256 assetId) external {
        if (msg.sender != estateRegistry || estateRegistry == address(0)) revert NotEstateRegistry();
        _transfer(from, estateRegistry, assetId);
    }

    function _updateLandData(uint256 assetId, string calldata data) internal {
        address holder = _requireOwned(assetId);
        if (!_isAuthorized(holder, msg.sender, assetId)) revert NotAuthorized();
        landData[assetId] = data;
        emit Update(assetId, holder, msg.sender, data);
    }
}
