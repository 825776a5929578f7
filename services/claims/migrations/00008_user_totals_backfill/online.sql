-- Counts the rewards and claims made before migration 00007, in committed batches (writes go on meanwhile).
call user_totals_count();
