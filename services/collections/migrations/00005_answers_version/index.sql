-- One number that changes with every committed write to what the kept list answers read (collections,
-- curations, third parties): a replica reads it before answering a list and reuses an answer it built
-- under the same number (src/routes/cached-answer.ts). Bumped by triggers, so every write path, SQL run by
-- hand included, bumps it in its own transaction.
create table answers_version (
  id boolean primary key default true check (id),
  v bigint not null
);
insert into answers_version (id, v) values (true, 1);

-- The bump happens at commit, so that the row lock on answers_version is the last lock a writer takes and
-- is held only while it commits: taken at the first write, it would queue every other writer behind the
-- rest of the transaction, and deadlock one that holds a row this one waits for. A deferred trigger has
-- to be a row trigger, and its pending events on a table forbid CREATE INDEX on it until commit (the seeds
-- rebuild indexes after a bulk insert), so the written tables only note the transaction here, once, and
-- the deferred trigger sits on this table.
create table answers_version_bumps (
  xact xid8 primary key default pg_current_xact_id()
);

create function answers_version_note() returns trigger language plpgsql as $$
begin
  if current_setting('answers.noted', true) is distinct from 'on' then
    perform set_config('answers.noted', 'on', true);
    insert into answers_version_bumps default values on conflict do nothing;
  end if;
  return null;
end
$$;

create function answers_version_bump() returns trigger language plpgsql as $$
begin
  update answers_version set v = v + 1;
  delete from answers_version_bumps where xact = new.xact;
  return null;
end
$$;

create constraint trigger answers_version_bump after insert on answers_version_bumps
  deferrable initially deferred for each row execute function answers_version_bump();

create trigger answers_version_collections after insert or update or delete on collections
  for each statement execute function answers_version_note();
create trigger answers_version_curations after insert or update or delete on curations
  for each statement execute function answers_version_note();
create trigger answers_version_third_parties after insert or update or delete on third_parties
  for each statement execute function answers_version_note();

-- TRUNCATE takes the whole table anyway: bumped at once.
create function answers_version_bump_now() returns trigger language plpgsql as $$
begin
  update answers_version set v = v + 1;
  return null;
end
$$;
create trigger answers_version_collections_truncate after truncate on collections
  for each statement execute function answers_version_bump_now();
create trigger answers_version_curations_truncate after truncate on curations
  for each statement execute function answers_version_bump_now();
create trigger answers_version_third_parties_truncate after truncate on third_parties
  for each statement execute function answers_version_bump_now();
