-- Counts the users the backfill missed (00011), each in a transaction of its own.
call user_totals_count_stragglers();
