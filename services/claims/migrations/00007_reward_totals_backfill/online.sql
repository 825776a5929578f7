-- Counts the rewards granted before migration 00006, in committed batches (grants go on meanwhile).
call reward_totals_count();
