-- A create points its rewards at the claim. With an index on that pointer, every such update wrote a new
-- entry into each of the rewards' indexes; without it, and with room left on each page, the update is a
-- heap-only tuple update (HOT) that touches no index. No query looks rewards up by their claim (claims are
-- never deleted, so the foreign key never searches rewards either).
drop index rewards_claim_transaction;
alter table rewards set (fillfactor = 85);
