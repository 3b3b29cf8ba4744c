-- 03_aggregates.sql: array_intersect_agg, array_union_agg and array_merge_agg
-- (int4[] and int8[]) against a reference computed from counts: for each
-- key, over the non-NULL rows, the minimum (a row without the key counts 0),
-- the maximum and the sum of its copies per row, expanded back into sorted
-- arrays.  No non-NULL rows gives NULL.  Also: NULL rows, empty rows, a
-- single row, zero rows, 2000 rows, shared transition states, input order,
-- window functions (growing and moving frames) and the errors on bad rows.
-- Parallel aggregation is in 06_parallel_aggregates.sql.
--
-- Mode-independent: run under any setops.device.
BEGIN;
\ir reference.psql

CREATE TEMP TABLE agg_rows (
    g int NOT NULL,
    ord int NOT NULL,
    arr int8[],
    PRIMARY KEY (g, ord)
);
CREATE TEMP TABLE groups (g int PRIMARY KEY, label text NOT NULL);

SELECT setseed(0.0303);

-- 1: 2000 small rows with NULLs and empty arrays mixed in
INSERT INTO groups VALUES (1, '2000 small rows, NULL and empty rows mixed in');
INSERT INTO agg_rows
SELECT 1, o, CASE WHEN x < 0.05 THEN NULL WHEN x < 0.08 THEN '{}'
                  ELSE pg_temp.rand_sorted(floor(random() * 21)::int, 0, 40) END
FROM (SELECT o, random() AS x FROM generate_series(1, 2000) o) t ORDER BY o;

-- 2: 300 rows sharing a common part: a non-trivial intersection
INSERT INTO groups VALUES (2, '300 rows with a common part');
INSERT INTO agg_rows
SELECT 2, o, ARRAY(SELECT k FROM unnest(base || pg_temp.rand_sorted(floor(random() * 40)::int, 0, 100)) k ORDER BY k)
FROM (SELECT pg_temp.rand_sorted(60, 0, 30) AS base) b, generate_series(1, 300) o ORDER BY o;

-- 3: a single row
INSERT INTO groups VALUES (3, 'a single row');
INSERT INTO agg_rows VALUES (3, 1, pg_temp.rand_sorted(500, 0, 100));

-- 4: only NULL rows
INSERT INTO groups VALUES (4, 'only NULL rows');
INSERT INTO agg_rows SELECT 4, o, NULL FROM generate_series(1, 5) o;

-- 5: one empty row among random rows
INSERT INTO groups VALUES (5, 'one empty row among random rows');
INSERT INTO agg_rows
SELECT 5, o, CASE WHEN o = 7 THEN '{}' ELSE pg_temp.rand_sorted(200, 0, 10) END
FROM generate_series(1, 12) o ORDER BY o;

-- 6: long runs
INSERT INTO groups VALUES (6, 'rows of long runs');
INSERT INTO agg_rows SELECT 6, o, pg_temp.rand_runs(3, 2000, 5000) FROM generate_series(1, 6) o ORDER BY o;

-- 7: identical rows
INSERT INTO groups VALUES (7, '50 identical rows');
INSERT INTO agg_rows SELECT 7, o, x FROM (SELECT pg_temp.rand_sorted(300, -20, 20) AS x) t, generate_series(1, 50) o;

-- 8, 9: extremes
INSERT INTO groups VALUES (8, 'int4 extremes');
INSERT INTO agg_rows SELECT 8, o, pg_temp.rand_extreme(30, 32) FROM generate_series(1, 40) o ORDER BY o;
INSERT INTO groups VALUES (9, 'int8 extremes');
INSERT INTO agg_rows SELECT 9, o, pg_temp.rand_extreme(30, 64) FROM generate_series(1, 40) o ORDER BY o;

-- 10: larger rows
INSERT INTO groups VALUES (10, '40 rows of 1000-3000 keys');
INSERT INTO agg_rows
SELECT 10, o, pg_temp.rand_sorted(1000 + floor(random() * 2001)::int, 0, 5000)
FROM generate_series(1, 40) o ORDER BY o;

-- 11: NULL rows first and last
INSERT INTO groups VALUES (11, 'NULL rows first and last');
INSERT INTO agg_rows
SELECT 11, o, CASE WHEN o IN (1, 2, 3, 7) THEN NULL ELSE pg_temp.rand_sorted(30, 0, 8) END
FROM generate_series(1, 7) o ORDER BY o;

-- 12: only empty arrays
INSERT INTO groups VALUES (12, 'only empty arrays');
INSERT INTO agg_rows SELECT 12, o, '{}' FROM generate_series(1, 3) o;

-- 13: negative keys with NULL and empty rows
INSERT INTO groups VALUES (13, 'negative keys, a NULL and an empty row');
INSERT INTO agg_rows
SELECT 13, o, CASE o WHEN 5 THEN NULL WHEN 9 THEN '{}' ELSE pg_temp.rand_sorted(100, -30, -1) END
FROM generate_series(1, 20) o ORDER BY o;

-- The reference, from counts.
CREATE TEMP TABLE agg_expect AS
WITH nn AS (SELECT g, ord, arr FROM agg_rows WHERE arr IS NOT NULL),
nrows AS (SELECT g, count(*) AS n FROM nn GROUP BY g),
cnt AS (SELECT g, ord, k, count(*) AS c FROM nn, unnest(arr) k GROUP BY g, ord, k),
per AS (SELECT g, k,
               CASE WHEN count(*) = max(n) THEN min(c) ELSE 0 END AS mn,  -- 0 where a row lacks k
               max(c) AS mx, sum(c) AS sm
        FROM cnt JOIN nrows USING (g) GROUP BY g, k)
SELECT gr.g, gr.label,
       CASE WHEN nr.n IS NOT NULL THEN coalesce(
           (SELECT array_agg(k ORDER BY k) FROM per, generate_series(1, mn) WHERE per.g = gr.g), '{}') END AS i,
       CASE WHEN nr.n IS NOT NULL THEN coalesce(
           (SELECT array_agg(k ORDER BY k) FROM per, generate_series(1, mx) WHERE per.g = gr.g), '{}') END AS u,
       CASE WHEN nr.n IS NOT NULL THEN coalesce(
           (SELECT array_agg(k ORDER BY k) FROM per, generate_series(1, sm) WHERE per.g = gr.g), '{}') END AS m,
       (SELECT coalesce(bool_and(k BETWEEN -2147483648 AND 2147483647), true)
        FROM agg_rows r, unnest(r.arr) k WHERE r.g = gr.g) AS fits4
FROM groups gr LEFT JOIN nrows nr USING (g);

CREATE TEMP TABLE got8 AS
SELECT g, array_intersect_agg(arr) AS i, array_union_agg(arr) AS u, array_merge_agg(arr) AS m
FROM agg_rows GROUP BY g;
CREATE TEMP TABLE got4 AS
SELECT g, array_intersect_agg(arr::int4[]) AS i, array_union_agg(arr::int4[]) AS u,
       array_merge_agg(arr::int4[]) AS m
FROM agg_rows WHERE g <> 9 GROUP BY g;

SELECT plan(4 + 3 * 13 + 3 * 12 + 6 + 6 + 4 + 6 + 9);

SELECT is((SELECT count(*) FROM agg_expect), 13::bigint, 'number of groups');
SELECT is((SELECT count(*) FROM agg_expect WHERE fits4), 12::bigint, 'number of int4 groups');
SELECT is((SELECT count(*) FROM agg_rows WHERE g = 1), 2000::bigint, 'group 1 has 2000 rows');
SELECT ok((SELECT cardinality(i) > 0 FROM agg_expect WHERE g = 2), 'group 2 has a non-empty intersection');

-- every group, every aggregate, both key types
SELECT pg_temp.arr_is(x.got, x.want, format('int8 %s: %s', x.agg, e.label))
FROM agg_expect e JOIN got8 r USING (g),
     LATERAL (VALUES ('array_intersect_agg', r.i, e.i), ('array_union_agg', r.u, e.u),
                     ('array_merge_agg', r.m, e.m)) AS x(agg, got, want)
ORDER BY e.g, x.agg;
SELECT pg_temp.arr_is(x.got, x.want::int4[], format('int4 %s: %s', x.agg, e.label))
FROM agg_expect e JOIN got4 r USING (g),
     LATERAL (VALUES ('array_intersect_agg', r.i, e.i), ('array_union_agg', r.u, e.u),
                     ('array_merge_agg', r.m, e.m)) AS x(agg, got, want)
WHERE e.fits4
ORDER BY e.g, x.agg;

-- zero rows: NULL
SELECT is(array_intersect_agg(arr), NULL, 'int8 array_intersect_agg of zero rows is NULL') FROM agg_rows WHERE false;
SELECT is(array_union_agg(arr), NULL, 'int8 array_union_agg of zero rows is NULL') FROM agg_rows WHERE false;
SELECT is(array_merge_agg(arr), NULL, 'int8 array_merge_agg of zero rows is NULL') FROM agg_rows WHERE false;
SELECT is(array_intersect_agg(arr::int4[]), NULL, 'int4 array_intersect_agg of zero rows is NULL') FROM agg_rows WHERE false;
SELECT is(array_union_agg(arr::int4[]), NULL, 'int4 array_union_agg of zero rows is NULL') FROM agg_rows WHERE false;
SELECT is(array_merge_agg(arr::int4[]), NULL, 'int4 array_merge_agg of zero rows is NULL') FROM agg_rows WHERE false;

-- input order does not matter
SELECT pg_temp.arr_is(array_union_agg(arr ORDER BY ord DESC), (SELECT u FROM agg_expect WHERE g = 1),
                      'array_union_agg, rows in reverse order') FROM agg_rows WHERE g = 1;
SELECT pg_temp.arr_is(array_merge_agg(arr ORDER BY md5(ord::text)), (SELECT m FROM agg_expect WHERE g = 1),
                      'array_merge_agg, rows shuffled') FROM agg_rows WHERE g = 1;
SELECT pg_temp.arr_is(array_intersect_agg(arr ORDER BY ord DESC), (SELECT i FROM agg_expect WHERE g = 2),
                      'array_intersect_agg, rows in reverse order') FROM agg_rows WHERE g = 2;
SELECT pg_temp.arr_is(array_union_agg(arr ORDER BY cardinality(arr), ord), (SELECT u FROM agg_expect WHERE g = 10),
                      'array_union_agg, smallest rows first') FROM agg_rows WHERE g = 10;
SELECT pg_temp.arr_is(array_merge_agg(arr::int4[] ORDER BY ord DESC), (SELECT m::int4[] FROM agg_expect WHERE g = 6),
                      'int4 array_merge_agg, long runs in reverse order') FROM agg_rows WHERE g = 6;
SELECT pg_temp.arr_is(array_union_agg(arr ORDER BY ord DESC), (SELECT u FROM agg_expect WHERE g = 11),
                      'array_union_agg, NULL rows first and last, reversed') FROM agg_rows WHERE g = 11;

-- the same aggregate twice in a query shares one transition state: the
-- final function runs twice on it
SELECT ok(x = y AND x = (SELECT u FROM agg_expect WHERE g = 1), 'array_union_agg twice in one query')
FROM (SELECT array_union_agg(arr) AS x, array_union_agg(arr) AS y FROM agg_rows WHERE g = 1) t;
SELECT ok(x = y AND x = (SELECT m FROM agg_expect WHERE g = 10), 'array_merge_agg twice in one query')
FROM (SELECT array_merge_agg(arr) AS x, array_merge_agg(arr) AS y FROM agg_rows WHERE g = 10) t;
SELECT ok(x = y AND x = (SELECT i FROM agg_expect WHERE g = 2), 'array_intersect_agg twice in one query')
FROM (SELECT array_intersect_agg(arr) AS x, array_intersect_agg(arr) AS y FROM agg_rows WHERE g = 2) t;
SELECT ok(x = y AND x = (SELECT u::int4[] FROM agg_expect WHERE g = 6), 'int4 array_union_agg twice in one query')
FROM (SELECT array_union_agg(arr::int4[]) AS x, array_union_agg(arr::int4[]) AS y FROM agg_rows WHERE g = 6) t;

-- window functions: running aggregates over group 1's first 300 rows
-- (NULL and empty rows included) and group 2, and a moving frame
CREATE TEMP TABLE win_rows AS
SELECT 1 AS g, ord, arr FROM agg_rows WHERE g = 1 AND ord <= 300
UNION ALL SELECT 2, ord, arr FROM agg_rows WHERE g = 2;
CREATE TEMP TABLE win_cnt AS
SELECT g, ord, k, count(*) AS c FROM win_rows, unnest(arr) k GROUP BY g, ord, k;
-- running reference: rows ord' <= ord (lo = 1) or ord - 2 <= ord' <= ord
CREATE FUNCTION pg_temp.win_ref(grp int, moving boolean)
RETURNS TABLE (ord int, i int8[], u int8[], m int8[]) LANGUAGE sql AS $$
    WITH fr AS (SELECT w.ord AS upto, r.ord
                FROM win_rows w JOIN win_rows r USING (g)
                WHERE w.g = grp AND r.ord <= w.ord
                  AND (NOT moving OR r.ord >= w.ord - 2) AND r.arr IS NOT NULL),
    nrows AS (SELECT upto, count(*) AS n FROM fr GROUP BY upto),
    per AS (SELECT fr.upto, c.k, CASE WHEN count(*) = max(n.n) THEN min(c.c) ELSE 0 END AS mn,
                   max(c.c) AS mx, sum(c.c) AS sm
            FROM fr JOIN win_cnt c ON c.g = grp AND c.ord = fr.ord JOIN nrows n USING (upto)
            GROUP BY fr.upto, c.k)
    SELECT w.ord,
           CASE WHEN n.n IS NOT NULL THEN coalesce((SELECT array_agg(k ORDER BY k) FROM per, generate_series(1, mn) WHERE per.upto = w.ord), '{}') END,
           CASE WHEN n.n IS NOT NULL THEN coalesce((SELECT array_agg(k ORDER BY k) FROM per, generate_series(1, mx) WHERE per.upto = w.ord), '{}') END,
           CASE WHEN n.n IS NOT NULL THEN coalesce((SELECT array_agg(k ORDER BY k) FROM per, generate_series(1, sm) WHERE per.upto = w.ord), '{}') END
    FROM win_rows w LEFT JOIN nrows n ON n.upto = w.ord
    WHERE w.g = grp
$$;
CREATE TEMP TABLE win_expect AS
SELECT 1 AS g, false AS moving, * FROM pg_temp.win_ref(1, false)
UNION ALL SELECT 2, false, * FROM pg_temp.win_ref(2, false)
UNION ALL SELECT 1, true, * FROM pg_temp.win_ref(1, true);

SELECT results_eq(
    'SELECT ord, array_union_agg(arr) OVER (ORDER BY ord) FROM win_rows WHERE g = 1 ORDER BY ord',
    'SELECT ord, u FROM win_expect WHERE g = 1 AND NOT moving ORDER BY ord',
    'array_union_agg OVER (ORDER BY ord): running union, NULL and empty rows included');
SELECT results_eq(
    'SELECT ord, array_union_agg(arr::int4[]) OVER (ORDER BY ord) FROM win_rows WHERE g = 1 ORDER BY ord',
    'SELECT ord, u::int4[] FROM win_expect WHERE g = 1 AND NOT moving ORDER BY ord',
    'int4 array_union_agg OVER (ORDER BY ord): running union');
SELECT results_eq(
    'SELECT ord, array_merge_agg(arr) OVER (ORDER BY ord) FROM win_rows WHERE g = 1 ORDER BY ord',
    'SELECT ord, m FROM win_expect WHERE g = 1 AND NOT moving ORDER BY ord',
    'array_merge_agg OVER (ORDER BY ord): running merge');
SELECT results_eq(
    'SELECT ord, array_intersect_agg(arr) OVER (ORDER BY ord) FROM win_rows WHERE g = 2 ORDER BY ord',
    'SELECT ord, i FROM win_expect WHERE g = 2 AND NOT moving ORDER BY ord',
    'array_intersect_agg OVER (ORDER BY ord): running intersection');
SELECT results_eq(
    $$SELECT ord, array_union_agg(arr) OVER w, array_merge_agg(arr) OVER w, array_intersect_agg(arr) OVER w
      FROM win_rows WHERE g = 1 WINDOW w AS (ORDER BY ord ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) ORDER BY ord$$,
    'SELECT ord, u, m, i FROM win_expect WHERE g = 1 AND moving ORDER BY ord',
    'all three aggregates over a moving frame of 3 rows');
SELECT results_eq(
    $$SELECT g, ord, array_union_agg(arr) OVER (PARTITION BY g ORDER BY ord) FROM win_rows ORDER BY g, ord$$,
    'SELECT g, ord, u FROM win_expect WHERE NOT moving ORDER BY g, ord',
    'array_union_agg OVER (PARTITION BY g ORDER BY ord)');

-- bad rows raise errors, also once an intersection is already empty
SELECT throws_like(
    $$SELECT array_union_agg(x) FROM (VALUES (1, '{1,2}'::int4[]), (2, '{3,1}')) t(o, x)$$,
    '%array_union_agg: argument 1 is not sorted ascending at position 2%',
    'array_union_agg rejects an unsorted row');
SELECT throws_like(
    $$SELECT array_merge_agg(x ORDER BY o) FROM (VALUES (1, '{1,2}'::int8[]), (2, '{1,5,9,9,8}')) t(o, x)$$,
    '%array_merge_agg: argument 1 is not sorted ascending at position 5%',
    'array_merge_agg rejects an unsorted row');
SELECT throws_like(
    $$SELECT array_intersect_agg(x ORDER BY o) FROM (VALUES (1, '{1,2}'::int4[]), (2, '{3}'), (3, '{5,4}')) t(o, x)$$,
    '%array_intersect_agg: argument 1 is not sorted ascending at position 2%',
    'array_intersect_agg rejects an unsorted row after the intersection became empty');
SELECT throws_like(
    $$SELECT array_intersect_agg(x ORDER BY o) FROM (VALUES (1, '{}'::int4[]), (2, '{2,1}')) t(o, x)$$,
    '%array_intersect_agg: argument 1 is not sorted ascending at position 2%',
    'array_intersect_agg rejects an unsorted row after an empty row');
SELECT throws_like(
    $$SELECT array_union_agg(x) FROM (VALUES ('{1,2}'::int8[]), ('{3,NULL}')) t(x)$$,
    '%must not contain nulls%',
    'array_union_agg rejects a row with a NULL element');
SELECT throws_like(
    $$SELECT array_merge_agg(x) FROM (VALUES ('{{1,2},{3,4}}'::int4[])) t(x)$$,
    '%must be a one-dimensional array%',
    'array_merge_agg rejects a two-dimensional row');
-- non-1 lower bounds in rows are fine
SELECT is(array_union_agg(x), '{1,2,2,3}', 'array_union_agg of rows with lower bounds other than 1')
FROM (VALUES ('[5:6]={1,2}'::int4[]), ('[-2:0]={2,2,3}')) t(x);
SELECT is(array_merge_agg(x), '{1,2,2,2,3}', 'array_merge_agg of rows with lower bounds other than 1')
FROM (VALUES ('[5:6]={1,2}'::int8[]), ('[-2:0]={2,2,3}')) t(x);
SELECT is(array_lower(array_intersect_agg(x), 1), 1, 'array_intersect_agg result has lower bound 1')
FROM (VALUES ('[5:7]={1,2,3}'::int4[]), ('[9:11]={1,2,3}')) t(x);

SELECT * FROM finish();
ROLLBACK;
