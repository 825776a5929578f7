-- Name search (q: a case-insensitive substring of the name) through a table of the names' suffixes.
--
-- A name contains q exactly when one of its suffixes starts with q, and the suffixes that start with q are
-- one range of a btree in the C collation's (code point) order. The GIN index of tsvector suffixes it
-- replaces (migration 00003) answered the same question, but each match then cost a visit of its row:
-- to recheck it (the name's suffixes recomputed) and to read created_at, so that a common word (thousands
-- of matches) took tens of milliseconds. Here the range holds what a page and its exact total need
-- (the collection, its created_at, whether it is published and standard), so a search reads the index
-- alone. The price is size: a name of n characters is n rows.
--
-- `repeats`: the longest prefix of this suffix that also starts at an earlier position of the name. A
-- name holding q twice has two suffixes starting with q; the later one has repeats >= length(q). So the
-- rows of the range with repeats < length(q) are the collections that match, each once: counted without
-- collecting them first.
create table collection_name_suffixes (
  collection_id uuid not null references collections (id) on delete cascade,
  position smallint not null,
  suffix text collate "C" not null,
  repeats smallint not null,
  created_at timestamptz not null,
  is_published boolean not null,
  is_standard boolean not null,
  primary key (collection_id, position)
);
create index collection_name_suffixes_search on collection_name_suffixes (suffix, created_at desc, collection_id)
  include (repeats, is_published, is_standard);

-- `repeats` of the suffix starting at `start` of a lower-cased name: the longest of its prefixes found
-- before it (each length tried: if a prefix occurs earlier, so do the shorter ones).
create function collection_name_repeats(lowered text, start int) returns smallint
language sql immutable strict parallel safe
return (select coalesce(max(m), 0) from generate_series(1, char_length(lowered) - start + 1) as m
        where strpos(left(lowered, start + m - 2), substr(lowered, start, m)) > 0);

-- The least string past every string that starts with `prefix`, in code point order: the range's end.
create function collection_name_prefix_end(prefix text) returns text
language plpgsql immutable strict parallel safe as $$
declare
  head text := prefix;
  code int;
begin
  while char_length(head) > 0 loop
    code := ascii(right(head, 1));
    head := left(head, -1);
    if code < 1114111 then
      -- the surrogates are no characters
      return head || chr(case when code + 1 = 55296 then 57344 else code + 1 end);
    end if;
  end loop;
  -- a prefix of U+10FFFF only: past any name (at most 42 characters)
  return repeat(chr(1114111), 43);
end
$$;

-- New collections (a statement at a time, so that a bulk insert is one insert here).
create function collection_name_suffixes_add() returns trigger language plpgsql as $$
begin
  insert into collection_name_suffixes (collection_id, position, suffix, repeats, created_at, is_published, is_standard)
  select n.id, i, substr(lower(n.name), i), collection_name_repeats(lower(n.name), i), n.created_at, n.is_published,
    n.third_party_id is null
  from new_rows n, generate_series(1, char_length(n.name)) as i;
  return null;
end
$$;
create trigger collection_name_suffixes_insert after insert on collections
  referencing new table as new_rows for each statement execute function collection_name_suffixes_add();

-- A rename replaces the suffixes; a publication changes their flags. Other updates do not fire it.
create function collection_name_suffixes_change() returns trigger language plpgsql as $$
begin
  if new.name is distinct from old.name or new.created_at is distinct from old.created_at then
    delete from collection_name_suffixes where collection_id = old.id;
    insert into collection_name_suffixes (collection_id, position, suffix, repeats, created_at, is_published, is_standard)
    select new.id, i, substr(lower(new.name), i), collection_name_repeats(lower(new.name), i), new.created_at,
      new.is_published, new.third_party_id is null
    from generate_series(1, char_length(new.name)) as i;
  else
    update collection_name_suffixes
    set is_published = new.is_published, is_standard = new.third_party_id is null
    where collection_id = new.id;
  end if;
  return null;
end
$$;
create trigger collection_name_suffixes_update
  after update of name, created_at, is_published, third_party_id on collections for each row
  when (old.name is distinct from new.name or old.created_at is distinct from new.created_at
        or old.is_published is distinct from new.is_published
        or (old.third_party_id is null) is distinct from (new.third_party_id is null))
  execute function collection_name_suffixes_change();

-- The collections made before the triggers, in batches of 1,000 each committed on its own (migration 00008
-- calls it outside any transaction). Each batch holds a share lock on its collections, so that a rename
-- waits for it and then replaces what it wrote; a collection the triggers already wrote is skipped.
create procedure collection_name_suffixes_backfill() language plpgsql as $$
declare
  last uuid := '00000000-0000-0000-0000-000000000000';
  upto uuid;
begin
  loop
    select id into upto from (select id from collections where id > last order by id limit 1000) as batch
    order by id desc limit 1;
    exit when upto is null;
    with batch as (
      select id, name, created_at, is_published, third_party_id from collections
      where id > last and id <= upto for share
    )
    insert into collection_name_suffixes (collection_id, position, suffix, repeats, created_at, is_published, is_standard)
    select b.id, i, substr(lower(b.name), i), collection_name_repeats(lower(b.name), i), b.created_at,
      b.is_published, b.third_party_id is null
    from batch b, generate_series(1, char_length(b.name)) as i
    where not exists (select 1 from collection_name_suffixes s where s.collection_id = b.id)
    on conflict (collection_id, position) do nothing;
    commit;
    last := upto;
  end loop;
end
$$;
