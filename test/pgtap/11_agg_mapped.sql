-- 11_agg_mapped.sql: aggregate states large enough to leave palloc'd
-- memory (past agg_mapped_bytes, 32 MB or 64 MB for an intersection,
-- exec/aggregate.c: the keys move to a mapping grown by mremap), checked
-- against answers known by construction.
-- 20 rows of 1M int4, row r holding k * 20 + r for k in 0..999999, so the
-- union of all rows is exactly 1..20,000,000 (an 80 MB state), every row
-- taken twice merges to each of 1..20M twice (160 MB), and rows that all
-- end in the same 10,000 keys intersect to those.  Plain and sorted
-- (GroupAggregate) aggregation and window aggregates map their state; hash
-- aggregation does not (it must see the memory to decide when to spill):
-- the same answers either way.
--
-- Mode-independent: run under any setops.device.
BEGIN;
\ir reference.psql
SELECT plan(12);
SET LOCAL max_parallel_workers_per_gather = 0;
SET LOCAL work_mem = '512MB';

CREATE TEMP TABLE big AS
SELECT r, (SELECT array_agg(k * 20 + r ORDER BY k) FROM generate_series(0, 999999) k) AS a
FROM generate_series(1, 20) r;
ANALYZE big;

-- the rows twice as group 0, rows 1 and 2 once more as groups 1 and 2
CREATE TEMP VIEW grouped AS
SELECT 0 AS g, a FROM big UNION ALL SELECT 0, a FROM big
UNION ALL SELECT r, a FROM big WHERE r <= 2;

-- u is each of 1..n, copies times: checked at the ends and 1,000 places between
CREATE FUNCTION pg_temp.is_iota(u int4[], n int, copies int) RETURNS bool
LANGUAGE sql AS $$
    SELECT cardinality(u) = n * copies AND
           (SELECT bool_and(u[(i - 1) * copies + c] = i)
            FROM (SELECT DISTINCT i FROM (SELECT 1 AS i UNION ALL SELECT n
                  UNION ALL SELECT (n::int8 * j / 1000)::int FROM generate_series(1, 999) j) s) t,
                 generate_series(1, copies) c)
$$;


SELECT ok(pg_temp.is_iota(array_union_agg(a), 20000000, 1),
          'array_union_agg over 80 MB of rows: 1..20M')
FROM big;

SELECT ok(pg_temp.is_iota(array_union_agg(a), 20000000, 1),
          'array_union_agg over every row twice: still 1..20M')
FROM (SELECT a FROM big UNION ALL SELECT a FROM big) s;

SELECT ok(pg_temp.is_iota(array_merge_agg(a), 20000000, 2),
          'array_merge_agg over every row twice (160 MB): each of 1..20M twice')
FROM (SELECT a FROM big UNION ALL SELECT a FROM big) s;

SELECT is(array_intersect_agg(a || (SELECT array_agg(k) FROM generate_series(20000001, 20010000) k)),
          (SELECT array_agg(k) FROM generate_series(20000001, 20010000) k),
          'array_intersect_agg over 80 MB of rows keeps only the keys they share')
FROM big;

-- the grouped checks under one plan: node is the Agg node that the
-- setting turned off leaves, and names the checks
CREATE FUNCTION pg_temp.grouped_checks(node text, setting text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config(setting, 'off', true);
    RETURN NEXT matches(pg_temp.plan_of('SELECT g, array_merge_agg(a) FROM grouped GROUP BY g'),
                        node, format('the grouping is a %s', node));
    RETURN NEXT ok(pg_temp.is_iota(u, 20000000, 2), format('%s: a 160 MB group: each of 1..20M twice', node))
        FROM (SELECT g, array_merge_agg(a) AS u FROM grouped GROUP BY g) t WHERE g = 0;
    RETURN NEXT is(array_agg(u[1] ORDER BY g), ARRAY[1, 2], format('%s: the one-row groups', node))
        FROM (SELECT g, array_union_agg(a) AS u FROM grouped GROUP BY g) t WHERE g > 0;
    PERFORM set_config(setting, 'on', true);
END $$;

SELECT * FROM pg_temp.grouped_checks('GroupAggregate', 'enable_hashagg');
SELECT * FROM pg_temp.grouped_checks('HashAggregate', 'enable_sort');

-- a growing frame: the final function runs at every row and rows are
-- appended after it (the state passes 32 MB at the 9th row)
SELECT ok(bool_and(cardinality(u) = r * 1000000 AND u[1] = 1 AND u[cardinality(u)] = 19999980 + r),
          'array_union_agg over a growing window frame: every frame right')
FROM (SELECT r, array_union_agg(a) OVER (ORDER BY r) AS u FROM big) s;

SELECT ok(pg_temp.is_iota(u, 20000000, 1), 'array_union_agg over a whole partition: 1..20M')
FROM (SELECT array_union_agg(a) OVER () AS u FROM big LIMIT 1) s;

SELECT * FROM finish();
ROLLBACK;
