-- 08_service.sql: the GPU service's transport, where setops is preloaded
-- and the service has a device (skipped otherwise).  A statement_timeout
-- that strikes while calls go through the service is an ordinary
-- query_canceled ERROR, and the service keeps answering afterwards: more
-- calls than it has slots, each with the SQL reference's answer
-- (reference.psql; int8 too, not checked against int4).  (That a cancel
-- acts within a single long request is measured on the GPU machine by
-- test/gpu/pg_gpu_checks.sh.)  In CI this runs against the service
-- answering with the CPU engine (setops.service_emulate); on the GPU
-- machine against the GPU.  With two devices or more (CI's second pass
-- emulates two), one session's counts on stored rows stay on one device,
-- though the cache placed the rows on both.
BEGIN;
\ir reference.psql
SELECT plan(5);

-- (setops_devices() says why there is no GPU in a NOTICE: not needed here)
SET LOCAL client_min_messages = warning;
SELECT current_setting('setops.service_slots', true) IS NOT NULL AS has_service,
       (SELECT count(*) FROM setops_devices()) > 0 AS has_device,
       (SELECT count(*) FROM setops_devices()) > 1 AS has_devices \gset
RESET client_min_messages;

\if :has_service
\if :has_device
SET LOCAL setops.device = gpu;
\if :has_devices
-- Four stored rows, put in the device cache as they are first met: the
-- cache spreads new arrays over the devices, so that the pairs (1, 2) and
-- (3, 4) meet on different devices.  Counted in turns by one session,
-- they ran on the two devices in turn; now, with nothing else running,
-- each call goes where the last went, the other pair's rows copied there
-- once, where they fit without evicting (checked after the first two
-- calls: else the rule does not apply, and the test is skipped).  First
-- in this file, so that on an empty cache it applies: CI runs this file
-- so, with two emulated devices, before the other suites fill the cache.
CREATE TABLE svc_rows (id int, k int4[]);
ALTER TABLE svc_rows ALTER k SET STORAGE EXTERNAL;
INSERT INTO svc_rows
SELECT r, ARRAY(SELECT i * r FROM generate_series(1, 20000) i) FROM generate_series(1, 4) r;
CREATE TEMP TABLE svc_calls (call int, gpu int, answer bigint, want bigint);
CREATE TEMP TABLE svc_room (free_bytes bigint);
DO $d$
DECLARE
    x int;
    c bigint;
BEGIN
    FOR i IN 1 .. 12 LOOP
        x := CASE WHEN i % 2 = 1 THEN 1 ELSE 3 END;
        SELECT array_intersect_count(a.k, b.k) INTO c
        FROM svc_rows a, svc_rows b WHERE a.id = x AND b.id = x + 1;
        INSERT INTO svc_calls
        SELECT i, t.gpu, c,
               (SELECT count(*) FROM (SELECT unnest(a.k) INTERSECT ALL SELECT unnest(b.k)) m)
        FROM setops_last_timing() t, svc_rows a, svc_rows b WHERE a.id = x AND b.id = x + 1;
        IF i = 2 THEN
            INSERT INTO svc_room SELECT min(capacity_bytes - bytes) FROM setops_cache_stats();
        END IF;
    END LOOP;
END $d$;
SELECT is((SELECT count(*)::int FROM svc_calls WHERE answer = want AND gpu IS NOT NULL), 12,
          'two stored pairs counted in turns: 12 answers on the GPU, all right');
SELECT (SELECT gpu FROM svc_calls WHERE call = 1) IS DISTINCT FROM (SELECT gpu FROM svc_calls WHERE call = 2)
       AND (SELECT free_bytes FROM svc_room) >= 2 * 4 * 20000 AS svc_applies \gset
-- (setops_tests.empty_cache = on, as CI sets it on an empty cache: the
-- rule must apply, a skip would hide a failure)
SELECT coalesce(current_setting('setops_tests.empty_cache', true), '') = 'on' AS svc_must_apply \gset
\if :svc_applies
SELECT is((SELECT count(DISTINCT gpu)::int FROM svc_calls WHERE call > 2), 1,
          'with nothing else running, the calls after the first two stay on one device');
\elif :svc_must_apply
SELECT fail('the pairs met on one device, or the empty cache had no room for copies');
\else
SELECT skip('the pairs met on one device, or the cache has no room for copies: the rule does not apply', 1);
\endif
\else
SELECT skip('the GPU service has one device', 2);
\endif

-- query_canceled is not caught by WHEN OTHERS (nor by throws_ok): name it
CREATE FUNCTION pg_temp.cancelled_while_waiting() RETURNS text
LANGUAGE plpgsql AS $f$
DECLARE
    a int4[] := (SELECT array_agg(i) FROM generate_series(1, 400000) i);
    r int4[];
BEGIN
    FOR k IN 1 .. 1000000 LOOP
        r := array_union_gpu(a, a);
    END LOOP;
    RETURN 'not cancelled';
EXCEPTION WHEN query_canceled THEN
    RETURN 'cancelled';
END $f$;
SET LOCAL statement_timeout = '1s';
SELECT is(pg_temp.cancelled_while_waiting(), 'cancelled',
          'statement_timeout while calls go through the service');
SET LOCAL statement_timeout = 0;

CREATE TEMP TABLE svc_in AS
SELECT g, ARRAY(SELECT (g * 7 + i) / 3 FROM generate_series(1, 20000) i) AS a,
          ARRAY(SELECT (g * 5 + i) / 2 FROM generate_series(1, 15000) i) AS b
FROM generate_series(1, 40) g;
-- the answers from the SQL reference (reference.psql), not the extension
CREATE TEMP TABLE svc_ref AS SELECT g, r.* FROM svc_in, pg_temp.ref_setops(a, b) r;
SELECT is((SELECT count(*)::int FROM svc_in JOIN svc_ref USING (g) WHERE array_union_gpu(a, b) = u),
          40, 'then 40 calls through the service, more than its slots, all right');
SELECT is((SELECT count(*)::int FROM svc_in JOIN svc_ref USING (g)
           WHERE array_intersect_gpu(a::int8[], b::int8[]) = i::int8[]),
          40, 'and int8 as well');
\else
SELECT skip('the GPU service has no device', 5);
\endif
\else
SELECT skip('setops is not preloaded: no GPU service', 5);
\endif

SELECT * FROM finish();
ROLLBACK;
