-- The number of collections by publication and kind, kept by the collections' own statements, so that an
-- unfiltered list tells its total without counting the table (a count of 80,000 published rows took
-- 20-30 ms a page). A statement-level trigger sums each statement's changes and applies them in key
-- order: a bulk insert is one update per key, and two transactions never take the rows in opposite orders.
create table collection_counts (
  is_published boolean not null,
  is_standard boolean not null,
  n bigint not null check (n >= 0),
  primary key (is_published, is_standard)
);

insert into collection_counts (is_published, is_standard, n)
select p, s, (select count(*) from collections c where c.is_published = p and (c.third_party_id is null) = s)
from (values (false), (true)) as publication (p), (values (false), (true)) as kind (s);

create function collection_counts_add(published boolean, standard boolean, delta bigint) returns void
language sql as $$
  update collection_counts set n = n + delta where is_published = published and is_standard = standard
$$;

-- Each branch reads only the transition tables its own event declares; keys are taken in one order.
create function collection_counts_track() returns trigger language plpgsql as $$
declare
  change record;
begin
  if TG_OP = 'INSERT' then
    for change in
      select is_published, third_party_id is null as is_standard, count(*) as delta
      from new_rows group by 1, 2 order by 1, 2
    loop
      perform collection_counts_add(change.is_published, change.is_standard, change.delta);
    end loop;
  elsif TG_OP = 'DELETE' then
    for change in
      select is_published, third_party_id is null as is_standard, -count(*) as delta
      from old_rows group by 1, 2 order by 1, 2
    loop
      perform collection_counts_add(change.is_published, change.is_standard, change.delta);
    end loop;
  else
    for change in
      select is_published, is_standard, sum(delta) as delta
      from (
        select is_published, third_party_id is null as is_standard, 1 as delta from new_rows
        union all
        select is_published, third_party_id is null, -1 from old_rows
      ) as d
      group by 1, 2 having sum(delta) <> 0 order by 1, 2
    loop
      perform collection_counts_add(change.is_published, change.is_standard, change.delta);
    end loop;
  end if;
  return null;
end
$$;

create trigger collection_counts_insert after insert on collections
  referencing new table as new_rows for each statement execute function collection_counts_track();
create trigger collection_counts_update after update on collections
  referencing old table as old_rows new table as new_rows for each statement execute function collection_counts_track();
create trigger collection_counts_delete after delete on collections
  referencing old table as old_rows for each statement execute function collection_counts_track();

create function collection_counts_reset() returns trigger language plpgsql as $$
begin
  update collection_counts set n = 0;
  return null;
end
$$;

-- TRUNCATE fires no delete trigger.
create trigger collection_counts_truncate after truncate on collections
  for each statement execute function collection_counts_reset();
