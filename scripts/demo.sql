-- demo.sql: what setops does, on the arrays of the moderngpu Multisets demo.
CREATE EXTENSION setops;
\pset footer off

\echo
\echo '== GPUs setops can use (none is fine: the CPU engine answers)'
SELECT * FROM setops_devices();
SHOW setops.device;

\echo
\echo '== Multisets: the i-th copy of a key in a pairs with the i-th copy in b'
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
\echo '== Aggregates, sorting'
SELECT array_union_agg(x) AS union_agg, array_intersect_agg(x) AS intersect_agg,
       array_merge_agg(x) AS merge_agg
FROM (VALUES ('{1,2,2,9}'::int4[]), ('{2,2,3}'), ('{2,9,9}')) v(x);
SELECT array_sort_gpu('{5,3,9,3,1}'::int8[]) AS sorted, array_distinct_gpu('{5,3,9,3,1}'::int8[]) AS distinct_keys;

\echo
\echo '== Timing: array_intersect_gpu on random sorted int4 arrays held in PL/pgSQL variables (median of 3, ms)'
CREATE FUNCTION pg_temp.demo_timing()
RETURNS TABLE (elements int, cpu_ms text, gpu_ms text)
LANGUAGE plpgsql AS $$
DECLARE
    n int;
    a int4[];
    b int4[];
    r int4[];
    t timestamptz;
    dev text;
    ms float8[];
    med text[];
    gpus int := (SELECT count(*) FROM setops_devices());
BEGIN
    FOREACH n IN ARRAY '{65536,1000000,4000000}'::int[] LOOP
        SELECT array_agg((i * 4 + floor(random() * 4))::int4 ORDER BY i) INTO a FROM generate_series(0, n - 1) i;
        SELECT array_agg((i * 4 + floor(random() * 4))::int4 ORDER BY i) INTO b FROM generate_series(0, n - 1) i;
        med := '{}';
        FOREACH dev IN ARRAY '{cpu,gpu}'::text[] LOOP
            IF dev = 'gpu' AND gpus = 0 THEN
                med := med || 'no GPU'::text;
                CONTINUE;
            END IF;
            PERFORM set_config('setops.device', dev, true);
            r := array_intersect_gpu(a, b);		-- warm-up (CUDA starts on the first GPU call)
            ms := '{}';
            FOR k IN 1 .. 3 LOOP
                t := clock_timestamp();
                r := array_intersect_gpu(a, b);
                ms := ms || extract(epoch FROM clock_timestamp() - t) * 1000;
            END LOOP;
            med := med || to_char((SELECT x FROM unnest(ms) x ORDER BY x OFFSET 1 LIMIT 1), 'FM9990.000');
        END LOOP;
        elements := 2 * n;
        cpu_ms := med[1];
        gpu_ms := med[2];
        RETURN NEXT;
    END LOOP;
    PERFORM set_config('setops.device', 'auto', true);
END $$;
SELECT * FROM pg_temp.demo_timing();
