-- 02_answers.sql: per-row operations, counts, similarity and predicates on
-- the sharded table (seg) answer as on the same rows in one local table
-- (seg_local): computed on the coordinator over rows from the shards,
-- computed on the shards (one group per row, shipped: 01_pushdown.sql),
-- and as WHERE predicates (shipped).  int4[], packed_int4, int8[],
-- packed_int8; constants: empty, duplicates, the extremes, small keys, and
-- another row's members as a parameter.  Joins of packed values across the
-- shards, ORDER BY a similarity.
BEGIN;
SELECT plan(37);
SET LOCAL enable_partitionwise_aggregate = on;

-- constants: c the array, p the packed value
CREATE TEMP TABLE c4 (ord int, name text, c text, p text);
INSERT INTO c4 (ord, name, c) VALUES
	(1, 'empty', $$'{}'::int4[]$$),
	(2, 'duplicates', $$'{7,7,42}'::int4[]$$),
	(3, 'extremes', $$'{-2147483648,0,5,5,2147483647,2147483647}'::int4[]$$),
	(4, 'small keys', $$'{0,1,2,3,4,5,6,7,7,8,9,10,11,12,13,14,15,16,17,18,19,20,30,40,50}'::int4[]$$);
UPDATE c4 SET p = replace(c, 'int4[]', 'packed_int4');
INSERT INTO c4 VALUES
	(5, 'row 1''s members, a parameter', $$(SELECT members FROM seg_local WHERE id = 1)$$,
	 $$(SELECT pm FROM seg_local WHERE id = 1)$$);
CREATE TEMP TABLE c8 (ord int, name text, c text, p text);
INSERT INTO c8 (ord, name, c) VALUES
	(1, 'empty', $$'{}'::int8[]$$),
	(2, 'extremes and duplicates', $$'{-9223372036854775808,7,7,42,9223372036854775807}'::int8[]$$),
	(3, 'small keys', $$'{0,1,2,3,5,8,13,21,34,55}'::int8[]$$);
UPDATE c8 SET p = replace(c, 'int8[]', 'packed_int8');

-- templates: %1$s the table, %2$s the constant, %3$s the packed constant
CREATE TEMP TABLE t4 (ord int, name text, q text);
INSERT INTO t4 VALUES
	(1, 'int4[] per row, on the coordinator', $$
		SELECT id, array_intersect_gpu(members, %2$s), array_union_gpu(members, %2$s),
		       array_difference_gpu(members, %2$s), array_symdiff_gpu(members, %2$s),
		       array_difference_gpu(%2$s, members),
		       array_intersect_count(members, %2$s), array_union_count(members, %2$s),
		       array_difference_count(members, %2$s), array_symdiff_count(members, %2$s),
		       array_difference_count(%2$s, members), array_jaccard(members, %2$s),
		       array_overlaps(members, %2$s), array_contains(members, %2$s),
		       array_contained_by(members, %2$s), array_contains(%2$s, members)
		FROM %1$s ORDER BY id$$),
	(2, 'int4[] per row, on the shards', $$
		SELECT id, min(array_intersect_gpu(members, %2$s)), min(array_union_gpu(members, %2$s)),
		       min(array_difference_gpu(members, %2$s)), min(array_symdiff_gpu(members, %2$s)),
		       min(array_difference_gpu(%2$s, members)),
		       min(array_intersect_count(members, %2$s)), min(array_union_count(members, %2$s)),
		       min(array_difference_count(members, %2$s)), min(array_symdiff_count(members, %2$s)),
		       min(array_difference_count(%2$s, members)), min(array_jaccard(members, %2$s)),
		       bool_and(array_overlaps(members, %2$s)), bool_and(array_contains(members, %2$s)),
		       bool_and(array_contained_by(members, %2$s)), bool_and(array_contains(%2$s, members))
		FROM %1$s GROUP BY shard, id ORDER BY id$$),
	(3, 'packed_int4 per row, on the coordinator', $$
		SELECT id, pm & %3$s, pm | %3$s, pm - %3$s,
		       %3$s - pm, pm # %3$s,
		       pm && %3$s, pm @> %3$s, pm <@ %3$s,
		       pm = %3$s, array_intersect_count(pm, %3$s),
		       array_union_count(pm, %2$s), array_jaccard(pm, %3$s),
		       array_intersect_gpu(pm, %2$s), array_jaccard(pm, members)
		FROM %1$s ORDER BY id$$),
	(4, 'packed_int4 per row, on the shards', $$
		SELECT id, array_union_agg(pm & %3$s), array_union_agg(pm | %3$s),
		       array_union_agg(pm - %3$s), array_union_agg(%3$s - pm),
		       array_union_agg(pm # %3$s),
		       bool_and(pm && %3$s), bool_and(pm @> %3$s),
		       bool_and(pm <@ %3$s), bool_and(pm = %3$s),
		       min(array_intersect_count(pm, %3$s)), min(array_union_count(pm, %2$s)),
		       min(array_jaccard(pm, %3$s)), min(array_intersect_gpu(pm, %2$s)),
		       min(array_jaccard(pm, members))
		FROM %1$s GROUP BY shard, id ORDER BY id$$),
	(5, 'WHERE predicates, on the shards', $$
		SELECT 1, array_agg(id ORDER BY id) FROM %1$s WHERE array_overlaps(members, %2$s)
		UNION ALL SELECT 2, array_agg(id ORDER BY id) FROM %1$s WHERE array_contains(members, %2$s)
		UNION ALL SELECT 3, array_agg(id ORDER BY id) FROM %1$s WHERE array_contained_by(members, %2$s)
		UNION ALL SELECT 4, array_agg(id ORDER BY id) FROM %1$s WHERE array_intersect_count(members, %2$s) >= 2
		UNION ALL SELECT 5, array_agg(id ORDER BY id) FROM %1$s WHERE array_union_count(members, %2$s) <= 30
		UNION ALL SELECT 6, array_agg(id ORDER BY id) FROM %1$s WHERE array_difference_count(members, %2$s) < 5
		UNION ALL SELECT 7, array_agg(id ORDER BY id) FROM %1$s WHERE array_symdiff_count(members, %2$s) < 25
		UNION ALL SELECT 8, array_agg(id ORDER BY id) FROM %1$s WHERE array_jaccard(members, %2$s) > 0.05
		UNION ALL SELECT 9, array_agg(id ORDER BY id) FROM %1$s WHERE pm && %3$s
		UNION ALL SELECT 10, array_agg(id ORDER BY id) FROM %1$s WHERE pm @> %3$s
		UNION ALL SELECT 11, array_agg(id ORDER BY id) FROM %1$s WHERE pm <@ %3$s
		UNION ALL SELECT 12, array_agg(id ORDER BY id) FROM %1$s WHERE pm = %3$s
		UNION ALL SELECT 13, array_agg(id ORDER BY id) FROM %1$s WHERE (pm & %3$s) = %3$s
		UNION ALL SELECT 14, array_agg(id ORDER BY id) FROM %1$s WHERE cardinality(pm # %3$s) < 20
		UNION ALL SELECT 15, array_agg(id ORDER BY id) FROM %1$s WHERE array_contains(%2$s, members)
		ORDER BY 1$$);
CREATE TEMP TABLE t8 (ord int, name text, q text);
INSERT INTO t8 VALUES
	(1, 'int8[] and packed_int8 per row, on the coordinator', $$
		SELECT id, array_intersect_gpu(m8, %2$s), array_union_gpu(m8, %2$s),
		       array_difference_gpu(m8, %2$s), array_symdiff_gpu(m8, %2$s),
		       array_intersect_count(m8, %2$s), array_symdiff_count(m8, %2$s), array_jaccard(m8, %2$s),
		       array_overlaps(m8, %2$s), array_contains(m8, %2$s), array_contained_by(m8, %2$s),
		       pm8 & %3$s, pm8 # %3$s, pm8 @> %3$s,
		       array_union_count(pm8, %2$s)
		FROM %1$s ORDER BY id$$),
	(2, 'int8[] and packed_int8 per row, on the shards', $$
		SELECT id, min(array_intersect_gpu(m8, %2$s)), min(array_union_gpu(m8, %2$s)),
		       min(array_difference_gpu(m8, %2$s)), min(array_symdiff_gpu(m8, %2$s)),
		       min(array_intersect_count(m8, %2$s)), min(array_symdiff_count(m8, %2$s)), min(array_jaccard(m8, %2$s)),
		       bool_and(array_overlaps(m8, %2$s)), bool_and(array_contains(m8, %2$s)), bool_and(array_contained_by(m8, %2$s)),
		       array_union_agg(pm8 & %3$s), array_union_agg(pm8 # %3$s),
		       bool_and(pm8 @> %3$s), min(array_union_count(pm8, %2$s))
		FROM %1$s GROUP BY shard, id ORDER BY id$$),
	(3, 'int8[] and packed_int8 WHERE predicates, on the shards', $$
		SELECT 1, array_agg(id ORDER BY id) FROM %1$s WHERE array_overlaps(m8, %2$s)
		UNION ALL SELECT 2, array_agg(id ORDER BY id) FROM %1$s WHERE array_contains(m8, %2$s)
		UNION ALL SELECT 3, array_agg(id ORDER BY id) FROM %1$s WHERE array_intersect_count(m8, %2$s) >= 2
		UNION ALL SELECT 4, array_agg(id ORDER BY id) FROM %1$s WHERE array_jaccard(pm8, %3$s) > 0.05
		UNION ALL SELECT 5, array_agg(id ORDER BY id) FROM %1$s WHERE pm8 && %3$s
		UNION ALL SELECT 6, array_agg(id ORDER BY id) FROM %1$s WHERE pm8 <@ %3$s
		ORDER BY 1$$);

SELECT results_eq(format(t.q, 'seg', c.c, c.p), format(t.q, 'seg_local', c.c, c.p), t.name || ', constant: ' || c.name)
FROM t4 t, c4 c ORDER BY t.ord, c.ord;
SELECT results_eq(format(t.q, 'seg', c.c, c.p), format(t.q, 'seg_local', c.c, c.p), t.name || ', constant: ' || c.name)
FROM t8 t, c8 c ORDER BY t.ord, c.ord;

SELECT results_eq(
	$$SELECT id, array_jaccard(members, '{7,7,42}') FROM seg WHERE members IS NOT NULL
	  ORDER BY array_jaccard(members, '{7,7,42}') DESC, id LIMIT 10$$,
	$$SELECT id, array_jaccard(members, '{7,7,42}') FROM seg_local WHERE members IS NOT NULL
	  ORDER BY array_jaccard(members, '{7,7,42}') DESC, id LIMIT 10$$,
	'ORDER BY array_jaccard LIMIT 10 (sorted on the shards, merged on the coordinator)');
SELECT results_eq(
	'SELECT a.id, b.id FROM seg a JOIN seg b ON a.pm = b.pm AND a.id < b.id ORDER BY 1, 2',
	'SELECT a.id, b.id FROM seg_local a JOIN seg_local b ON a.pm = b.pm AND a.id < b.id ORDER BY 1, 2',
	'join on packed =, across the shards');
SELECT results_eq(
	'SELECT a.shard, b.shard, count(*) FROM seg a JOIN seg b ON a.pm && b.pm GROUP BY 1, 2 ORDER BY 1, 2',
	'SELECT a.shard, b.shard, count(*) FROM seg_local a JOIN seg_local b ON a.pm && b.pm GROUP BY 1, 2 ORDER BY 1, 2',
	'join on packed &&, within and across the shards');

SELECT * FROM finish();
ROLLBACK;
