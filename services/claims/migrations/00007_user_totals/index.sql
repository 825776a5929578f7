-- The numbers of rewards and claims of each user, so that a page of a user's list tells its total without
-- counting the user's whole history. Kept by triggers: on rewards a statement trigger (a grant of many
-- rewards is one update per user, taken in user order so that two grants never lock in opposite orders),
-- on claims a row trigger (a create inserts one claim).
--
-- The rows there before this table are counted by the backfill (00008). Until it has counted a user, the
-- user's row says `counted = false` and the lists count that user's rows themselves.
-- Each create updates its user's row: room left on every page (fillfactor) keeps those updates heap-only
-- (HOT), touching no index, and lets a page's dead versions be pruned without a vacuum.
create table user_totals (
  "user" text primary key,
  rewards bigint not null check (rewards >= 0),
  claims bigint not null check (claims >= 0),
  counted boolean not null
) with (fillfactor = 70);

-- How far (in user order) the backfill has counted: a user at or before it with no row yet had nothing
-- then, so the row the triggers make for them counts from the start; once complete, every user.
create table user_totals_backfill (
  id boolean primary key default true check (id),
  done_until text not null,
  complete boolean not null
);
insert into user_totals_backfill (done_until, complete) values ('', false);

create function user_totals_counted(who text) returns boolean
language sql stable as $$
  select complete or who <= done_until from user_totals_backfill
$$;

create function user_totals_add_rewards() returns trigger language plpgsql as $$
begin
  insert into user_totals ("user", rewards, claims, counted)
  select g."user", g.n, 0, user_totals_counted(g."user")
  from (select "user", count(*) as n from new_rows group by "user") as g
  order by g."user"
  on conflict ("user") do update set rewards = user_totals.rewards + excluded.rewards;
  return null;
end
$$;

create function user_totals_remove_rewards() returns trigger language plpgsql as $$
begin
  -- a row not counted yet gets its totals from the backfill
  update user_totals t set rewards = t.rewards - g.n
  from (select "user", count(*) as n from old_rows group by "user" order by "user") as g
  where t."user" = g."user" and t.counted;
  return null;
end
$$;

-- A claim's user has rewards, so their row is there already: one update, the insert only if it is not.
create function user_totals_add_claim() returns trigger language plpgsql as $$
begin
  update user_totals set claims = claims + 1 where "user" = new."user";
  if not found then
    insert into user_totals ("user", rewards, claims, counted)
    values (new."user", 0, 1, user_totals_counted(new."user"))
    on conflict ("user") do update set claims = user_totals.claims + 1;
  end if;
  return null;
end
$$;

create trigger user_totals_rewards_insert after insert on rewards
  referencing new table as new_rows for each statement execute function user_totals_add_rewards();
create trigger user_totals_rewards_delete after delete on rewards
  referencing old table as old_rows for each statement execute function user_totals_remove_rewards();
-- claims are never deleted
create trigger user_totals_claims_insert after insert on claim_transactions
  for each row execute function user_totals_add_claim();

-- Counts the users' rewards and claims made before the triggers, 1,000 users a transaction, in user order
-- (the users of rewards: a claim's user has the claim's rewards). Each batch makes and locks the users'
-- rows first, then counts: a write that commits before the lock is in the count (the count is the total,
-- not added to it), one that comes after waits for the batch and adds its own. Then the rows of users whose
-- first rewards raced a batch are counted one by one.
create procedure user_totals_count() language plpgsql as $$
declare
  last text;
  upto text;
  straggler text;
begin
  select done_until into last from user_totals_backfill;
  loop
    with recursive users ("user") as (
      (select "user" from rewards where "user" > last order by "user" limit 1)
      union all
      select (select r."user" from rewards r where r."user" > users."user" order by r."user" limit 1)
      from users where users."user" is not null
    )
    select max("user") into upto from (select "user" from users where "user" is not null limit 1000) as batch;
    exit when upto is null;
    insert into user_totals ("user", rewards, claims, counted)
    select distinct "user", 0, 0, false from rewards where "user" > last and "user" <= upto
    order by 1
    on conflict ("user") do nothing;
    perform 1 from user_totals where "user" > last and "user" <= upto order by "user" for update;
    update user_totals t
    set rewards = (select count(*) from rewards r where r."user" = t."user"),
        claims = (select count(*) from claim_transactions c where c."user" = t."user"),
        counted = true
    where t."user" > last and t."user" <= upto;
    update user_totals_backfill set done_until = upto;
    commit;
    last := upto;
  end loop;
  update user_totals_backfill set complete = true;
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
