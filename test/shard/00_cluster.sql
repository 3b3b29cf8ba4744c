-- 00_cluster.sql: the sharded cluster is as the suite expects: every
-- server in the setops.device mode of this run (psql variable mode), each
-- partition holding its shard's rows and no other, the same rows as the
-- local table, and the adversarial rows (NULL rows, empty arrays, the
-- extremes, duplicates, an array stored out of line) really there.
BEGIN;
SELECT plan(10);

SELECT is(current_setting('setops.device'), :'mode', 'the coordinator runs in the mode of this run');
SELECT is(array_agg(d), ARRAY[:'mode', :'mode'], 'both shards run in the mode of this run (PL/Proxy, RUN ON ALL)')
FROM shard_device() d;

SELECT results_eq('SELECT shard, id FROM seg ORDER BY id', 'SELECT shard, id FROM seg_local ORDER BY id',
	'the partitioned table holds the local table''s rows');
SELECT is((SELECT count(*) FROM seg_p0 WHERE shard <> 0) + (SELECT count(*) FROM seg_p1 WHERE shard <> 1), 0::bigint,
	'each foreign partition holds only its shard''s rows');
SELECT cmp_ok((SELECT min(c) FROM (SELECT count(*) c FROM seg_local GROUP BY shard) s), '>', 100::bigint,
	'both shards have rows');

SELECT cmp_ok((SELECT count(*) FROM seg_local WHERE members IS NULL), '>=', 20::bigint, 'NULL rows');
SELECT cmp_ok((SELECT count(*) FROM seg_local WHERE cardinality(members) = 0), '>=', 20::bigint, 'empty arrays');
SELECT cmp_ok((SELECT count(*) FROM seg_local
               WHERE array_overlaps(members, '{-2147483648}') AND array_overlaps(members, '{2147483647}')
                 AND array_overlaps(m8, '{-9223372036854775808}') AND array_overlaps(m8, '{9223372036854775807}')),
	'>=', 50::bigint, 'rows holding the int4 and int8 extremes');
SELECT cmp_ok((SELECT count(*) FROM seg_local WHERE cardinality(array_distinct_gpu(members)) < cardinality(members)),
	'>=', 200::bigint, 'rows with duplicate keys');
SELECT cmp_ok((SELECT max(cardinality(pm)) FROM seg), '>=', 100000, 'a 100,000-key row, through the shards');

SELECT * FROM finish();
ROLLBACK;
