// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {LANDRegistry} from "./LANDRegistry.sol";

/// A small estate registry: an ERC-721 of estates, each holding parcels of the LAND registry, with
/// Decentraland's estate events. A parcel added to an estate is held by this contract.
contract EstateRegistry is ERC721 {
    LANDRegistry public immutable registry;
    uint256 public lastEstateId;
    mapping(uint256 => uint256) public landIdEstate;
    mapping(uint256 => uint256) public estateSize;
    mapping(uint256 => string) public estateData;

    error NotAuthorized();
    error NotLandHolder();
    error LandNotInEstate();
    error EmptyEstate();
    error LengthMismatch();

    event CreateEstate(address indexed _owner, uint256 indexed _estateId, string _data);
    event AddLand(uint256 indexed _estateId, uint256 indexed _landId);
    event RemoveLand(uint256 indexed _estateId, uint256 indexed _landId, address indexed _destinatary);
    event Update(uint256 indexed _assetId, address indexed _holder, address indexed _operator, string _data);

    constructor(LANDRegistry landRegistry) ERC721("Estate", "EST") {
        registry = landRegistry;
    }

    /// Mints an estate to `beneficiary` made of the caller's parcels (x[i], y[i]).
    function createEstate(int256[] calldata x, int256[] calldata y, address beneficiary, string calldata data)
        external
        returns (uint256 estateId)
    {
        if (x.length != y.length) revert LengthMismatch();
        if (x.length == 0) revert EmptyEstate();
        estateId = ++lastEstateId;
        _mint(beneficiary, estateId);
        estateData[estateId] = data;
        emit CreateEstate(beneficiary, estateId, data);
        for (uint256 i = 0; i < x.length; i++) {
            _pullLand(estateId, registry.encodeTokenId(x[i], y[i]));
        }
    }

    /// Adds the caller's parcels to an estate the caller may manage.
    function addLand(uint256 estateId, int256[] calldata x, int256[] calldata y) external {
        if (x.length != y.length) revert LengthMismatch();
        _checkAuthorized(_ownerOf(estateId), msg.sender, estateId);
        for (uint256 i = 0; i < x.length; i++) {
            _pullLand(estateId, registry.encodeTokenId(x[i], y[i]));
        }
    }

    /// Takes a parcel out of an estate and gives it to `destinatary`.
    function removeLand(uint256 estateId, uint256 landId, address destinatary) external {
        _checkAuthorized(_ownerOf(estateId), msg.sender, estateId);
        if (landIdEstate[landId] != estateId) revert LandNotInEstate();
        delete landIdEstate[landId];
        estateSize[estateId]--;
        emit RemoveLand(estateId, landId, destinatary);
        registry.transferFrom(address(this), destinatary, landId);
    }

    function updateMetadata(uint256 estateId, string calldata data) external {
        address holder = _requireOwned(estateId);
        if (!_isAuthorized(holder, msg.sender, estateId)) revert NotAuthorized();
        estateData[estateId] = data;
        emit Update(estateId, holder, msg.sender, data);
    }

    function getEstateSize(uint256 estateId) external view returns (uint256) {
        return estateSize[estateId];
    }

    function _pullLand(uint256 estateId, uint256 landId) internal {
        address holder = registry.ownerOf(landId);
        if (holder != msg.sender && !registry.isApprovedForAll(holder, msg.sender)) revert NotLandHolder();
        registry.transferToEstateRegistry(holder, landId);
        landIdEstate[landId] = estateId;
        estateSize[estateId]++;
        emit AddLand(estateId, landId);
    }
}
