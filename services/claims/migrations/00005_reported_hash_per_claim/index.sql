-- A reported transaction hash is the reporter's claim's alone. It was unique across the claims of a chain,
-- so one user reporting another's pending hash on their own claim blocked the real owner's report. A
-- report decides nothing by itself (the reconciler reads from the chain which voucher a transaction
-- redeemed, and an operator settles unwatched chains), so nothing needs it unique; and one transaction
-- may redeem several vouchers (a batch sent through another contract).
drop index claim_transactions_transaction_hash;
