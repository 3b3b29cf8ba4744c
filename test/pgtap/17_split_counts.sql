-- 17_split_counts.sql: counts and predicates of stored arrays large enough
-- to be cut over several GPUs (extension/service/worker_split.c), against
-- the SQL reference (reference.psql: the key-rank definition).  Each
-- pair is stored out of line (the GPU service's device cache), int4 and
-- int8, and counted twice with each function: the first call puts the
-- arrays in the cache, the second, with every device idle, may cut the
-- count at split points taken when they were put (a new key starting on
-- an aligned position; engine/common/count_split.h).  Inputs: runs of up
-- to 1,500 copies of a key (the cuts fall between runs, and a part's
-- bracket of the other array straddles runs), one array a single key
-- repeated (it has no split point: the other is cut, and each part reads
-- all of it), both a single key (nothing to cut at), the types' extremes
-- (random, and long runs of the int8 limits around spread keys),
-- disjoint ranges, a sub-multiset and one copy short.
--
-- Mode-independent: answers are checked under any setops.device.  Where
-- the service has two devices and setops.service_split_min_elements lets
-- these sizes split, and each device's cache has room for the pairs (a
-- count is cut only where its arrays fit without evicting), every second
-- call that went to a GPU on a pair that can be cut must have been cut
-- (the reason setops_last_timing() gives; predicates the CPU answers at
-- once, a larger multiset within a smaller, go to no GPU), and no call on
-- the single-key pair.  CI runs
-- it so (scripts/test.sh: two emulated devices, a cache with room, the
-- threshold at 50000, setops_tests.split_must_apply = on); elsewhere
-- those two checks skip unless they apply.
BEGIN;
\ir reference.psql
SELECT plan(3);

SET LOCAL client_min_messages = warning;
SELECT current_setting('setops.service_slots', true) IS NOT NULL
       AND (SELECT count(*) FROM setops_devices()) > 1
       AND current_setting('setops.device') = 'gpu'
       AND coalesce(current_setting('setops.service_split_min_elements', true)::int, 0)
           BETWEEN 1 AND 70000 AS split_applies,
       coalesce(current_setting('setops_tests.split_must_apply', true), '') = 'on' AS split_must \gset
RESET client_min_messages;

CREATE TEMP TABLE split_rows (
    id int PRIMARY KEY,
    label text NOT NULL,
    cuttable bool NOT NULL,     -- some split point lets the count be cut
    a8 int8[] NOT NULL,
    b8 int8[] NOT NULL,
    a4 int4[],
    b4 int4[]
);
ALTER TABLE split_rows ALTER a8 SET STORAGE EXTERNAL, ALTER b8 SET STORAGE EXTERNAL,
    ALTER a4 SET STORAGE EXTERNAL, ALTER b4 SET STORAGE EXTERNAL;

INSERT INTO split_rows (id, label, cuttable, a8, b8) VALUES
    (1, 'runs of 500-1500 copies across the cuts x short runs', true,
     pg_temp.rand_runs(60, 500, 1500), pg_temp.rand_runs(9000, 1, 12)),
    (2, 'spread keys x one key 30000 times', true,
     pg_temp.rand_sorted(50000, 0, 100000), array_fill(777::int8, ARRAY[30000])),
    (3, 'one key 40000 times x the same key 30000 times', false,
     array_fill(5::int8, ARRAY[40000]), array_fill(5::int8, ARRAY[30000])),
    (5, 'disjoint ranges', true,
     ARRAY(SELECT g::int8 FROM generate_series(1, 50000) g),
     ARRAY(SELECT g::int8 FROM generate_series(100000, 140000) g));
-- the int8 extremes, runs of each (int8 only)
INSERT INTO split_rows (id, label, cuttable, a8, b8)
SELECT 4, 'int8 extremes', false, pg_temp.rand_extreme(50000, 64), pg_temp.rand_extreme(40000, 64);
-- b within a (every third copy), and a within b but for one copy
INSERT INTO split_rows (id, label, cuttable, a8, b8)
SELECT 6, 'b a sub-multiset of a', true, a,
       ARRAY(SELECT k FROM unnest(a) WITH ORDINALITY t(k, o) WHERE o % 3 = 0 ORDER BY o)
FROM (SELECT pg_temp.rand_runs(20000, 1, 5, -2147483000) AS a) s;
INSERT INTO split_rows (id, label, cuttable, a8, b8)
SELECT 7, 'b is a less one copy', true, a, a[1:30000] || a[30002:]
FROM (SELECT pg_temp.rand_runs(15000, 1, 6, 2147400000) AS a) s;
-- the int8 limits in long runs (ending on aligned positions) around spread keys (int8 only)
INSERT INTO split_rows (id, label, cuttable, a8, b8) VALUES
    (8, 'runs of the int8 limits around spread keys', true,
     array_fill('-9223372036854775808'::int8, ARRAY[20000]) ||
         ARRAY(SELECT g * 100000000000000 FROM generate_series(-20000, 19999) g) ||
         array_fill(9223372036854775807::int8, ARRAY[20000]),
     array_fill('-9223372036854775808'::int8, ARRAY[12000]) ||
         ARRAY(SELECT g * 300000000000000 FROM generate_series(-6000, 6000) g) ||
         array_fill(9223372036854775807::int8, ARRAY[30000]));
UPDATE split_rows SET a4 = a8::int4[], b4 = b8::int4[] WHERE id NOT IN (4, 8);

-- (a count is cut only where every device has room for both arrays
-- without evicting: each device needs room for all of these)
SELECT :'split_applies'::bool AND coalesce((SELECT min(capacity_bytes - bytes) FROM setops_cache_stats()), 0) >=
       (SELECT sum(8 * (cardinality(a8) + cardinality(b8)) +
                   4 * (coalesce(cardinality(a4), 0) + coalesce(cardinality(b4), 0)))
        FROM split_rows) AS split_room \gset

-- each function twice on each pair: its answer, and whether it was cut
CREATE TEMP TABLE split_calls (id int, form text, fn text, call int, got text, on_gpu bool,
                               cut bool);
DO $d$
DECLARE
    r record;
    form text;
    fn text;
    got text;
    fns text[] := ARRAY['array_intersect_count(%1$s, %2$s)', 'array_union_count(%1$s, %2$s)',
                        'array_difference_count(%1$s, %2$s)', 'array_symdiff_count(%1$s, %2$s)',
                        'array_overlaps(%1$s, %2$s)', 'array_contains(%1$s, %2$s)',
                        'array_contains(%2$s, %1$s)', 'array_contained_by(%1$s, %2$s)'];
BEGIN
    FOR r IN SELECT id, a4 IS NOT NULL AS has4 FROM split_rows ORDER BY id LOOP
        FOREACH form IN ARRAY CASE WHEN r.has4 THEN ARRAY['8', '4'] ELSE ARRAY['8'] END LOOP
            FOREACH fn IN ARRAY fns LOOP
                FOR n IN 1 .. 2 LOOP
                    EXECUTE 'SELECT (' || format(fn, 'a' || form, 'b' || form) ||
                            ')::text FROM split_rows WHERE id = $1' INTO got USING r.id;
                    INSERT INTO split_calls
                    SELECT r.id, form, fn, n, got, t.gpu IS NOT NULL,
                           coalesce(t.reason LIKE '%split over%', false)
                    FROM setops_last_timing() t;
                END LOOP;
            END LOOP;
        END LOOP;
    END LOOP;
END $d$;

-- the reference's answers, from its intersection, union, difference and symdiff
CREATE TEMP TABLE split_want AS
SELECT id, fn, want
FROM split_rows, pg_temp.ref_setops(a8, b8) ref,
     LATERAL (VALUES
        ('array_intersect_count(%1$s, %2$s)', cardinality(ref.i)::text),
        ('array_union_count(%1$s, %2$s)', cardinality(ref.u)::text),
        ('array_difference_count(%1$s, %2$s)', cardinality(ref.d)::text),
        ('array_symdiff_count(%1$s, %2$s)', cardinality(ref.s)::text),
        ('array_overlaps(%1$s, %2$s)', (cardinality(ref.i) > 0)::text),
        ('array_contains(%1$s, %2$s)', (cardinality(ref.i) = cardinality(b8))::text),
        ('array_contains(%2$s, %1$s)', (cardinality(ref.i) = cardinality(a8))::text),
        ('array_contained_by(%1$s, %2$s)', (cardinality(ref.i) = cardinality(a8))::text)) w(fn, want);

SELECT is((SELECT string_agg(format('%s (%s, int%s) call %s: %s, want %s', l.label, c.fn, c.form,
                                    c.call, c.got, w.want), '; ')
           FROM split_calls c JOIN split_want w USING (id, fn) JOIN split_rows l USING (id)
           WHERE c.got IS DISTINCT FROM w.want),
          NULL, 'every count and predicate of ' ||
          (SELECT count(*) FROM split_calls) || ' calls on pairs to cut equals the reference''s');

\if :split_room
SELECT is((SELECT string_agg(pair, '; ')
           FROM (SELECT format('%s (int%s): %s of %s second calls on a GPU cut', l.label, c.form,
                               count(*) FILTER (WHERE c.cut), count(*)) AS pair
                 FROM split_rows l JOIN split_calls c USING (id)
                 WHERE l.cuttable AND c.call = 2 AND c.on_gpu
                 GROUP BY l.label, c.form HAVING count(*) < 5 OR NOT bool_and(c.cut)) s),
          NULL, 'with every device idle, every second call on a GPU (5 or more a pair) of a pair that has split points was cut');
SELECT is((SELECT count(*)::int FROM split_calls WHERE id = 3 AND cut), 0,
          'a pair of one key repeated was never cut (no key starts inside it)');
\elif :split_must
SELECT fail('setops_tests.split_must_apply is on, but the service has fewer than two devices, '
            'setops.device is not gpu, setops.service_split_min_elements is above 70000, '
            'or a device''s cache has no room for the pairs');
SELECT fail('(as above)');
\else
SELECT skip('needs two GPUs, setops.device = gpu, setops.service_split_min_elements <= 70000 '
            'and room for the pairs in each device''s cache', 2);
\endif

SELECT * FROM finish();
ROLLBACK;
