-- The suffixes of the collections made before migration 00007, in committed batches (writes go on), then
-- the GIN index that name search used before (a replica of the previous version searches without it
-- until it is replaced).
call collection_name_suffixes_backfill();
drop index concurrently if exists collections_name_suffixes;
