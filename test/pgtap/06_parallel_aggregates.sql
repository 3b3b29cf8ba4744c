-- 06_parallel_aggregates.sql: the aggregates under parallel aggregation
-- (partial states flattened in the workers, combined in
-- the leader) give the reference's results, the same as without
-- parallelism: ungrouped and grouped, NULL and empty rows included, and
-- with filters that leave some workers no rows at all.
--
-- The table is an ordinary one created in this transaction: parallel
-- workers share the leader's transaction and see it (a temporary table
-- would keep the plan serial).  Each parallel query's EXPLAIN must show a
-- Partial Aggregate under a Gather, so that this cannot silently stop
-- testing parallel mode.
--
-- Mode-independent: run under any setops.device.
BEGIN;
\ir reference.psql

CREATE TABLE setops_tap_parallel (
    id int PRIMARY KEY,
    g int NOT NULL,
    a int8[],            -- random rows, NULL and empty ones mixed in
    c int8[] NOT NULL    -- a common part plus random keys: non-empty intersections
);

SELECT setseed(0.0606);
INSERT INTO setops_tap_parallel
SELECT id, id % 8,
       CASE WHEN x < 0.03 THEN NULL WHEN x < 0.05 THEN '{}'
            ELSE pg_temp.rand_sorted(floor(random() * 30)::int, -200, 200) END,
       ARRAY(SELECT k FROM unnest(base || pg_temp.rand_sorted(floor(random() * 12)::int, 0, 1000)) k ORDER BY k)
FROM (SELECT pg_temp.rand_sorted(12, 0, 20) AS base) b,
     (SELECT id, random() AS x FROM generate_series(1, 20000) id) t
ORDER BY id;
ANALYZE setops_tap_parallel;

-- Runs CREATE TEMP TABLE tbl AS q in parallel, asserting first that its
-- plan (EXPLAIN without ANALYZE) has a Partial ...Aggregate below a Gather.
-- The statement itself runs under EXPLAIN ANALYZE, to report the workers
-- launched in the diagnostics (not asserted: a busy server may have none
-- to give, and then the leader runs the partial plan itself).  Queries run
-- through cursors (results_eq) are never parallel, hence the tables.
CREATE FUNCTION pg_temp.parallel_ctas(tbl text, q text, descr text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    stmt text := format('CREATE TEMP TABLE %I AS %s', tbl, q);
    p text := pg_temp.plan_of(stmt);
    workers text;
BEGIN
    IF NOT (p ~ 'Partial (Hash|Group)?Aggregate' AND p ~ 'Gather') THEN
        RETURN ok(false, descr) || E'\n' || diag(p);
    END IF;
    workers := substring(pg_temp.plan_of(stmt, 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF')
                         FROM 'Workers Launched: [0-9]+');
    RETURN ok(true, descr) || E'\n' || diag('    ' || coalesce(workers, 'no Workers Launched line'));
END
$$;

-- the reference, from counts: all rows (g = -1) and per group
CREATE TEMP TABLE par_expect AS
WITH src AS (SELECT -1 AS g, id, a, c FROM setops_tap_parallel
             UNION ALL SELECT g, id, a, c FROM setops_tap_parallel),
na AS (SELECT g, count(*) AS n FROM src WHERE a IS NOT NULL GROUP BY g),
nc AS (SELECT g, count(*) AS n FROM src GROUP BY g),
ca AS (SELECT g, id, k, count(*) AS cnt FROM src, unnest(a) k GROUP BY g, id, k),
cc AS (SELECT g, id, k, count(*) AS cnt FROM src, unnest(c) k GROUP BY g, id, k),
pa AS (SELECT g, k, max(cnt) AS mx, sum(cnt) AS sm FROM ca GROUP BY g, k),
pc AS (SELECT cc.g, k, CASE WHEN count(*) = max(nc.n) THEN min(cnt) ELSE 0 END AS mn
       FROM cc JOIN nc USING (g) GROUP BY cc.g, k)
SELECT nc.g,
       coalesce((SELECT array_agg(k ORDER BY k) FROM pc, generate_series(1, mn) WHERE pc.g = nc.g), '{}') AS i,
       CASE WHEN na.n IS NOT NULL THEN coalesce(
           (SELECT array_agg(k ORDER BY k) FROM pa, generate_series(1, mx) WHERE pa.g = nc.g), '{}') END AS u,
       CASE WHEN na.n IS NOT NULL THEN coalesce(
           (SELECT array_agg(k ORDER BY k) FROM pa, generate_series(1, sm) WHERE pa.g = nc.g), '{}') END AS m
FROM nc LEFT JOIN na USING (g);

-- serial results first
SET LOCAL max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE par_serial AS
SELECT array_intersect_agg(c) AS i8, array_union_agg(a) AS u8, array_merge_agg(a) AS m8,
       array_intersect_agg(c::int4[]) AS i4, array_union_agg(a::int4[]) AS u4, array_merge_agg(a::int4[]) AS m4
FROM setops_tap_parallel;
SELECT plan(4 + 12 + 2 + 4 + 3);

SELECT is(pg_temp.plan_of('SELECT array_union_agg(a) FROM setops_tap_parallel') ~ 'Gather', false,
          'max_parallel_workers_per_gather = 0: a serial plan');

-- now parallel, and the workers do all the scanning when they come
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL min_parallel_index_scan_size = 0;
SET LOCAL max_parallel_workers_per_gather = 4;
SET LOCAL parallel_leader_participation = off;

SELECT pg_temp.parallel_ctas('par_parallel', $$
    SELECT array_intersect_agg(c) AS i8, array_union_agg(a) AS u8, array_merge_agg(a) AS m8,
           array_intersect_agg(c::int4[]) AS i4, array_union_agg(a::int4[]) AS u4, array_merge_agg(a::int4[]) AS m4
    FROM setops_tap_parallel$$, 'parallel plan for the six aggregates');
SELECT pg_temp.parallel_ctas('par_grouped', $$
    SELECT g, array_intersect_agg(c) AS i, array_union_agg(a) AS u, array_merge_agg(a::int4[]) AS m
    FROM setops_tap_parallel GROUP BY g$$, 'parallel plan for the grouped aggregates');
-- filters that leave most workers without rows: their states are NULL
SELECT pg_temp.parallel_ctas('par_filtered', $$
    SELECT array_union_agg(a) FILTER (WHERE id % 5000 = 0) AS u,
           array_merge_agg(a) FILTER (WHERE id < 0) AS m,
           array_intersect_agg(a) FILTER (WHERE a IS NULL) AS i
    FROM setops_tap_parallel$$, 'parallel plan for aggregates with selective filters');

SELECT pg_temp.arr_is(x.got, x.want, x.descr)
FROM par_expect e, par_serial s, par_parallel p,
     LATERAL (VALUES (1, p.i8, e.i, 'parallel int8 array_intersect_agg = reference'),
                     (2, p.u8, e.u, 'parallel int8 array_union_agg = reference'),
                     (3, p.m8, e.m, 'parallel int8 array_merge_agg = reference'),
                     (4, s.i8, e.i, 'serial int8 array_intersect_agg = reference'),
                     (5, s.u8, e.u, 'serial int8 array_union_agg = reference'),
                     (6, s.m8, e.m, 'serial int8 array_merge_agg = reference')) AS x(n, got, want, descr)
WHERE e.g = -1 ORDER BY x.n;
SELECT pg_temp.arr_is(x.got, x.want::int4[], x.descr)
FROM par_expect e, par_serial s, par_parallel p,
     LATERAL (VALUES (1, p.i4, e.i, 'parallel int4 array_intersect_agg = reference'),
                     (2, p.u4, e.u, 'parallel int4 array_union_agg = reference'),
                     (3, p.m4, e.m, 'parallel int4 array_merge_agg = reference'),
                     (4, s.i4, e.i, 'serial int4 array_intersect_agg = reference'),
                     (5, s.u4, e.u, 'serial int4 array_union_agg = reference'),
                     (6, s.m4, e.m, 'serial int4 array_merge_agg = reference')) AS x(n, got, want, descr)
WHERE e.g = -1 ORDER BY x.n;

SELECT ok(p.i8 = s.i8 AND p.u8 = s.u8 AND p.m8 = s.m8 AND p.i4 = s.i4 AND p.u4 = s.u4 AND p.m4 = s.m4,
          'parallel and serial results are identical')
FROM par_serial s, par_parallel p;
SELECT ok(cardinality(e.i) >= 12 AND cardinality(e.m) > 200000, 'the reference is not trivial')
FROM par_expect e WHERE e.g = -1;

-- grouped, in parallel
SELECT results_eq('SELECT g, i FROM par_grouped ORDER BY g', 'SELECT g, i FROM par_expect WHERE g >= 0 ORDER BY g',
                  'parallel grouped array_intersect_agg = reference');
SELECT results_eq('SELECT g, u FROM par_grouped ORDER BY g', 'SELECT g, u FROM par_expect WHERE g >= 0 ORDER BY g',
                  'parallel grouped array_union_agg = reference');
SELECT results_eq('SELECT g, m FROM par_grouped ORDER BY g', 'SELECT g, m::int4[] FROM par_expect WHERE g >= 0 ORDER BY g',
                  'parallel grouped int4 array_merge_agg = reference');
SELECT is((SELECT count(*) FROM par_expect WHERE g >= 0), 8::bigint, 'eight groups');

-- selective filters, in parallel
SELECT pg_temp.arr_is(f.u,
                      (SELECT ARRAY(SELECT k FROM (SELECT k, max(n) AS n FROM (SELECT id, k, count(*) AS n
                              FROM setops_tap_parallel, unnest(a) k WHERE id % 5000 = 0 GROUP BY id, k) x
                              GROUP BY k) y, generate_series(1, n) ORDER BY k)),
                      'parallel array_union_agg of 4 rows out of 20000')
FROM par_filtered f;
SELECT is(m, NULL, 'parallel array_merge_agg of no rows is NULL') FROM par_filtered;
SELECT is(i, NULL, 'parallel array_intersect_agg of only NULL rows is NULL') FROM par_filtered;

SELECT * FROM finish();
ROLLBACK;
