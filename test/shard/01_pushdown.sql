-- 01_pushdown.sql: what postgres_fdw ships to the shards (EXPLAIN VERBOSE,
-- the Remote SQL of both partitions).  setops's functions, operators and
-- aggregates are IMMUTABLE members of the extension the foreign servers
-- list (extensions 'setops'), so they are evaluated on the shards: in
-- WHERE, in aggregates of a partitionwise GROUP BY (the whole aggregate
-- per shard), in ORDER BY and in joins of one server; constants of the
-- packed types deparse as their text form.  And what PostgreSQL 15's
-- postgres_fdw does not ship, as docs/sharding.md states: expressions in the
-- select list of a plain scan, partial aggregates (an aggregate over all
-- partitions), window functions.  The answers of these queries are
-- compared with the local table in 02_answers.sql and 03_aggregates.sql.
BEGIN;
SELECT plan(50);
SET LOCAL enable_partitionwise_aggregate = on;

-- the number of Remote SQL lines of q's plan that contain needle
CREATE FUNCTION pg_temp.shipped(q text, needle text) RETURNS int
LANGUAGE sql AS $$
	SELECT count(*)::int FROM regexp_split_to_table(remote_sql(q), E'\n') l WHERE strpos(l, needle) > 0
$$;

-- in WHERE, on both shards, with no filter left on the coordinator
SELECT is(pg_temp.shipped(q, needle), 2, 'WHERE ' || w || ': shipped')
FROM (VALUES
	('array_overlaps(members, ''{7,42}'')', 'public.array_overlaps(members, ''{7,42}''::integer[])'),
	('array_contains(members, ''{7,7}'')', 'public.array_contains(members, ''{7,7}''::integer[])'),
	('array_contained_by(members, ''{1,2,7,7}'')', 'public.array_contained_by(members, ''{1,2,7,7}''::integer[])'),
	('array_intersect_count(members, ''{7,42}'') > 1', '(public.array_intersect_count(members, ''{7,42}''::integer[]) > 1)'),
	('array_union_count(members, ''{7,42}'') < 9', '(public.array_union_count(members, ''{7,42}''::integer[]) < 9)'),
	('array_difference_count(members, ''{7,42}'') = 3', '(public.array_difference_count(members, ''{7,42}''::integer[]) = 3)'),
	('array_symdiff_count(members, ''{7,42}'') >= 4', '(public.array_symdiff_count(members, ''{7,42}''::integer[]) >= 4)'),
	('array_jaccard(members, ''{7,42}'') > 0.05', '(public.array_jaccard(members, ''{7,42}''::integer[]) > 0.05::double precision)'),
	('cardinality(array_intersect_gpu(members, ''{7,42}'')) = 2', 'cardinality(public.array_intersect_gpu(members, ''{7,42}''::integer[]))'),
	('cardinality(array_union_gpu(members, ''{7,42}'')) = 2', 'cardinality(public.array_union_gpu(members, ''{7,42}''::integer[]))'),
	('cardinality(array_difference_gpu(members, ''{7,42}'')) = 2', 'cardinality(public.array_difference_gpu(members, ''{7,42}''::integer[]))'),
	('cardinality(array_symdiff_gpu(members, ''{7,42}'')) = 2', 'cardinality(public.array_symdiff_gpu(members, ''{7,42}''::integer[]))'),
	('array_intersect_count(pm, members) > 3', '(public.array_intersect_count(pm, members) > 3)'),
	-- packed constants: cast to the schema-qualified type
	('array_overlaps(pm, ''{7,42}''::packed_int4)', 'public.array_overlaps(pm, ''{7,42}''::public.packed_int4)'),
	('array_contains(pm8, ''{-9223372036854775808,7}''::packed_int8)',
	 'public.array_contains(pm8, ''{-9223372036854775808,7}''::public.packed_int8)'),
	('array_jaccard(pm, ''{-2147483648,7,2147483647}''::packed_int4) > 0',
	 'public.array_jaccard(pm, ''{-2147483648,7,2147483647}''::public.packed_int4)'),
	-- operators on packed values: the constant as an untyped literal, which
	-- the shard resolves from the column's type
	('pm && ''{7,42}''', '(pm OPERATOR(public.&&) ''{7,42}'')'),
	('pm @> ''{7,7}''', '(pm OPERATOR(public.@>) ''{7,7}'')'),
	('pm <@ ''{1,2,7,7}''', '(pm OPERATOR(public.<@) ''{1,2,7,7}'')'),
	('pm = ''{5,5,5,5,5,5,5,5}''', '(pm OPERATOR(public.=) ''{5,5,5,5,5,5,5,5}'')'),
	('pm8 @> ''{9223372036854775807}''', '(pm8 OPERATOR(public.@>) ''{9223372036854775807}'')'),
	('(pm & ''{7,42}'') = ''{7,42}''', '(pm OPERATOR(public.&) ''{7,42}'')'),
	('cardinality(pm | ''{7,42}'') > 9', '(pm OPERATOR(public.|) ''{7,42}'')'),
	('cardinality(pm - ''{7,42}'') > 9', '(pm OPERATOR(public.-) ''{7,42}'')'),
	('cardinality(pm # ''{7,42}'') > 9', '(pm OPERATOR(public.#) ''{7,42}'')'),
	('members::packed_int4 = pm', '(members::public.packed_int4 OPERATOR(public.=) pm)')
) v(w, needle), format('SELECT id FROM seg WHERE %s', w) q;

SELECT unalike(plan_of($$SELECT id FROM seg WHERE array_overlaps(members, '{7,42}') AND pm @> '{7}'
                          AND array_jaccard(pm8, '{7,42}'::packed_int8) > 0.01$$),
	'%Filter:%', 'WHERE: no filter left on the coordinator');

-- aggregates grouped by the partition key: each shard computes its whole
-- aggregate
SELECT is(pg_temp.shipped(format('SELECT shard, %s(%s) FROM seg GROUP BY shard', a, c),
                          format('public.%s(%s)', a, c)),
	2, format('GROUP BY shard: %s(%s) shipped', a, c))
FROM unnest(ARRAY['array_union_agg', 'array_intersect_agg', 'array_merge_agg']) a,
     unnest(ARRAY['members', 'pm', 'm8', 'pm8']) c;
SELECT is(pg_temp.shipped($$SELECT shard, sum(array_intersect_count(members, '{7,42}')),
                                 count(*) FILTER (WHERE pm && '{7}'), array_union_agg(pm & '{7,42}')
                            FROM seg GROUP BY shard$$,
                          $$sum(public.array_intersect_count(members, '{7,42}'::integer[])), count(*) FILTER (WHERE (pm OPERATOR(public.&&) '{7}')), public.array_union_agg((pm OPERATOR(public.&) '{7,42}'))$$),
	2, 'GROUP BY shard: a sum of counts, a filter, an aggregate of an operation shipped');
-- per-row values computed on the shards: one group per row
SELECT is(pg_temp.shipped($$SELECT shard, id, min(array_intersect_count(members, '{7,42}')), bool_and(pm @> '{7}')
                            FROM seg GROUP BY shard, id$$,
                          $$min(public.array_intersect_count(members, '{7,42}'::integer[])), bool_and((pm OPERATOR(public.@>) '{7}'))$$),
	2, 'GROUP BY shard, id: per-row counts and predicates shipped');
-- the two-level global aggregate: the inner level on the shards, the outer
-- on the coordinator
SELECT is(pg_temp.shipped($$SELECT array_union_agg(u) FROM (SELECT array_union_agg(members) u FROM seg GROUP BY shard) s$$,
                          'SELECT public.array_union_agg(members), shard FROM public.seg_p GROUP BY 2'),
	2, 'two-level union: the inner level shipped');
SELECT alike(plan_of($$SELECT array_union_agg(u) FROM (SELECT array_union_agg(members) u FROM seg GROUP BY shard) s$$),
	'%Output: array_union_agg((array_union_agg(seg.members)))%', 'two-level union: the outer level on the coordinator');
-- ORDER BY a similarity, on each shard (the coordinator merges)
SELECT is(pg_temp.shipped($$SELECT id FROM seg ORDER BY array_jaccard(members, '{7,42}') DESC, id LIMIT 5$$,
                          $$ORDER BY public.array_jaccard(members, '{7,42}'::integer[]) DESC NULLS FIRST, id ASC NULLS LAST$$),
	2, 'ORDER BY array_jaccard: shipped');
-- a join of two tables of one server
SELECT is(pg_temp.shipped($$SELECT a.id, b.id FROM seg_p0 a JOIN seg_p0 b ON a.pm && b.pm$$,
                          '(r1.pm OPERATOR(public.&&) r2.pm)'),
	1, 'a join on && within one shard: shipped');

-- not shipped by PostgreSQL 15's postgres_fdw
SELECT is(pg_temp.shipped($$SELECT id, array_intersect_count(members, '{7,42}') FROM seg$$, 'array_intersect_count'),
	0, 'not shipped: a function in the select list of a plain scan (computed on the coordinator)');
SELECT is(pg_temp.shipped($$SELECT array_union_agg(members) FROM seg$$, 'array_union_agg'),
	0, 'not shipped: an aggregate over all partitions (partial aggregates stay on the coordinator)');
SELECT alike(plan_of($$SELECT array_union_agg(members) FROM seg$$),
	'%Partial Aggregate%', 'an aggregate over all partitions: partial aggregates per partition, on the coordinator');
SELECT is(pg_temp.shipped($$SELECT id % 4, array_union_agg(members) FROM seg GROUP BY 1$$, 'array_union_agg'),
	0, 'not shipped: an aggregate grouped by other than the partition key');
SELECT is(pg_temp.shipped($$SELECT id, array_intersect_batch(members, '{7,42}') OVER () FROM seg$$, 'batch'),
	0, 'not shipped: a window batch');

SELECT * FROM finish();
ROLLBACK;
