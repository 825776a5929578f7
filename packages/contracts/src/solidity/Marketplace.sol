// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";

/// A small marketplace with Decentraland's order events: a holder lists an ERC-721 asset for a price in MANA
/// until a time; a buyer pays the seller in MANA and receives the asset. One order per asset: a new order
/// replaces the previous one.
contract Marketplace {
    struct Order {
        bytes32 id;
        address seller;
        uint256 price;
        uint256 expiresAt;
    }

    IERC20 public immutable acceptedToken;
    mapping(address => mapping(uint256 => Order)) public orderByAssetId;

    error NotAuthorized();
    error MarketplaceNotApproved();
    error InvalidPrice();
    error InvalidExpiry();
    error NoOrder();
    error OrderExpired();
    error PriceMismatch();
    error SellerNotOwner();
    error BuyerIsSeller();

    event OrderCreated(
        bytes32 id, uint256 indexed assetId, address indexed seller, address nftAddress, uint256 priceInWei, uint256 expiresAt
    );
    event OrderSuccessful(
        bytes32 id, uint256 indexed assetId, address indexed seller, address nftAddress, uint256 totalPrice, address indexed buyer
    );
    event OrderCancelled(bytes32 id, uint256 indexed assetId, address indexed seller, address nftAddress);

    constructor(IERC20 mana) {
        acceptedToken = mana;
    }

    /// `expiresAt` in seconds since epoch.
    function createOrder(address nftAddress, uint256 assetId, uint256 priceInWei, uint256 expiresAt) external {
        IERC721 nft = IERC721(nftAddress);
        address assetOwner = nft.ownerOf(assetId);
        if (msg.sender != assetOwner && !nft.isApprovedForAll(assetOwner, msg.sender)) revert NotAuthorized();
        if (nft.getApproved(assetId) != address(this) && !nft.isApprovedForAll(assetOwner, address(this))) {
            revert MarketplaceNotApproved();
        }
        if (priceInWei == 0) revert InvalidPrice();
        if (expiresAt <= block.timestamp) revert InvalidExpiry();
        bytes32 id = keccak256(abi.encodePacked(block.timestamp, assetOwner, assetId, nftAddress, priceInWei));
        orderByAssetId[nftAddress][assetId] = Order(id, assetOwner, priceInWei, expiresAt);
        emit OrderCreated(id, assetId, assetOwner, nftAddress, priceInWei, expiresAt);
    }

    function cancelOrder(address nftAddress, uint256 assetId) external {
        Order memory order = orderByAssetId[nftAddress][assetId];
        if (order.id == 0) revert NoOrder();
        if (msg.sender != order.seller && !IERC721(nftAddress).isApprovedForAll(order.seller, msg.sender)) {
            revert NotAuthorized();
        }
        delete orderByAssetId[nftAddress][assetId];
        emit OrderCancelled(order.id, assetId, order.seller, nftAddress);
    }

    function executeOrder(address nftAddress, uint256 assetId, uint256 price) external {
        Order memory order = orderByAssetId[nftAddress][assetId];
        if (order.id == 0) revert NoOrder();
        if (block.timestamp >= order.expiresAt) revert OrderExpired();
        if (price != order.price) revert PriceMismatch();
        if (msg.sender == order.seller) revert BuyerIsSeller();
        IERC721 nft = IERC721(nftAddress);
        if (nft.ownerOf(assetId) != order.seller) revert SellerNotOwner();
        delete orderByAssetId[nftAddress][assetId];
        if (!acceptedToken.transferFrom(msg.sender, order.seller, price)) revert PriceMismatch();
        nft.transferFrom(order.seller, msg.sender, assetId);
        emit OrderSuccessful(order.id, assetId, order.seller, nftAddress, price, msg.sender);
    }
}
