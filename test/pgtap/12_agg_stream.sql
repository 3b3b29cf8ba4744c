-- 12_agg_stream.sql: array_union_agg and array_merge_agg whose rows stream
-- to the GPU as they come (setops.agg_stream_min_size, exec/aggregate.c and
-- service/client_stage.c), against a reference that does not use the extension:
-- per key, the maximum (union) and the sum (merge) of its copies over the
-- non-NULL rows.
--
-- Streams are forced from the first row (agg_stream_min_size = 0), or from
-- the middle of a group (1 MB).  With the GPU service's slots of the CI
-- cluster (8 MB, halves of 4 MB) the larger groups cross many halves, and
-- the device stage grows several times.  Also: sorted GROUP BY (each group
-- streams in turn, its slot given back at its final function), two
-- aggregates in one query (one stream a backend: the other keeps its rows
-- in memory), a LIMIT over groups, an ERROR and a cancel mid-
-- stream (the slot must come back: the next aggregate streams again),
-- packed rows, window aggregates and parallel aggregation.  The same rows
-- stored uncompressed out of line (stored12) are read from their TOAST
-- chunks straight into the slot; bad stored rows give the usual errors.
--
-- Where rows stream: setops.device = gpu (the service, or its emulation in
-- CI).  Under cpu nothing streams (checked); under auto it depends on
-- setops.gpu_min_elements and on the service, so those checks are skipped.
BEGIN;
\ir reference.psql

SELECT setseed(0.1212);
SET LOCAL setops.agg_stream_min_size = 0;
SET LOCAL max_parallel_workers_per_gather = 0;
SET LOCAL enable_hashagg = off;

-- Rows: g, ord, arr (int8[]; NULL and empty rows mixed in).  Not a
-- temporary table: parallel workers do not scan those (rolled back).
CREATE TABLE rows12 (g int NOT NULL, ord int NOT NULL, arr int8[], PRIMARY KEY (g, ord));
-- 1: 3000 rows of up to 2000 keys with duplicates: 24 MB as int8
INSERT INTO rows12
SELECT 1, o, CASE WHEN x < 0.03 THEN NULL WHEN x < 0.05 THEN '{}'
                  ELSE pg_temp.rand_sorted(floor(random() * 2000)::int, 0, 50000) END
FROM (SELECT o, random() AS x FROM generate_series(1, 3000) o) t;
-- 2: int8 extremes
INSERT INTO rows12 SELECT 2, o, pg_temp.rand_extreme(floor(random() * 40)::int, 64) FROM generate_series(1, 500) o;
-- 3: int4 extremes
INSERT INTO rows12 SELECT 3, o, pg_temp.rand_extreme(floor(random() * 40)::int, 32) FROM generate_series(1, 500) o;
-- 4: long runs of one key crossing every piece: 300 rows of 5000 copies of 7
INSERT INTO rows12 SELECT 4, o, array_fill(7::int8, ARRAY[5000]) FROM generate_series(1, 300) o;
-- 5..9: five groups of 200 rows (sorted GROUP BY)
INSERT INTO rows12
SELECT g, o, pg_temp.rand_sorted(floor(random() * 3000)::int, 0, 100000)
FROM generate_series(5, 9) g, generate_series(1, 200) o;
-- 20, 21: int8 and int4 extremes in rows long enough to be stored out of line
INSERT INTO rows12 SELECT 20, o, pg_temp.rand_extreme(3000, 64) FROM generate_series(1, 60) o;
INSERT INTO rows12 SELECT 21, o, pg_temp.rand_extreme(3000, 32) FROM generate_series(1, 60) o;
-- 22: one row of 1.2M keys, more than half a CI slot holds, among rows of 5000
INSERT INTO rows12 SELECT 22, o, pg_temp.rand_sorted(5000, 0, 2400000) FROM generate_series(1, 20) o;
INSERT INTO rows12 SELECT 22, 21, ARRAY(SELECT generate_series(0, 2399998, 2)::int8);
ANALYZE rows12;

-- The same rows stored out of line without compression (STORAGE
-- EXTERNAL), as int8[] and int4[]: a streaming state reads those from
-- their TOAST chunks straight into its slot (setops_read_stored_into);
-- short rows stay inline and are read as usual, in the same groups.
-- 23..25: one bad row each, after group 1's rows, for the errors.
CREATE TABLE stored12 (g int NOT NULL, ord int NOT NULL, arr int8[], arr4 int4[], PRIMARY KEY (g, ord));
ALTER TABLE stored12 ALTER COLUMN arr SET STORAGE EXTERNAL, ALTER COLUMN arr4 SET STORAGE EXTERNAL;
-- (arr || '{}' is the value decompressed: one compressed already would stay so)
INSERT INTO stored12
SELECT g, ord, arr || '{}'::int8[], CASE WHEN g NOT IN (2, 20) THEN arr::int4[] END
FROM rows12 WHERE g IN (1, 4, 20, 21, 22);
WITH k AS (SELECT ARRAY(SELECT generate_series(1, 2499)::int8) AS lo, ARRAY(SELECT generate_series(2501, 3000)::int8) AS hi)
INSERT INTO stored12
SELECT 23, 1, lo || 0::int8 || hi, (lo || 0::int8 || hi)::int4[] FROM k     -- unsorted at 2500
UNION ALL SELECT 24, 1, lo || NULL::int8 || hi, (lo || NULL::int8 || hi)::int4[] FROM k -- NULL at 2500
UNION ALL SELECT 25, 1, ARRAY[lo, lo], ARRAY[lo, lo]::int4[] FROM k;            -- 2 dimensions
ANALYZE stored12;

-- The reference, per group: union and merge as counts.
CREATE TEMP TABLE expect12 AS
WITH cnt AS (SELECT g, ord, k, count(*) AS c FROM rows12, unnest(arr) k GROUP BY g, ord, k),
per AS (SELECT g, k, max(c) AS mx, sum(c) AS sm FROM cnt GROUP BY g, k),
arrs AS (SELECT g, array_agg(k ORDER BY k) FILTER (WHERE i <= mx) AS u, array_agg(k ORDER BY k) AS m
         FROM per, generate_series(1, sm) i GROUP BY g)
SELECT g, coalesce(u, '{}') AS u, coalesce(m, '{}') AS m
FROM (SELECT DISTINCT g FROM rows12) gs LEFT JOIN arrs USING (g);

-- Did the last aggregate's final function reduce streamed rows?  NULL:
-- not known under this setops.device.
CREATE FUNCTION pg_temp.streamed() RETURNS bool LANGUAGE sql AS $$
    SELECT CASE current_setting('setops.device') WHEN 'gpu' THEN streamed_rows > 0
                WHEN 'cpu' THEN streamed_rows = 0 END
    FROM setops_last_timing()
$$;
-- ok() on a check that is NULL where it cannot be known.
CREATE FUNCTION pg_temp.ok_where_known(b bool, what text) RETURNS text LANGUAGE sql AS $$
    SELECT CASE WHEN b IS NULL THEN skip('streaming depends on the GPU service under setops.device = auto', 1)
                ELSE ok(b, what) END
$$;

CREATE TEMP TABLE got (what text PRIMARY KEY, g int, x int8[], streamed bool);
CREATE FUNCTION pg_temp.got(what text, g int, q text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    x int8[];
BEGIN
    EXECUTE q INTO x;
    INSERT INTO got VALUES (what, g, x, pg_temp.streamed());
END $$;

-- Was q cancelled?  (throws_ok does not catch a cancel.)
CREATE FUNCTION pg_temp.cancelled(q text) RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN false;
EXCEPTION WHEN query_canceled THEN
    RETURN true;
END $$;

SELECT plan(63);

-- union and merge of each group alone, int8 and int4
SELECT pg_temp.got(format('%s %s int8', op, g), g,
                   format('SELECT array_%s_agg(arr) FROM rows12 WHERE g = %s', op, g))
FROM generate_series(1, 4) g, unnest('{union,merge}'::text[]) op;
SELECT pg_temp.got(format('%s %s int4', op, g), g,
                   format('SELECT array_%s_agg(arr::int4[])::int8[] FROM rows12 WHERE g = %s', op, g))
FROM (VALUES (1), (3), (4)) v(g), unnest('{union,merge}'::text[]) op;
-- the same of the rows stored uncompressed out of line (a test hook of the
-- library counts the rows taken straight from their TOAST chunks)
CREATE FUNCTION pg_temp.stored_rows_taken() RETURNS int8
    AS '$libdir/setops', 'setops_test_stored_rows_taken' LANGUAGE C STRICT;
SELECT pg_temp.stored_rows_taken() AS taken_before \gset
SELECT pg_temp.got(format('stored %s %s int8', op, g), g,
                   format('SELECT array_%s_agg(arr) FROM stored12 WHERE g = %s', op, g))
FROM (VALUES (1), (4), (20), (21), (22)) v(g), unnest('{union,merge}'::text[]) op;
SELECT pg_temp.got(format('stored %s %s int4', op, g), g,
                   format('SELECT array_%s_agg(arr4)::int8[] FROM stored12 WHERE g = %s', op, g))
FROM (VALUES (1), (4), (21), (22)) v(g), unnest('{union,merge}'::text[]) op;
SELECT pg_temp.ok_where_known(
    CASE current_setting('setops.device')
        WHEN 'gpu' THEN pg_temp.stored_rows_taken() - :taken_before > 2000
        WHEN 'cpu' THEN pg_temp.stored_rows_taken() = :taken_before END,
    'stored rows taken straight from their TOAST chunks (gpu), none (cpu)');
SELECT ok(bool_and(pg_column_compression(arr) IS NULL AND pg_column_compression(arr4) IS NULL) AND
          count(*) FILTER (WHERE pg_column_size(arr) > 2100) > 2000 AND
          count(*) FILTER (WHERE pg_column_size(arr4) > 2100) > 2000,
          'stored12: rows uncompressed, most long enough to be out of line')
FROM stored12;

SELECT is(x, CASE WHEN what LIKE '%union%' THEN e.u ELSE e.m END, what || ': the reference''s answer')
FROM got JOIN expect12 e USING (g) ORDER BY what;
SELECT pg_temp.ok_where_known(bool_and(streamed), 'every one of them streamed (gpu) or did not (cpu)')
FROM got;

-- a stream that starts mid-group: 1 MB is passed after a few hundred rows
SET LOCAL setops.agg_stream_min_size = 1;
SELECT is(array_union_agg(arr), (SELECT u FROM expect12 WHERE g = 1), 'union streaming from 1 MB on')
FROM rows12 WHERE g = 1;
SELECT pg_temp.ok_where_known(pg_temp.streamed(), 'it streamed');
SELECT is(array_merge_agg(arr), (SELECT m FROM expect12 WHERE g = 1), 'merge streaming from 1 MB on')
FROM rows12 WHERE g = 1;
SELECT is(array_union_agg(arr), (SELECT u FROM expect12 WHERE g = 2), 'a group under 1 MB')
FROM rows12 WHERE g = 2;
SELECT ok(streamed_rows = 0, 'does not stream') FROM setops_last_timing();
SET LOCAL setops.agg_stream_min_size = 0;

-- sorted GROUP BY: each group streams in turn
SELECT results_eq(
    $$SELECT g, array_union_agg(arr), array_merge_agg(arr) FROM rows12 WHERE g >= 5 GROUP BY g ORDER BY g$$,
    $$SELECT g, u, m FROM expect12 WHERE g >= 5 ORDER BY g$$,
    'sorted GROUP BY, two aggregates in one query: every group right');
SELECT alike(pg_temp.plan_of($$SELECT g, array_union_agg(arr) FROM rows12 GROUP BY g$$),
            '%GroupAggregate%', 'that was a GroupAggregate');

-- a LIMIT over groups (the first row of the next group is read, not
-- aggregated), then a stream again
SELECT results_eq(
    $$SELECT g, u FROM (SELECT g, array_union_agg(arr) AS u FROM rows12 WHERE g >= 5 GROUP BY g ORDER BY g) s LIMIT 1$$,
    $$SELECT g, u FROM expect12 WHERE g = 5$$,
    'LIMIT 1 over groups');
SELECT is(array_union_agg(arr), (SELECT u FROM expect12 WHERE g = 6), 'the next aggregate')
FROM rows12 WHERE g = 6;
SELECT pg_temp.ok_where_known(pg_temp.streamed(), 'streams: the stopped group gave its slot back');

-- an ERROR mid-stream (an unsorted row), then a stream again
SELECT throws_ok(
    $$SELECT array_union_agg(CASE WHEN ord = 150 THEN '{5,3}'::int8[] ELSE arr END) FROM rows12 WHERE g = 7$$,
    '22023', NULL, 'an unsorted row mid-stream: ERROR');
SELECT is(array_merge_agg(arr), (SELECT m FROM expect12 WHERE g = 7), 'the next aggregate')
FROM rows12 WHERE g = 7;
SELECT pg_temp.ok_where_known(pg_temp.streamed(), 'streams: the failed one gave its slot back');

-- a bad stored row mid-stream: the ERROR the row read as usual gives
SELECT throws_ok(format('SELECT array_union_agg(%s) FROM stored12 WHERE g IN (1, 23)', col),
                 '22023', 'array_union_agg: argument 1 is not sorted ascending at position 2500',
                 'a stored unsorted row mid-stream, ' || col)
FROM unnest('{arr,arr4}'::text[]) col;
SELECT throws_ok('SELECT array_merge_agg(arr) FROM stored12 WHERE g IN (1, 24)',
                 '22004', 'array_merge_agg: argument 1 must not contain nulls',
                 'a stored row with a NULL mid-stream');
SELECT throws_ok('SELECT array_union_agg(arr4) FROM stored12 WHERE g IN (1, 25)',
                 '22023', 'array_union_agg: argument 1 must be a one-dimensional array',
                 'a stored two-dimensional row mid-stream');
SELECT is(array_union_agg(arr), (SELECT u FROM expect12 WHERE g = 1), 'the next aggregate')
FROM stored12 WHERE g = 1;
SELECT pg_temp.ok_where_known(pg_temp.streamed(), 'streams: the failed ones gave their slot back');

-- a cancel mid-stream (statement_timeout while a row sleeps), then a stream again
SET LOCAL statement_timeout = '300ms';
SELECT ok(pg_temp.cancelled(
    $$SELECT array_union_agg(CASE WHEN ord = 100 THEN (SELECT arr FROM pg_sleep(3)) ELSE arr END) FROM rows12 WHERE g = 8$$),
    'a cancel mid-stream');
SET LOCAL statement_timeout = 0;
SELECT is(array_union_agg(arr), (SELECT u FROM expect12 WHERE g = 8), 'the next aggregate')
FROM rows12 WHERE g = 8;
SELECT pg_temp.ok_where_known(pg_temp.streamed(), 'streams: the cancelled one gave its slot back');

-- packed rows: the final reduces on the device into the state, then packs
SELECT is(array_unpack(array_union_agg(array_pack(arr::int4[]))), (SELECT u::int4[] FROM expect12 WHERE g = 9),
          'union of packed rows')
FROM rows12 WHERE g = 9;
SELECT is(array_unpack(array_merge_agg(array_pack(arr::int4[]))), (SELECT m::int4[] FROM expect12 WHERE g = 9),
          'merge of packed rows')
FROM rows12 WHERE g = 9;

-- a window aggregate (never streams) over a whole group
SELECT is(u, (SELECT u FROM expect12 WHERE g = 5), 'window aggregate over a group')
FROM (SELECT array_union_agg(arr) OVER (PARTITION BY g) AS u FROM rows12 WHERE g = 5) s LIMIT 1;

-- parallel aggregation: workers' states stream, then reduce on the device to flatten
SET LOCAL max_parallel_workers_per_gather = 2;
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL enable_indexscan = off;
SET LOCAL enable_bitmapscan = off;
SET LOCAL parallel_leader_participation = off;
SELECT is(array_union_agg(arr), (SELECT u FROM expect12 WHERE g = 1), 'parallel union')
FROM rows12 WHERE g = 1;
SELECT is(array_merge_agg(arr), (SELECT m FROM expect12 WHERE g = 1), 'parallel merge')
FROM rows12 WHERE g = 1;
SELECT alike(pg_temp.plan_of($$SELECT array_union_agg(arr) FROM rows12 WHERE g = 1$$),
            '%Partial Aggregate%', 'that was a parallel aggregate');

SELECT * FROM finish();
ROLLBACK;
