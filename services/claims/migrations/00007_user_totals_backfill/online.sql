-- Counts the rewards and claims made before migration 00006, in committed batches (writes go on meanwhile).
call user_totals_count();
