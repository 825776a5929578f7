-- Keys on what a row means rather than on how a client spelled it:
--   collections.name_key      the name's normal form (src/domain/name-key.ts): standard collections'
--                             names are unique on it;
--   slot_usage_cheques.digest the cheque's EIP-712 digest (third party, qty, salt, registry domain):
--                             a cheque pays once, however its signature is written or re-signed.
-- Both are computed by the service (a confusable skeleton and keccak256 are not PostgreSQL functions).
-- Adding a nullable column without a default changes only the catalogue: no rewrite, no long lock. The
-- service fills the columns of existing rows in short batches and then builds their unique indexes
-- concurrently (src/db/keys.ts), before it serves.
alter table collections add column name_key text;
alter table slot_usage_cheques add column digest text;

-- With RPC_URL the third-party registry on chain decides who manages a third party, and this table keeps
-- the managers the chain last confirmed: a third party may have none confirmed here.
alter table third_parties drop constraint if exists third_parties_managers_check;
