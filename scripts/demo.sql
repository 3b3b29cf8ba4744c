-- demo.sql: what setops does, in a few screens (run by scripts/demo.sh on a
-- throwaway cluster with setops preloaded: the GPU service runs, and a GPU
-- shows where there is one).  Any error stops it, and every answer shown
-- beside another (index and scan, intarray, the CPU engine and the GPU) is
-- compared: a difference is an error.
\set ON_ERROR_STOP 1
CREATE EXTENSION setops;
\pset footer off
CREATE FUNCTION pg_temp.check(ok bool, what text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    IF ok IS NOT TRUE THEN
        RAISE EXCEPTION 'demo: % differ', what;
    END IF;
    RETURN 'same: ' || what;
END $$;

\echo
\echo '== 1. GPUs setops can use (none is fine: the CPU engine answers)'
SELECT * FROM setops_devices();
SHOW setops.device;

\echo
\echo '== 2. Multisets: the i-th copy of a key in a pairs with the i-th copy in b'
CREATE TEMP TABLE demo AS SELECT
  '{1,1,3,5,7,7,8,9,10,10,10,11,12,13,14,15,16,16,16,16,17,18,19,20,21,21,25,25,28,29,29,29,31,31,31,31,32,33,33,35,36,38,39,40,40,42,44,45,46,47,47,51,51,53,53,53,55,55,56,57,58,59,59,59,60,61,62,62,63,63,64,68,68,70,70,72,73,73,75,78,79,82,82,83,84,85,85,85,86,87,89,91,91,91,92,95,97,98,98,98}'::int4[] AS a,
  '{1,2,2,3,5,6,6,9,9,10,10,10,11,12,12,12,13,13,15,16,16,17,17,18,21,21,22,24,25,25,29,29,31,32,32,32,33,35,35,37,39,39,40,41,41,42,42,44,45,46,46,47,48,49,50,50,51,52,52,53,54,54,54,55,56,57,59,60,65,65,66,66,66,67,68,68,70,72,74,74,74,74,74,75,76,76,80,82,89,89,90,92,92,93,93,95,95,96,97,98}'::int4[] AS b;
\x on
SELECT a, b,
       array_intersect_gpu(a, b)  AS intersection,
       array_union_gpu(a, b)      AS "union",
       array_difference_gpu(a, b) AS difference,
       array_symdiff_gpu(a, b)    AS symmetric_difference
FROM demo;

\echo
\echo '== Pairs: values travel with their keys (here: source positions, a 0..99, b 100..199)'
SELECT p.keys AS symdiff_keys, p.vals AS symdiff_positions
FROM demo, array_symdiff_gpu(a, array(SELECT generate_series(0, 99)),
                             b, array(SELECT generate_series(100, 199))) p;
\x off

\echo
\echo '== 3. Counts and similarity, without building a result'
SELECT array_intersect_count(a, b) AS intersect_count, array_union_count(a, b) AS union_count,
       round(array_jaccard(a, b)::numeric, 4) AS jaccard,
       array_overlaps(a, b) AS overlaps, array_contains(a, '{1,1,7,7}') AS "a @> {1,1,7,7}",
       array_contains(a, '{1,1,1}') AS "a @> {1,1,1}"
FROM demo;
SELECT pg_temp.check(array_intersect_count(a, b) = cardinality(array_intersect_gpu(a, b))
                     AND array_jaccard(a, b) = array_intersect_count(a, b)::float8 / array_union_count(a, b),
                     'counts and the arrays they count') AS "check"
FROM demo;

\echo
\echo '== 4. A packed column (compressed sorted keys) with a GIN index, queried with @>'
CREATE TABLE segments (id int PRIMARY KEY, members packed_int4);
SELECT setseed(0.42) \gset
INSERT INTO segments		-- 50 keys in a pattern of the row's, and 1000 at random
SELECT s, array(SELECT DISTINCT x FROM (SELECT (s % 10) * 1000 + k * (1 + s % 7) FROM generate_series(0, 49) k
                                       UNION ALL
                                       SELECT floor(random() * 1000000)::int FROM generate_series(1, 1000)) v(x)
                ORDER BY 1)
FROM generate_series(1, 10000) s;
CREATE INDEX segments_members ON segments USING gin (members);
ANALYZE segments;
SELECT count(*) AS rows, pg_size_pretty(sum(pg_column_size(members))) AS packed,
       pg_size_pretty(sum(pg_column_size(members::int4[]))) AS as_int4_arrays
FROM segments;
EXPLAIN (COSTS OFF) SELECT id FROM segments WHERE members @> '{3000, 3035}';
CREATE TEMP TABLE found AS SELECT id FROM segments WHERE members @> '{3000, 3035}';
SELECT count(*) AS "rows with 3000 and 3035", min(id), max(id) FROM found;
SET enable_bitmapscan = off;
SET enable_indexscan = off;
SELECT pg_temp.check((SELECT array_agg(id ORDER BY id) FROM found) =
                     array_agg(id ORDER BY id), 'the index''s rows and a sequential scan''s') AS "check"
FROM segments WHERE members @> '{3000, 3035}';
RESET enable_bitmapscan;
RESET enable_indexscan;

\echo
\echo '== 5. Aggregates: the union, the intersection and the sum of multisets over rows'
SELECT array_union_agg(x) AS union_agg, array_intersect_agg(x) AS intersect_agg,
       array_merge_agg(x) AS merge_agg
FROM (VALUES ('{1,2,2,9}'::int4[]), ('{2,2,3}'), ('{2,9,9}')) v(x);
SELECT id % 4 AS "group", cardinality(array_union_agg(members)) AS distinct_members,
       cardinality(array_merge_agg(members)) AS memberships
FROM segments GROUP BY 1 ORDER BY 1;
SELECT array_sort_gpu('{5,3,9,3,1}'::int8[]) AS sorted, array_distinct_gpu('{5,3,9,3,1}'::int8[]) AS distinct_keys;

\echo
\echo '== 6. Timing: the same query on the same data, intarray beside setops on the CPU engine and the GPU'
\echo '   two random sorted int4 arrays in PL/pgSQL variables, no duplicates (intarray has set semantics),'
\echo '   a quarter of the keys in both; ms, median of 5 runs after one warm-up; every answer compared'
CREATE FUNCTION pg_temp.demo_timing()
RETURNS TABLE (query text, keys_each int, intarray_ms text, cpu_ms text, gpu_ms text, answer bigint)
LANGUAGE plpgsql AS $$
DECLARE
    n int;
    a int4[];
    b int4[];
    r int4[];
    ref int4[];
    c int8;
    t timestamptz;
    engine text;
    ms float8[];
    med text[];
    have_intarray bool := EXISTS (SELECT FROM pg_available_extensions WHERE name = 'intarray');
    gpus int := (SELECT count(*) FROM setops_devices());
    q text;
BEGIN
    IF have_intarray THEN
        CREATE EXTENSION IF NOT EXISTS intarray;
    END IF;
    FOREACH n IN ARRAY '{100000,1000000,4000000}'::int[] LOOP
        SELECT array_agg((i * 4 + floor(random() * 4))::int4 ORDER BY i) INTO a FROM generate_series(0, n - 1) i;
        SELECT array_agg((i * 4 + floor(random() * 4))::int4 ORDER BY i) INTO b FROM generate_series(0, n - 1) i;
        -- the reference answer, in plain SQL
        SELECT array_agg(x ORDER BY x) INTO ref FROM (SELECT unnest(a) INTERSECT ALL SELECT unnest(b)) s(x);
        IF coalesce(cardinality(ref), 0) = 0 OR a[1] = a[n] THEN
            RAISE EXCEPTION 'demo: the timing data is degenerate';
        END IF;
        FOREACH q IN ARRAY '{intersection,intersection count}'::text[] LOOP
            med := '{}';
            FOREACH engine IN ARRAY '{intarray,cpu,gpu}'::text[] LOOP
                IF engine = 'intarray' AND NOT have_intarray THEN
                    med := med || 'not installed'::text;
                    CONTINUE;
                ELSIF engine = 'gpu' AND gpus = 0 THEN
                    med := med || 'no GPU'::text;
                    CONTINUE;
                END IF;
                IF engine <> 'intarray' THEN
                    PERFORM set_config('setops.device', engine, true);
                END IF;
                ms := '{}';
                FOR k IN 0 .. 5 LOOP		-- run 0 warms up (the GPU service's first call)
                    t := clock_timestamp();
                    IF q = 'intersection' THEN
                        IF engine = 'intarray' THEN
                            EXECUTE 'SELECT $1 OPERATOR(public.&) $2' INTO r USING a, b;
                        ELSE
                            r := array_intersect_gpu(a, b);
                        END IF;
                    ELSE
                        IF engine = 'intarray' THEN
                            EXECUTE 'SELECT public.icount($1 OPERATOR(public.&) $2)' INTO c USING a, b;
                        ELSE
                            c := array_intersect_count(a, b);
                        END IF;
                    END IF;
                    IF k > 0 THEN
                        ms := ms || extract(epoch FROM clock_timestamp() - t) * 1000;
                    END IF;
                END LOOP;
                IF q = 'intersection' AND r IS DISTINCT FROM ref THEN
                    RAISE EXCEPTION 'demo: % answered a different intersection of % keys', engine, n;
                ELSIF q <> 'intersection' AND c IS DISTINCT FROM cardinality(ref) THEN
                    RAISE EXCEPTION 'demo: % counted % where the reference has %', engine, c, cardinality(ref);
                END IF;
                med := med || to_char((SELECT x FROM unnest(ms) x ORDER BY x OFFSET 2 LIMIT 1), 'FM99990.00');
            END LOOP;
            query := CASE q WHEN 'intersection' THEN 'a & b / array_intersect_gpu'
                            ELSE 'icount(a & b) / array_intersect_count' END;
            keys_each := n;
            intarray_ms := med[1];
            cpu_ms := med[2];
            gpu_ms := med[3];
            answer := cardinality(ref);
            RETURN NEXT;
        END LOOP;
    END LOOP;
    PERFORM set_config('setops.device', 'auto', true);
END $$;
SET client_min_messages = warning;	-- (setops_devices() said why there is no GPU in 1.)
SELECT * FROM pg_temp.demo_timing();
RESET client_min_messages;
\echo 'every answer above matched a reference in plain SQL (INTERSECT ALL)'
