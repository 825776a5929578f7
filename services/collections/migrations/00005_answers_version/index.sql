-- One number that changes with every committed write to what the cached list answers read (collections,
-- curations, third parties): a replica reads it before answering a list and reuses an answer it built
-- under the same number (src/domain/answer-cache.ts). Bumped by triggers, so every write path, SQL run by
-- hand included, bumps it in its own transaction.
create table answers_version (
  id boolean primary key default true check (id),
  v bigint not null
);
insert into answers_version (id, v) values (true, 1);

-- Bumped once per transaction, at commit (deferred): the row lock is taken after every other lock of the
-- transaction and held only while it commits, so writers neither wait on it for long nor deadlock on it.
create function answers_version_bump() returns trigger language plpgsql as $$
begin
  if current_setting('answers.bumped', true) is distinct from 'on' then
    update answers_version set v = v + 1;
    perform set_config('answers.bumped', 'on', true);
  end if;
  return null;
end
$$;

create constraint trigger answers_version_collections after insert or update or delete on collections
  deferrable initially deferred for each row execute function answers_version_bump();
create constraint trigger answers_version_curations after insert or update or delete on curations
  deferrable initially deferred for each row execute function answers_version_bump();
create constraint trigger answers_version_third_parties after insert or update or delete on third_parties
  deferrable initially deferred for each row execute function answers_version_bump();

-- TRUNCATE fires no row trigger (and a constraint trigger cannot be one on TRUNCATE).
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
