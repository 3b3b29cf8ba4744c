--
-- setops_devices: the GPUs setops can use, setops.device and
-- setops.gpu_min_elements.
--
-- Two expected outputs: setops_devices.out where no GPU is usable and
-- setops_devices_1.out where one is.  They differ only in the lines
-- marked "differs by machine" below.
--
-- (the first call loads the library, which defines the settings)
SELECT array_sort_gpu('{}'::int4[]) AS loaded;

--
-- The settings: types, compiled-in defaults and ranges.
--
SELECT name, vartype, boot_val, enumvals, min_val, max_val, context
FROM pg_settings WHERE name LIKE 'setops.%' ORDER BY name;
-- (the values this session started with depend on how the tests are run)
SELECT current_setting('setops.device') AS device_start,
       current_setting('setops.gpu_min_elements') AS min_elements_start \gset
-- values are parsed case-insensitively and shown in lower case
SET setops.device = 'CPU';
SHOW setops.device;
SET setops.device = auto;
SHOW setops.device;
SET setops.gpu_min_elements = 0;
SHOW setops.gpu_min_elements;
SET setops.gpu_min_elements = 2147483647;
SHOW setops.gpu_min_elements;
-- RESET goes back to the session's starting values
RESET setops.gpu_min_elements;
RESET setops.device;
SELECT current_setting('setops.device') = :'device_start' AS device_reset,
       current_setting('setops.gpu_min_elements') = :'min_elements_start' AS min_elements_reset;

--
-- setops_devices(): its columns, and well-formed rows (true with no rows).
-- (Without a GPU it says why in a NOTICE, whose text depends on the
-- machine: hidden here.)
--
SET client_min_messages = warning;
SELECT * FROM setops_devices() WHERE false;
SELECT coalesce(bool_and(device >= 0 AND name <> '' AND total_memory > 0
                         AND free_memory BETWEEN 0 AND total_memory
                         AND multiprocessors > 0
                         AND compute_capability ~ '^[0-9]+\.[0-9]+$'), true) AS rows_ok,
       count(*) = count(DISTINCT device) AS devices_distinct
FROM setops_devices();
-- differs by machine: f without a usable GPU, t with one
SELECT count(*) >= 1 AS has_gpu FROM setops_devices();
RESET client_min_messages;

--
-- setops.device = gpu: every operation runs on the GPU.
-- differs by machine: without a usable GPU each of these is an ERROR
-- (SQLSTATE 55000, the DETAIL says why, so it is not shown); with one,
-- the results.
--
SET setops.device = gpu;
SHOW setops.device;
\set VERBOSITY terse
SELECT array_intersect_gpu('{1,1,2,3,3,3,5,6,6,6,6,7,7,8,8,9}'::int4[],
                           '{1,2,2,3,3,3,3,6,6,6,6,8}'::int4[]) AS intersection;
SELECT array_symdiff_gpu('{1,1,2,3,3,3,5,6,6,6,6,7,7,8,8,9}'::int8[],
                         '{1,2,2,3,3,3,3,6,6,6,6,8}'::int8[]) AS symdiff;
SELECT array_sort_gpu('{3,1,2,1}'::int4[]) AS sorted;
SELECT array_distinct_gpu('{3,1,2,1}'::int8[]) AS distinct_keys;
SELECT array_union_agg(a) AS "union" FROM (VALUES ('{1,2,2}'::int4[]), ('{2,2,2,3}')) v(a);
\set VERBOSITY default
DO $$
DECLARE
  r int4[];
  hint text;
BEGIN
  r := array_union_gpu('{1,1,2}'::int4[], '{1,2,2,3}'::int4[]);
  RAISE NOTICE 'result: %', r;
EXCEPTION WHEN object_not_in_prerequisite_state THEN
  GET STACKED DIAGNOSTICS hint = PG_EXCEPTION_HINT;
  RAISE NOTICE '%: % (hint: %)', SQLSTATE, SQLERRM, hint;
END $$;
RESET setops.device;

--
-- setops_service (0.4): the GPU service's work, one row per device of the
-- service (its columns; well-formed rows, true with none), no rows
-- without the service.
--
SET client_min_messages = warning;
SELECT * FROM setops_service WHERE false;
SELECT count(*) = (SELECT count(*) FROM setops_devices()) AS one_row_per_device,
       count(*) = count(DISTINCT device) AS devices_distinct,
       coalesce(bool_and(device >= 0 AND streams >= 1 AND queued >= 0 AND requests >= 0
                         AND launches >= 0 AND batched >= 0 AND wait_ms >= 0 AND run_ms >= 0
                         AND copies >= 0 AND dispatch_ms >= 0
                         AND request_cpu_ms >= 0), true) AS rows_ok
FROM setops_service;
-- differs by machine: f without the service, t with it (and the requests
-- of gpu mode above)
SELECT count(*) >= 1 AS has_service, coalesce(sum(requests), 0) >= 1 AS served
FROM setops_service;
RESET client_min_messages;
-- setops_last_timing()'s columns since 0.4: on the CPU no GPU, no wait, no
-- launch shared, and a reason
SET setops.device = cpu;
SELECT array_intersect_gpu('{1,2,3}'::int4[], '{2,3,4}'::int4[]) AS intersection;
SELECT * FROM setops_last_timing() WHERE false;
SELECT device, gpu IS NULL AS no_gpu, queue_ms, batched, reason IS NOT NULL AS has_reason
FROM setops_last_timing();
RESET setops.device;

--
-- auto from 0 elements on uses the GPU when there is one and the CPU
-- engine otherwise; the results are the same as on the CPU everywhere.
--
CREATE TABLE dev_input AS
SELECT array(SELECT k FROM generate_series(1, 3000) k, generate_series(1, k % 4) ORDER BY k) AS a,
       array(SELECT k FROM generate_series(1, 3000) k, generate_series(1, k % 3) ORDER BY k) AS b,
       array(SELECT (i * 7919 % 10007 - 5000)::int4 FROM generate_series(1, 20000) i) AS unsorted;
SET setops.device = cpu;
CREATE TABLE dev_cpu AS
SELECT array_intersect_gpu(a, b) AS i, array_union_gpu(a, b) AS u, array_difference_gpu(a, b) AS d,
       array_symdiff_gpu(a, b) AS s, array_union_gpu(a::int8[], b::int8[]) AS u8,
       array_sort_gpu(unsorted) AS sorted, array_distinct_gpu(unsorted::int8[]) AS distinct8
FROM dev_input;
SET setops.device = auto;
SET setops.gpu_min_elements = 0;
SELECT array_intersect_gpu('{1,1,2,3,3,3,5,6,6,6,6,7,7,8,8,9}'::int4[],
                           '{1,2,2,3,3,3,3,6,6,6,6,8}'::int4[]) AS intersection,
       array_difference_gpu('{1,1,2,3,3,3,5,6,6,6,6,7,7,8,8,9}'::int8[],
                            '{1,2,2,3,3,3,3,6,6,6,6,8}'::int8[]) AS difference,
       array_sort_gpu('{3,1,2,1}'::int4[]) AS sorted;
-- (the GPU that answered is named on the GPU only)
SELECT array_intersect_gpu('{1,2,3}'::int4[], '{2,3,4}'::int4[]) AS intersection;
SELECT (device = 'gpu') = (gpu IS NOT NULL) AS gpu_named_on_gpu, queue_ms >= 0 AS queue_ok,
       batched >= 0 AS batched_ok, reason IS NOT NULL AS has_reason
FROM setops_last_timing();
SELECT c.i = array_intersect_gpu(a, b) AS intersection,
       c.u = array_union_gpu(a, b) AS "union",
       c.d = array_difference_gpu(a, b) AS difference,
       c.s = array_symdiff_gpu(a, b) AS symdiff,
       c.u8 = array_union_gpu(a::int8[], b::int8[]) AS union8,
       c.sorted = array_sort_gpu(unsorted) AS sorted,
       c.distinct8 = array_distinct_gpu(unsorted::int8[]) AS distinct8,
       c.i::int8[] = ref_setop('intersect', a, b) AND c.u::int8[] = ref_setop('union', a, b)
         AND c.d::int8[] = ref_setop('difference', a, b) AND c.s::int8[] = ref_setop('symdiff', a, b) AS cpu_matches_reference,
       c.sorted = array(SELECT x FROM unnest(unsorted) x ORDER BY x) AS cpu_sort_ok
FROM dev_input, dev_cpu c;
-- unsorted input is reported the same way
SELECT array_intersect_gpu('{1,2,3}'::int4[], '{5,4}'::int4[]);
-- setops_auto_estimates(): the times auto learnt in this session.  Calls
-- of 4096 input elements or more are timed where there is a GPU (here all
-- on it, from 0 elements on), none without one.
SELECT * FROM setops_auto_estimates() WHERE false;
SELECT sum(array_intersect_count(a, b)) AS counted FROM dev_input, generate_series(1, 5);
-- (7,500 elements: the size class from 4096; the first call not counted)
SELECT coalesce(bool_and(device = 'gpu' AND min_elements = 4096 AND calls = 4 AND ms > 0
                         AND cpu_ms > 0), true) AS count_timed,
       (count(*) = 1) = (SELECT count(*) > 0 FROM setops_service) AS timed_where_a_gpu
FROM setops_auto_estimates() WHERE kind = 'count';
RESET setops.gpu_min_elements;
RESET setops.device;
DROP TABLE dev_input, dev_cpu;

--
-- The defaults, in a session without the options the tests run with.
--
\c -reuse-previous=on "options='-c application_name=setops_devices'"
SELECT array_sort_gpu('{}'::int4[]) AS loaded;
SHOW setops.device;
SHOW setops.gpu_min_elements;
