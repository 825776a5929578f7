-- The indexer names what a batch changed in one notification of its own (sent in the batch's transaction,
-- so delivered at commit, in commit order, only if committed), and sets `land.delta` for that transaction:
-- the table-name notifications (a full rebuild on every replica) are left out then. Every other writer
-- (seed, import, manual SQL) notifies by table name as before.
create or replace function land_notify_changed() returns trigger language plpgsql as $$
begin
  if coalesce(current_setting('land.delta', true), '') <> 'on' then
    perform pg_notify('land_changed', tg_table_name);
  end if;
  return null;
end
$$;
