-- The Idempotency-Key's foreign key to its claim checked, at each create's commit, that the claim exists,
-- with a query that also locked the new claim row (a WAL record of its own): the create's one statement
-- inserts the key and its claim together, and claims are never deleted, so the check could not fail.
alter table idempotency_keys drop constraint idempotency_keys_claim_transaction_id_fkey;
