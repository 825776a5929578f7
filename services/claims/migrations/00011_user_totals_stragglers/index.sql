-- Counts the users the backfill (00008) could miss: a grant to a new user whose trigger ran before the
-- backfill's `complete` was committed made the user's row with `counted = false`, and when that grant
-- committed after the backfill had looked for such rows, the row stayed uncounted for good. Its lists were
-- right (an uncounted user's lists count the user's rows themselves) but cost what user_totals saves.
--
-- A transaction that wrote rewards or claims holds its ROW EXCLUSIVE lock on that table until it ends, so
-- every write that could have made such a row ended once no transaction begun before this call holds one.
-- That is watched in pg_locks, taking no lock (writes go on meanwhile), for two minutes at most: a
-- transaction left open longer (a session idle in one) only leaves its users' lists counting their rows.
-- Then each uncounted user is counted under its row lock, as the backfill counts. Called by 00012, outside
-- a transaction (it commits as it goes).
create procedure user_totals_count_stragglers() language plpgsql as $$
declare
  marker timestamptz := clock_timestamp();
  straggler text;
begin
  while clock_timestamp() < marker + interval '2 minutes' and exists (
    select 1
    from pg_locks l join pg_stat_activity a on a.pid = l.pid
    where l.database = (select oid from pg_database where datname = current_database())
      and l.relation in ('rewards'::regclass, 'claim_transactions'::regclass)
      and l.mode = 'RowExclusiveLock' and l.granted
      and a.pid <> pg_backend_pid() and a.xact_start < marker
  ) loop
    perform pg_sleep(0.05);
  end loop;
  commit;
  for straggler in select "user" from user_totals where not counted order by "user" loop
    perform 1 from user_totals where "user" = straggler for update;
    update user_totals
    set rewards = (select count(*) from rewards where "user" = straggler),
        claims = (select count(*) from claim_transactions where "user" = straggler),
        counted = true
    where "user" = straggler;
    commit;
  end loop;
end
$$;
