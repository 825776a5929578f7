-- The number of collections whose name contains a term, by publication and kind, kept for the terms that
-- searches found common, so that such a search tells its exact total without counting its matches (one
-- index entry each in collection_name_suffixes: the only part of a search that grows with them).
--
-- A term is kept from the first search that counts at least KEEP_FROM matches (src/db/term-counts.ts):
-- collection_term_counts_keep counts it once, and from then on the writes to collections keep it. The
-- tables start empty: this migration only creates them, their functions and triggers (no backfill, no scan).
--
-- What is counted is exactly what a search counts in collection_name_suffixes: a collection whose
-- lower-cased name has the term at one of its first char_length(name) positions (a suffix starting with
-- the term, repeats left out), once.
create table collection_terms (
  term text collate "C" primary key
);
create table collection_term_counts (
  term text collate "C" not null,
  is_published boolean not null,
  is_standard boolean not null,
  n bigint not null check (n >= 0),
  primary key (term, is_published, is_standard)
);

-- The statement's changes summed per kept term and key, applied in key order after collection_counts'
-- (statement triggers fire in name order), so that two writers take the rows in one order and never
-- deadlock. Each written name is compared with every kept term (collection_terms: one row each, never
-- updated, so the list stays small however often the counts change; at most KEPT_TERMS_MAX of them): a
-- term counts where collection_name_suffixes would find it, at one of the name's first char_length(name)
-- positions. Each branch reads only the transition tables its own event declares.
create function collection_term_counts_track() returns trigger language plpgsql as $$
declare
  change record;
begin
  if TG_OP = 'INSERT' then
    for change in
      select t.term, w.is_published, w.is_standard, count(*) as delta
      from (select lower(name) collate "C" as lowered, char_length(name) as length, is_published,
                   third_party_id is null as is_standard from new_rows) as w
      join collection_terms t on strpos(w.lowered, t.term) between 1 and w.length
      group by 1, 2, 3 order by 1, 2, 3
    loop
      update collection_term_counts set n = n + change.delta
      where term = change.term and is_published = change.is_published and is_standard = change.is_standard;
    end loop;
  elsif TG_OP = 'DELETE' then
    for change in
      select t.term, w.is_published, w.is_standard, -count(*) as delta
      from (select lower(name) collate "C" as lowered, char_length(name) as length, is_published,
                   third_party_id is null as is_standard from old_rows) as w
      join collection_terms t on strpos(w.lowered, t.term) between 1 and w.length
      group by 1, 2, 3 order by 1, 2, 3
    loop
      update collection_term_counts set n = n + change.delta
      where term = change.term and is_published = change.is_published and is_standard = change.is_standard;
    end loop;
  else
    for change in
      with changed as (
        -- the rows whose name, publication or kind changed (an update of the lock or the review: none)
        select n.name, n.is_published, n.third_party_id is null as is_standard, 1 as delta
        from new_rows n left join old_rows o on o.id = n.id
        where o.id is null or o.name is distinct from n.name or o.is_published is distinct from n.is_published
          or (o.third_party_id is null) is distinct from (n.third_party_id is null)
        union all
        select o.name, o.is_published, o.third_party_id is null, -1
        from old_rows o left join new_rows n on n.id = o.id
        where n.id is null or o.name is distinct from n.name or o.is_published is distinct from n.is_published
          or (o.third_party_id is null) is distinct from (n.third_party_id is null)
      )
      select t.term, w.is_published, w.is_standard, sum(w.delta) as delta
      from (select lower(name) collate "C" as lowered, char_length(name) as length, is_published, is_standard,
                   delta from changed) as w
      join collection_terms t on strpos(w.lowered, t.term) between 1 and w.length
      group by 1, 2, 3 having sum(w.delta) <> 0 order by 1, 2, 3
    loop
      update collection_term_counts set n = n + change.delta
      where term = change.term and is_published = change.is_published and is_standard = change.is_standard;
    end loop;
  end if;
  return null;
end
$$;

create trigger collection_term_counts_insert after insert on collections
  referencing new table as new_rows for each statement execute function collection_term_counts_track();
create trigger collection_term_counts_update after update on collections
  referencing old table as old_rows new table as new_rows for each statement execute function collection_term_counts_track();
create trigger collection_term_counts_delete after delete on collections
  referencing old table as old_rows for each statement execute function collection_term_counts_track();

create function collection_term_counts_reset() returns trigger language plpgsql as $$
begin
  update collection_term_counts set n = 0;
  return null;
end
$$;

-- TRUNCATE fires no delete trigger.
create trigger collection_term_counts_truncate after truncate on collections
  for each statement execute function collection_term_counts_reset();

-- Starts keeping the term (lower-cased, as a search compares it): counts it in collection_name_suffixes
-- and stores the counts, unless it is kept already or `most` terms are. True when it is kept.
--
-- The count has to be exact as of the moment the writes' triggers start seeing the term: the SHARE lock on
-- collections waits for every transaction that has written to collections (they hold ROW EXCLUSIVE until
-- they end) and holds off new writes until this transaction ends, so the count (a statement of its own,
-- with a snapshot taken after the lock, at read committed) sees every write made before, and every write
-- after sees the term (each statement of a trigger takes its own snapshot at read committed, the level of
-- every write of the service). The lock is given up after lock_timeout rather than queue the writes behind
-- a long transaction: the term is then kept on a later search. Being shorter than deadlock_timeout, it also
-- ends any wait cycle through this lock (a writer waiting behind it holding a row another writer waits
-- for) with this attempt, not with a write. The suffixes of every collection are there:
-- the migrations run in order, and this one after the backfill of 00008 has finished.
create function collection_term_counts_keep(q text, most int) returns boolean
language plpgsql set lock_timeout = '100ms' as $$
declare
  t text collate "C" := lower(q);
begin
  if exists (select 1 from collection_terms where term = t) then
    return true;
  end if;
  if (select count(*) from collection_terms) >= most then
    return false;
  end if;
  lock table collections in share mode;
  insert into collection_terms (term) values (t) on conflict do nothing;
  insert into collection_term_counts (term, is_published, is_standard, n)
  select t, p, k, (select count(*) from collection_name_suffixes s
                   where s.suffix >= t and s.suffix < collection_name_prefix_end(t)
                     and s.repeats < char_length(t) and s.is_published = p and s.is_standard = k)
  from (values (false), (true)) as publication (p), (values (false), (true)) as kind (k)
  on conflict do nothing;
  return true;
end
$$;
