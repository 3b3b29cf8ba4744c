-- 18_service_faults.sql: device faults inside the GPU service fail the
-- request they hit and nothing else, and the service goes on.
--
-- The emulated service's devices fail the operations a test asks them to
-- (setops_test_service_faults(device, n, kind): the next n launches,
-- shared trips of counts or batches on that device fail as a GPU fault
-- would, and with kind reset the device loses its memory too; a test hook
-- of builds for the tests).  A count of two stored arrays
-- large enough to be cut over both devices (worker_split.c) and a small
-- one on one device are counted with faults injected:
--   one fault under a part: the part's trip fails, its count goes again
--     alone and the answer is right (the fault taken, the count still cut);
--   two faults under a part: that part fails, so the request fails with
--     the device's message in gpu mode, and the next request is cut and
--     right (no hold, slot or part left behind); the same with both
--     devices faulted at once, and for a predicate;
--   in auto mode a failure falls back to the CPU engine: right answers;
--   a fault that resets a part's device (the emulated device fills what
--     it held with -1s): the request fails, saying so, and the requests
--     after it are right (none reads what was lost);
--   a set operation and a count batch from the backend's own arrays fail
--     with the device's message in gpu mode.
-- Answers are checked against the SQL reference (reference.psql).  Runs
-- where the service is emulated with two devices, counts of these sizes
-- are cut and each device's cache has room for the pair (CI's pass with
-- setops_tests.split_must_apply = on, scripts/test.sh); elsewhere it skips
-- (and fails, with split_must_apply on).
BEGIN;
\ir reference.psql

SET LOCAL client_min_messages = warning;
SELECT current_setting('setops.service_emulate', true) = 'on'
       AND (SELECT count(*) FROM setops_devices()) = 2
       AND current_setting('setops.device') = 'gpu'
       AND coalesce(current_setting('setops.service_split_min_elements', true)::int, 0)
           BETWEEN 1 AND 60000
       AND EXISTS (SELECT FROM pg_proc WHERE proname = 'array_intersect_count') AS faults_apply,
       coalesce(current_setting('setops_tests.split_must_apply', true), '') = 'on' AS faults_must \gset
RESET client_min_messages;

\if :faults_apply
CREATE FUNCTION pg_temp.faults(device int, failures int, kind text DEFAULT 'any') RETURNS int
    AS '$libdir/setops', 'setops_test_service_faults' LANGUAGE C;
-- faults for devices 0 and 1 (what was left is dropped)
CREATE FUNCTION pg_temp.inject(d0 int, d1 int) RETURNS text LANGUAGE sql AS $$
    SELECT format('# injected %s and %s (%s and %s were left)', d0, d1,
                  pg_temp.faults(0, d0), pg_temp.faults(1, d1))
$$;

-- A query's answer as text, or its ERROR's message.
CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    got text;
BEGIN
    EXECUTE q INTO got;
    RETURN got;
EXCEPTION WHEN others THEN
    RETURN 'ERROR: ' || SQLERRM;
END $$;

-- Whether the last call went to the GPU service cut over its devices.
CREATE FUNCTION pg_temp.was_cut() RETURNS bool LANGUAGE sql AS $$
    SELECT coalesce(bool_or(reason LIKE '%split over 2 GPUs%'), false) FROM setops_last_timing()
$$;

CREATE TEMP TABLE fault_rows (id int PRIMARY KEY, a int8[] NOT NULL, b int8[] NOT NULL);
ALTER TABLE fault_rows ALTER a SET STORAGE EXTERNAL, ALTER b SET STORAGE EXTERNAL;
INSERT INTO fault_rows VALUES
    (1, pg_temp.rand_runs(60, 500, 1500), pg_temp.rand_runs(9000, 1, 12)),
    (2, pg_temp.rand_sorted(3000, 0, 5000), pg_temp.rand_sorted(3000, 0, 5000));
CREATE TEMP TABLE fault_want AS
SELECT id, cardinality(r.i) AS icount, cardinality(r.u) AS ucount, cardinality(r.i) > 0 AS ov
FROM fault_rows, pg_temp.ref_setops(a, b) r;

SELECT coalesce((SELECT min(capacity_bytes - bytes) FROM setops_cache_stats()), 0) >=
       (SELECT 8 * sum(cardinality(a) + cardinality(b)) FROM fault_rows) AS fault_room \gset
\endif

\if :faults_apply
\if :fault_room
SELECT plan(20);
-- nothing injected yet; the pairs cached (the first call puts them)
SELECT pg_temp.inject(0, 0);
SELECT '# warm: ' || string_agg(array_intersect_count(a, b)::text, ' ') FROM fault_rows;
SELECT '# warm: ' || string_agg(array_intersect_count(a, b)::text, ' ') FROM fault_rows;
SELECT is(pg_temp.try('SELECT array_intersect_count(a, b) FROM fault_rows WHERE id = 1'),
          (SELECT icount::text FROM fault_want WHERE id = 1),
          'with no fault the large pair''s count is right') ;
SELECT ok(pg_temp.was_cut(), 'and cut over both devices');

-- one fault under the part on device 1: its count goes again, alone
SELECT pg_temp.inject(0, 1);
SELECT is(pg_temp.try('SELECT array_intersect_count(a, b) FROM fault_rows WHERE id = 1'),
          (SELECT icount::text FROM fault_want WHERE id = 1),
          'one fault under a part: the answer is right (the part''s count ran again alone)');
SELECT is(pg_temp.faults(1, NULL), 0, 'the fault was taken by that part');
SELECT ok(pg_temp.was_cut(), 'the request was still cut');

-- two faults under the part on device 1: the request fails, with the device's message
SELECT pg_temp.inject(0, 2);
SELECT is(pg_temp.try('SELECT array_intersect_count(a, b) FROM fault_rows WHERE id = 1'),
          'ERROR: array_intersect_count: the GPU failed: an injected fault on device 1',
          'two faults under a part (its trip, then its count alone): the request fails, naming the fault');
SELECT is(pg_temp.faults(1, NULL), 0, 'both faults were taken');
SELECT is(pg_temp.try('SELECT array_intersect_count(a, b) FROM fault_rows WHERE id = 1') || ' ' ||
          pg_temp.was_cut()::text,
          (SELECT icount::text || ' true' FROM fault_want WHERE id = 1),
          'the next request is cut and right: no part, hold or slot was left behind');

-- both devices faulted at once; a count computed from the intersection's
SELECT pg_temp.inject(2, 2);
SELECT matches(pg_temp.try('SELECT array_union_count(a, b) FROM fault_rows WHERE id = 1'),
               '^ERROR: array_union_count: the GPU failed: an injected fault on device [01]$',
               'both parts failing: the request fails once, naming a device');
SELECT is(pg_temp.faults(0, 0) + pg_temp.faults(1, 0), 0, 'every fault injected was taken');
SELECT is(pg_temp.try('SELECT array_union_count(a, b) FROM fault_rows WHERE id = 1') || ' ' ||
          pg_temp.try('SELECT array_overlaps(a, b) FROM fault_rows WHERE id = 1'),
          (SELECT ucount::text || ' ' || ov::text FROM fault_want WHERE id = 1),
          'then a count and a predicate of the pair are right');

-- the small pair, on one device: fault both, so its device fails it twice
SELECT pg_temp.inject(2, 2);
SELECT matches(pg_temp.try('SELECT array_intersect_count(a, b) FROM fault_rows WHERE id = 2'),
               '^ERROR: array_intersect_count: the GPU failed: an injected fault on device [01]$',
               'a count on one device failing in its trip and alone: the request fails, naming the fault');
SELECT is(pg_temp.faults(0, NULL) + pg_temp.faults(1, NULL), 2,
          'the count took two faults of its device, none of the other''s');

-- auto: a failure falls back to the CPU engine
SET LOCAL setops.device = auto;
SELECT is(pg_temp.try('SELECT array_intersect_count(a, b)::text || '' '' || array_overlaps(a, b)::text FROM fault_rows WHERE id = 1'),
          (SELECT icount::text || ' ' || ov::text FROM fault_want WHERE id = 1),
          'auto: with faults injected the answers are right (a failed GPU call falls back to the CPU engine)');
SET LOCAL setops.device = gpu;

-- a fault that resets device 1 under a part: the part's count cannot go
-- again (its arrays there are lost), so the request fails; the arrays go
-- there again, and the next request is right
SELECT pg_temp.inject(0, 0);
SELECT '# reset injected: ' || pg_temp.faults(1, 1, 'reset');
SELECT matches(pg_temp.try('SELECT array_intersect_count(a, b) FROM fault_rows WHERE id = 1'),
               '^ERROR: array_intersect_count: the GPU failed: (an injected fault on device 1, which reset it|the GPU was reset \(a device fault\) after this request''s arrays were placed on it; run it again)$',
               'a fault that resets the device under a part: the request fails, saying so');
SELECT is(pg_temp.faults(1, NULL), 0, 'the reset was taken');
SELECT is(pg_temp.try('SELECT array_intersect_count(a, b)::text || '' '' || array_union_count(a, b)::text FROM fault_rows WHERE id = 1'),
          (SELECT icount::text || ' ' || ucount::text FROM fault_want WHERE id = 1),
          'after the reset the pair''s counts are right (none read what the reset lost)');
SELECT is(pg_temp.try('SELECT array_intersect_count(a, b)::text FROM fault_rows WHERE id = 2'),
          (SELECT icount::text FROM fault_want WHERE id = 2),
          'and the small pair''s');

-- a set operation and a count batch of the backend's own arrays
SELECT pg_temp.inject(1, 1);
SELECT matches(pg_temp.try('SELECT cardinality(array_intersect_gpu(a, b || 6000::int8)) FROM fault_rows WHERE id = 2'),
               '^ERROR: array_intersect_gpu: the GPU failed: an injected fault on device [01]$',
               'a set operation on a faulting device fails, naming the fault');
SELECT pg_temp.inject(1, 1);
SELECT matches(pg_temp.try($q$SELECT sum(c)::text FROM (SELECT array_intersect_count_batch(x::int4[], y::int4[]) OVER () AS c
                              FROM (SELECT a || (10000 + g)::int8 AS x, b AS y FROM fault_rows, generate_series(1, 50) g WHERE id = 2) s) t$q$),
               '^ERROR: array_intersect_count_batch: the GPU failed: an injected fault on device [01]',
               'a count batch on a faulting device fails, naming the fault');
SELECT pg_temp.inject(0, 0);
SELECT * FROM finish();
\elif :faults_must
SELECT plan(1);
SELECT fail('setops_tests.split_must_apply is on, but a device''s cache has no room for the pairs');
SELECT * FROM finish();
\else
SELECT plan(1);
SELECT skip('needs room in each device''s cache for the pairs', 1);
SELECT * FROM finish();
\endif
\elif :faults_must
SELECT plan(1);
SELECT fail('setops_tests.split_must_apply is on, but the service is not emulated with two devices, '
            'setops.device is not gpu, or setops.service_split_min_elements is above 60000');
SELECT * FROM finish();
\else
SELECT plan(1);
SELECT skip('needs the GPU service emulated with two devices (setops.service_emulate), '
            'setops.device = gpu and setops.service_split_min_elements <= 60000', 1);
SELECT * FROM finish();
\endif
ROLLBACK;
