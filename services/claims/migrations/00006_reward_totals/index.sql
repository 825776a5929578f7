-- The number of rewards of each user, so that a page of a user's rewards tells its total without counting
-- the user's whole history. Kept by statement triggers on rewards (a grant of many rewards is one update
-- per user, taken in user order so that two grants never lock in opposite orders).
--
-- The rewards granted before this table are counted by the backfill (00007). Until it has counted a user,
-- the user's row says `counted = false` and the lists count that user's rewards themselves.
create table reward_totals (
  "user" text primary key,
  n bigint not null check (n >= 0),
  counted boolean not null
);

-- How far (in user order) the backfill has counted: a user at or before it with no row yet had no rewards
-- then, so the row the triggers make for them counts from the start; once complete, every user.
create table reward_totals_backfill (
  id boolean primary key default true check (id),
  done_until text not null,
  complete boolean not null
);
insert into reward_totals_backfill (done_until, complete) values ('', false);

create function reward_totals_add() returns trigger language plpgsql as $$
begin
  insert into reward_totals ("user", n, counted)
  select g."user", g.n, (select complete or g."user" <= done_until from reward_totals_backfill)
  from (select "user", count(*) as n from new_rows group by "user") as g
  order by g."user"
  on conflict ("user") do update set n = reward_totals.n + excluded.n;
  return null;
end
$$;

create function reward_totals_remove() returns trigger language plpgsql as $$
begin
  -- a row not counted yet gets its total from the backfill
  update reward_totals t set n = t.n - g.n
  from (select "user", count(*) as n from old_rows group by "user" order by "user") as g
  where t."user" = g."user" and t.counted;
  return null;
end
$$;

create trigger reward_totals_insert after insert on rewards
  referencing new table as new_rows for each statement execute function reward_totals_add();
create trigger reward_totals_delete after delete on rewards
  referencing old table as old_rows for each statement execute function reward_totals_remove();

-- Counts the users' rewards granted before the triggers, 1,000 users a transaction, in user order. Each
-- batch makes and locks the users' rows first, then counts: a grant that commits before the lock is in
-- the count (the count is the total, not added to it), one that comes after waits for the batch and adds
-- its own. Then the rows of users whose first rewards raced a batch are counted one by one.
create procedure reward_totals_count() language plpgsql as $$
declare
  last text;
  upto text;
  straggler text;
begin
  select done_until into last from reward_totals_backfill;
  loop
    with recursive users ("user") as (
      (select "user" from rewards where "user" > last order by "user" limit 1)
      union all
      select (select r."user" from rewards r where r."user" > users."user" order by r."user" limit 1)
      from users where users."user" is not null
    )
    select max("user") into upto from (select "user" from users where "user" is not null limit 1000) as batch;
    exit when upto is null;
    insert into reward_totals ("user", n, counted)
    select distinct "user", 0, false from rewards where "user" > last and "user" <= upto
    order by 1
    on conflict ("user") do nothing;
    perform 1 from reward_totals where "user" > last and "user" <= upto order by "user" for update;
    update reward_totals t set n = c.n, counted = true
    from (select "user", count(*) as n from rewards where "user" > last and "user" <= upto group by "user") as c
    where t."user" = c."user";
    update reward_totals_backfill set done_until = upto;
    commit;
    last := upto;
  end loop;
  update reward_totals_backfill set complete = true;
  commit;
  for straggler in select "user" from reward_totals where not counted order by "user" loop
    perform 1 from reward_totals where "user" = straggler for update;
    update reward_totals set n = (select count(*) from rewards where "user" = straggler), counted = true
    where "user" = straggler;
    commit;
  end loop;
end
$$;
