-- 03_aggregates.sql: array_union_agg, array_intersect_agg and
-- array_merge_agg over the sharded table answer as over the local table,
-- for int4[], packed_int4, int8[] and packed_int8, over all rows and over
-- chosen selections: rows that contain {7,7,42} (non-empty
-- intersections), NULL rows only, empty arrays only, one shard's rows, the
-- 100,000-key row with others, no rows.
--   - grouped by the partition key (partitionwise: each shard computes its
--     whole aggregate, 01_pushdown.sql);
--   - the two-level global form, array_X_agg over each shard's array_X_agg,
--     against the one-level aggregate of the local table: exact, since each
--     of the three is associative and commutative with NULL rows skipped
--     (min, max and sum of each key's copies), and the shards' groups
--     partition the rows;
--   - one level over all partitions (partial aggregates on the coordinator,
--     combined), and grouped by other than the partition key;
--   - where the two-level form needs groups that partition the rows: over
--     rows counted twice, union and intersection (min and max, idempotent)
--     still agree, a merge (a sum) counts them twice.
BEGIN;
SELECT plan(28);
SET LOCAL enable_partitionwise_aggregate = on;

CREATE TEMP TABLE sel (ord int, name text, w text);
INSERT INTO sel VALUES
	(1, 'all rows', 'true'),
	(2, 'rows that contain {7,7,42}', $$array_contains(members, '{7,7,42}')$$),
	(3, 'NULL rows only', 'members IS NULL'),
	(4, 'empty arrays only', 'cardinality(members) = 0'),
	(5, 'shard 0 only', 'shard = 0'),
	(6, 'the 100,000-key row and the rows holding 5', $$(id = 405 OR array_overlaps(members, '{5}'))$$),
	(7, 'no rows', 'id < 0');

-- the twelve aggregates, as a select list
CREATE TEMP TABLE aggs AS
SELECT string_agg(format('%s(%s) AS %s', a, c, left(a, 8) || '_' || c), ', ' ORDER BY a, c) AS one,
       string_agg(format('%s(%s)', a, left(a, 8) || '_' || c), ', ' ORDER BY a, c) AS outer_
FROM unnest(ARRAY['array_union_agg', 'array_intersect_agg', 'array_merge_agg']) a,
     unnest(ARRAY['members', 'pm', 'm8', 'pm8']) c;

-- the selections are not all trivial
SELECT cmp_ok((SELECT cardinality(array_intersect_agg(members)) FROM seg_local WHERE array_contains(members, '{7,7,42}')),
	'>=', 3, 'rows that contain {7,7,42}: a non-empty intersection');
SELECT is((SELECT array_union_agg(members) FROM seg_local WHERE members IS NULL), NULL, 'NULL rows only: NULL');

-- grouped by the partition key, on the shards
SELECT results_eq(format('SELECT shard, %s FROM seg WHERE %s GROUP BY shard ORDER BY shard', one, w),
                  format('SELECT shard, %s FROM seg_local WHERE %s GROUP BY shard ORDER BY shard', one, w),
                  'GROUP BY shard: ' || name)
FROM sel, aggs ORDER BY ord;

-- two levels (each shard's aggregate, combined on the coordinator) against
-- one level on the local table
SELECT results_eq(format('SELECT %s FROM (SELECT %s FROM seg WHERE %s GROUP BY shard) s', outer_, one, w),
                  format('SELECT %s FROM seg_local WHERE %s', one, w),
                  'two-level global aggregate: ' || name)
FROM sel, aggs ORDER BY ord;

-- one level over all partitions
SELECT results_eq(format('SELECT %s FROM seg WHERE %s', one, w),
                  format('SELECT %s FROM seg_local WHERE %s', one, w),
                  'one-level global aggregate: ' || name)
FROM sel, aggs ORDER BY ord;

-- grouped by other than the partition key
SELECT results_eq(format('SELECT id %% 4, %s FROM seg GROUP BY 1 ORDER BY 1', one),
                  format('SELECT id %% 4, %s FROM seg_local GROUP BY 1 ORDER BY 1', one),
                  'GROUP BY id % 4 (on the coordinator)')
FROM aggs;

-- the same rows twice (every shard's aggregate, and the local table's by
-- shard): union and intersection unchanged, merge counts twice
CREATE TEMP VIEW twice AS
SELECT shard, array_union_agg(members) u, array_intersect_agg(members) i, array_merge_agg(members) m
FROM seg GROUP BY shard
UNION ALL
SELECT shard, array_union_agg(members), array_intersect_agg(members), array_merge_agg(members)
FROM seg_local GROUP BY shard;
SELECT is((SELECT array_union_agg(u) FROM twice), (SELECT array_union_agg(members) FROM seg_local),
	'rows counted twice: the two-level union is unchanged');
SELECT is((SELECT array_intersect_agg(i) FROM twice), (SELECT array_intersect_agg(members) FROM seg_local),
	'rows counted twice: the two-level intersection is unchanged');
SELECT is((SELECT array_merge_agg(m) FROM twice),
          (SELECT array_merge_agg(members) FROM (SELECT members FROM seg_local UNION ALL SELECT members FROM seg_local) s),
	'rows counted twice: the two-level merge counts them twice');
SELECT isnt((SELECT array_merge_agg(m) FROM twice), (SELECT array_merge_agg(members) FROM seg_local),
	'rows counted twice: the two-level merge is not the merge of the rows');

SELECT * FROM finish();
ROLLBACK;
