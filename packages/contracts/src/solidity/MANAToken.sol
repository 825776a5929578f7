// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// MANA for the local chain: an ERC-20 its deployer mints.
contract MANAToken is ERC20 {
    address public immutable minter;

    error NotMinter();

    constructor() ERC20("Decentraland MANA", "MANA") {
        minter = msg.sender;
    }

    function mint(address to, uint256 amount) external {
        if (msg.sender != minter) revert NotMinter();
        _mint(to, amount);
    }
}
