-- The committee's review: curation records, the review state of each collection, the indexes
-- its list filters need, and collection_counts keyed by that state too.

-- A request for review and its decision. `collection`: a published standard collection; `items`: the
-- items of a third-party collection that were sent to review and are not approved yet (item_ids).
create table curations (
  id uuid primary key,
  collection_id uuid not null references collections (id) on delete cascade,
  kind text not null check (kind in ('collection', 'items')),
  status text not null default 'pending' check (status in ('pending', 'approved', 'rejected')),
  item_ids uuid[] not null default '{}',
  requested_by text not null,
  -- null for a decision seen on chain (the contract's isApproved()) rather than made through the route
  reviewed_by text,
  comment text check (char_length(comment) <= 2000),
  created_at timestamptz not null,
  reviewed_at timestamptz,
  updated_at timestamptz not null,
  check ((status = 'pending') = (reviewed_at is null))
);
-- At most one pending review per collection: concurrent requests cannot both open one.
create unique index curations_one_pending on curations (collection_id) where status = 'pending';
-- The committee's queue, oldest first.
create index curations_pending_oldest on curations (created_at, id) where status = 'pending';
-- A collection's history, newest first.
create index curations_collection on curations (collection_id, created_at desc, id);

-- Kept by the same transactions that open and decide curations, so that the list filter is a column.
alter table collections add column pending_review boolean not null default false;

-- The filters that select few collections walk their own partial index; their negations walk created_at.
create index collections_approved_created_at on collections (created_at desc, id) where is_approved;
create index collections_reviewed_created_at on collections (created_at desc, id) where reviewed_at is not null;
create index collections_pending_review_created_at on collections (created_at desc, id) where pending_review;

-- collection_counts by review state too, so that an unfiltered list with the new filters still reads its
-- total from here (32 keys instead of 4).
lock table collections in share row exclusive mode;
alter table collection_counts
  add column is_approved boolean not null default false,
  add column is_reviewed boolean not null default false,
  add column pending_review boolean not null default false;
alter table collection_counts drop constraint collection_counts_pkey;
delete from collection_counts;
insert into collection_counts (is_published, is_standard, is_approved, is_reviewed, pending_review, n)
select p, s, a, r, w,
       (select count(*) from collections c
        where c.is_published = p and (c.third_party_id is null) = s and c.is_approved = a
          and (c.reviewed_at is not null) = r and c.pending_review = w)
from (values (false), (true)) as publication (p), (values (false), (true)) as kind (s),
     (values (false), (true)) as approval (a), (values (false), (true)) as review (r),
     (values (false), (true)) as waiting (w);
alter table collection_counts add primary key (is_published, is_standard, is_approved, is_reviewed, pending_review);

drop function collection_counts_add(boolean, boolean, bigint);
create function collection_counts_add(published boolean, standard boolean, approved boolean, reviewed boolean,
                                      waiting boolean, delta bigint) returns void
language sql as $$
  update collection_counts set n = n + delta
  where is_published = published and is_standard = standard and is_approved = approved
    and is_reviewed = reviewed and pending_review = waiting
$$;

create or replace function collection_counts_track() returns trigger language plpgsql as $$
declare
  change record;
begin
  if TG_OP = 'INSERT' then
    for change in
      select is_published, third_party_id is null as is_standard, is_approved, reviewed_at is not null as is_reviewed,
             pending_review, count(*) as delta
      from new_rows group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
    loop
      perform collection_counts_add(change.is_published, change.is_standard, change.is_approved,
                                    change.is_reviewed, change.pending_review, change.delta);
    end loop;
  elsif TG_OP = 'DELETE' then
    for change in
      select is_published, third_party_id is null as is_standard, is_approved, reviewed_at is not null as is_reviewed,
             pending_review, -count(*) as delta
      from old_rows group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
    loop
      perform collection_counts_add(change.is_published, change.is_standard, change.is_approved,
                                    change.is_reviewed, change.pending_review, change.delta);
    end loop;
  else
    for change in
      select is_published, is_standard, is_approved, is_reviewed, pending_review, sum(delta) as delta
      from (
        select is_published, third_party_id is null as is_standard, is_approved,
               reviewed_at is not null as is_reviewed, pending_review, 1 as delta from new_rows
        union all
        select is_published, third_party_id is null, is_approved, reviewed_at is not null, pending_review, -1
        from old_rows
      ) as d
      group by 1, 2, 3, 4, 5 having sum(delta) <> 0 order by 1, 2, 3, 4, 5
    loop
      perform collection_counts_add(change.is_published, change.is_standard, change.is_approved,
                                    change.is_reviewed, change.pending_review, change.delta);
    end loop;
  end if;
  return null;
end
$$;
