-- Kept terms are evicted when they stop being asked: each records when a search last read its kept count
-- (touched at most once an hour per replica), and a term that has gone unasked for a week gives its place
-- to a new one once the table is full. Without it, terms kept once were kept for ever, and whoever filled
-- the table first decided which searches count every time and which names every write compares.
alter table collection_terms add column last_asked_at timestamptz not null default now();

-- As 00009's, but a full table first drops its terms unasked for `idle` (their counts with them). A write
-- racing the drop updates count rows that are gone, which changes nothing; a term kept again later is
-- counted afresh under the SHARE lock, as any new term is.
drop function collection_term_counts_keep(text, int);
create function collection_term_counts_keep(q text, most int, idle interval default '7 days') returns boolean
language plpgsql set lock_timeout = '100ms' as $$
declare
  t text collate "C" := lower(q);
begin
  if exists (select 1 from collection_terms where term = t) then
    return true;
  end if;
  if (select count(*) from collection_terms) >= most then
    with gone as (delete from collection_terms where last_asked_at < now() - idle returning term)
    delete from collection_term_counts where term in (select term from gone);
    if (select count(*) from collection_terms) >= most then
      return false;
    end if;
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
