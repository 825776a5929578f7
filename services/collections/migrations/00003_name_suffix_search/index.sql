-- Name search (q: a case-insensitive substring of the name) through the suffixes of each name.
--
-- A string contains q exactly when one of its suffixes starts with q. Each name's suffixes, lower-cased,
-- are the lexemes of a tsvector, and a GIN index over it answers "a lexeme starts with q" (the prefix
-- query 'q':*) by reading only the index entries that start with q: one or two for a distinctive
-- fragment or a whole name. The pg_trgm index it replaces intersected the posting lists of every
-- trigram of q, most of them common ("thr", "ead", …), and cost 0.4-1.3 ms a search on 100,000
-- collections against 0.06-0.16 ms here (services/collections/BENCHMARKS.md). The price is size: a name
-- of n characters has n suffixes, ~140 MB of index for 100,000 names of ~26 characters (pg_trgm: 11 MB).
-- No extension is needed.

create function collection_name_suffixes(name text) returns tsvector
language sql immutable strict parallel safe
return array_to_tsvector(array(select substr(lower(name), i) from generate_series(1, char_length(name)) as i));

-- q as the prefix query 'q':*, lower-cased like the suffixes; quotes and backslashes escaped, so any
-- text is one literal lexeme (spaces, ':', '&', '*' … included).
create function collection_name_prefix(term text) returns tsquery
language sql immutable strict parallel safe
return ('''' || replace(replace(lower(term), '\', '\\'), '''', '''''') || ''':*')::tsquery;

-- fastupdate off: a pending list would be scanned linearly by every search until a vacuum merges it
create index collections_name_suffixes on collections using gin (collection_name_suffixes(name))
  with (fastupdate = off);

drop index if exists collections_name_trgm;
