--
-- setops_cache: stored (TOASTed) arrays as arguments, which the GPU
-- service answers from its device cache by their TOAST identity.
--
-- Every answer is compared with the CPU engine's on the same rows, cold and
-- warm.  The identity must tell apart a value whose id was reused after
-- its value was deleted (an OID wraparound, made here by setting the next
-- OID), and values rewritten by TRUNCATE, VACUUM FULL and CLUSTER.  The
-- output is the same where there is no service (the checks of the cache
-- itself then hold trivially), so this runs in every mode.
--
SELECT array_sort_gpu('{}'::int4[]) AS loaded;
SET client_min_messages = warning;
-- (auto: these arrays are worth the GPU)
SET setops.gpu_min_elements = 1000;
SELECT count(*) > 0 AND current_setting('setops.device') <> 'cpu' AS caches
FROM setops_cache_stats() \gset
CREATE FUNCTION pg_temp.cache(OUT hits bigint, OUT misses bigint, OUT evictions bigint,
                              OUT within_capacity bool)
LANGUAGE sql AS $$
    SELECT coalesce(sum(hits), 0), coalesce(sum(misses), 0), coalesce(sum(evictions), 0),
           coalesce(bool_and(bytes <= capacity_bytes), true)
    FROM setops_cache_stats() $$;
-- test hooks of the library, not part of the extension
CREATE FUNCTION pg_temp.stored_identity(anyelement) RETURNS text
    AS '$libdir/setops', 'setops_test_stored_identity' LANGUAGE C STRICT;
CREATE FUNCTION pg_temp.set_next_oid(oid) RETURNS void
    AS '$libdir/setops', 'setops_test_set_next_oid' LANGUAGE C STRICT;

-- Rows of arrays stored out of line: uncompressed (k, k8, p) and
-- compressed (kc); long duplicate runs, extremes, an empty row.
CREATE TABLE cache_t (id int, k int4[], k8 int8[], kc int4[], p packed_int4);
ALTER TABLE cache_t ALTER k SET STORAGE EXTERNAL, ALTER k8 SET STORAGE EXTERNAL;
INSERT INTO cache_t
SELECT r, a, a::int8[], c, a::packed_int4
FROM generate_series(1, 6) r,
     LATERAL (SELECT ARRAY(SELECT ((i * (r + 3)) % 90001) / (r % 3 + 1) - 20000
                           FROM generate_series(1, 40000 + r * 1000) i ORDER BY 1) AS a,
                     ARRAY(SELECT i / (r + 1) FROM generate_series(1, 60000) i) AS c) s;
INSERT INTO cache_t VALUES (7, ARRAY(SELECT CASE WHEN i < 20000 THEN -2147483648 ELSE 2147483647 END
                                     FROM generate_series(1, 30000) i),
                            ARRAY(SELECT CASE WHEN i < 20000 THEN -9223372036854775808 ELSE 9223372036854775807 END
                                  FROM generate_series(1, 30000) i),
                            '{}', '{}');
SELECT count(*) AS rows, count(*) FILTER (WHERE pg_temp.stored_identity(k) IS NOT NULL) AS stored_k,
       count(*) FILTER (WHERE pg_temp.stored_identity(kc) IS NOT NULL) AS stored_kc
FROM cache_t;

-- the CPU engine's answers
SET setops.device = cpu;
CREATE TEMP TABLE want AS
SELECT x.id AS xid, y.id AS yid,
       array_intersect_gpu(x.k, y.k) AS i, array_union_gpu(x.k, y.k) AS u,
       array_difference_gpu(x.k, y.k) AS d, array_symdiff_gpu(x.k, y.k) AS s,
       array_intersect_gpu(x.k8, y.k8) AS i8, array_symdiff_gpu(x.k8, y.k8) AS s8,
       array_union_gpu(x.kc, y.k) AS uc, array_difference_gpu(x.p, y.p)::int4[] AS dp,
       array_intersect_gpu(x.k, '{1,2,3,40000}'::int4[]) AS ic
FROM cache_t x, cache_t y;
RESET setops.device;

CREATE FUNCTION pg_temp.all_right() RETURNS bool LANGUAGE sql AS $$
    SELECT bool_and(w.i = array_intersect_gpu(x.k, y.k) AND w.u = array_union_gpu(x.k, y.k) AND
                    w.d = array_difference_gpu(x.k, y.k) AND w.s = array_symdiff_gpu(x.k, y.k) AND
                    w.i8 = array_intersect_gpu(x.k8, y.k8) AND w.s8 = array_symdiff_gpu(x.k8, y.k8) AND
                    w.uc = array_union_gpu(x.kc, y.k) AND
                    w.dp = array_difference_gpu(x.p, y.p)::int4[] AND
                    w.ic = array_intersect_gpu(x.k, '{1,2,3,40000}'::int4[]))
    FROM want w JOIN cache_t x ON x.id = w.xid JOIN cache_t y ON y.id = w.yid $$;

SELECT hits AS hits0 FROM pg_temp.cache() \gset
SELECT pg_temp.all_right() AS cold_right;
SELECT pg_temp.all_right() AS warm_right;
SELECT NOT :'caches'::bool OR hits > :hits0 AS warm_hits, within_capacity,
       NOT :'caches'::bool OR evictions > 0 OR (SELECT min(capacity_bytes) FROM setops_cache_stats()) > 64 * 1024 * 1024
           AS evicts_when_full
FROM pg_temp.cache();
-- a packed result of packed stored arguments
SELECT bool_and(array_difference_gpu(x.p, y.p)::bytea = w.dp::packed_int4::bytea) AS packed_right
FROM want w JOIN cache_t x ON x.id = w.xid JOIN cache_t y ON y.id = w.yid;

-- Errors are the CPU engine's, cached or not: order, nulls.
CREATE TABLE cache_bad (k int4[]);
ALTER TABLE cache_bad ALTER k SET STORAGE EXTERNAL;
INSERT INTO cache_bad SELECT ARRAY(SELECT CASE WHEN i = 30001 THEN 0 ELSE i END
                                   FROM generate_series(1, 50000) i);
SELECT array_intersect_gpu('{1}'::int4[], k) FROM cache_bad;
SELECT array_intersect_gpu('{1}'::int4[], k) FROM cache_bad;
UPDATE cache_bad SET k[40000] = NULL;
SELECT array_union_gpu(k, '{1}'::int4[]) FROM cache_bad;

-- A value id reused after its value was deleted: a new identity, the new
-- value's answer.
CREATE TABLE cache_reuse (k int4[]);
ALTER TABLE cache_reuse ALTER k SET STORAGE EXTERNAL;
INSERT INTO cache_reuse SELECT ARRAY(SELECT i * 2 FROM generate_series(1, 50000) i);
CREATE TEMP TABLE evens AS SELECT ARRAY(SELECT i * 2 FROM generate_series(1, 60000) i) AS e;
SELECT pg_temp.stored_identity(k) AS id1 FROM cache_reuse \gset
SELECT cardinality(array_intersect_gpu(k, e)) AS before_reuse FROM cache_reuse, evens;
SELECT cardinality(array_intersect_gpu(k, e)) AS before_reuse FROM cache_reuse, evens;
DELETE FROM cache_reuse;
VACUUM cache_reuse;
SELECT pg_temp.set_next_oid(split_part(:'id1', ' ', 3)::oid);
INSERT INTO cache_reuse SELECT ARRAY(SELECT i * 2 + 1 FROM generate_series(1, 50000) i);
SELECT pg_temp.stored_identity(k) AS id2 FROM cache_reuse \gset
SELECT split_part(:'id1', ' ', 3) = split_part(:'id2', ' ', 3) AS value_id_reused,
       :'id1' <> :'id2' AS identity_differs;
SELECT cardinality(array_intersect_gpu(k, e)) AS after_reuse FROM cache_reuse, evens;

-- A value id handed out again after the OID counter came all the way
-- round in forward steps, each seen by this backend (three of a third of
-- 2^32): the identity it remembered of the first value (read without a
-- fetch since) has expired, and the second value answers for itself.
CREATE TABLE cache_round (k int4[]);
ALTER TABLE cache_round ALTER k SET STORAGE EXTERNAL;
SELECT pg_temp.set_next_oid(100000);
INSERT INTO cache_round SELECT ARRAY(SELECT i * 2 FROM generate_series(1, 50000) i);
SELECT split_part(pg_temp.stored_identity(k), ' ', 3) AS round_id1 FROM cache_round \gset
-- the count of t's one row against evens, alone and as a batch
CREATE FUNCTION pg_temp.counts_of(t regclass, OUT single bigint, OUT batch bigint)
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('SELECT array_intersect_count(k, e),
                           (SELECT array_intersect_count_batch(k, e) OVER () FROM %1$s, evens)
                    FROM %1$s, evens', t) INTO single, batch;
END $$;
SELECT * FROM pg_temp.counts_of('cache_round');
SELECT * FROM pg_temp.counts_of('cache_round');
-- (each step 1431655765: 100001 + 1431655765, + 2 x 1431655765)
SELECT pg_temp.set_next_oid('1431755766');
SELECT * FROM pg_temp.counts_of('cache_round');
SELECT pg_temp.set_next_oid('2863411531');
SELECT * FROM pg_temp.counts_of('cache_round');
DELETE FROM cache_round;
VACUUM cache_round;
-- (100001 + 3 * 1431655765 is 100000 modulo 2^32)
SELECT pg_temp.set_next_oid(100000);
INSERT INTO cache_round SELECT ARRAY(SELECT i * 2 + 1 FROM generate_series(1, 50000) i);
SELECT split_part(pg_temp.stored_identity(k), ' ', 3) = :'round_id1' AS round_value_id_reused
FROM cache_round;
SELECT * FROM pg_temp.counts_of('cache_round');
DROP TABLE cache_round;

-- Count batches in chunks of 7 rows (a test hook bounds a chunk's rows),
-- each chunk read while the GPU counts the one before: every row's value
-- is the per-row function's, cold and warm, over stored rows, NULL and
-- empty ones; an order break in a later chunk is the per-row error; a
-- query that stops early gives its request in flight back, so that a
-- streaming aggregate after it still gets the backend's stream slot.
CREATE FUNCTION pg_temp.batch_rows(int) RETURNS void
    AS '$libdir/setops', 'setops_test_batch_rows' LANGUAGE C STRICT;
SELECT pg_temp.batch_rows(7);
CREATE TABLE chunky (id int PRIMARY KEY, k int4[]);
ALTER TABLE chunky ALTER k SET STORAGE EXTERNAL;
INSERT INTO chunky
SELECT r, CASE r WHEN 30 THEN NULL WHEN 31 THEN '{}'
              ELSE ARRAY(SELECT i * (r % 5 + 1) FROM generate_series(1, 2000 + r * 10) i) END
FROM generate_series(1, 60) r;
CREATE FUNCTION pg_temp.chunked_diffs() RETURNS bigint LANGUAGE sql AS $$
    SELECT count(*) FILTER (WHERE j IS DISTINCT FROM array_jaccard(k, e)
                            OR c IS DISTINCT FROM array_intersect_count(k, e)
                            OR o IS DISTINCT FROM array_overlaps(k, '{3,5}'::int4[]))
    FROM (SELECT k, e, array_jaccard_batch(k, e) OVER w AS j,
                 array_intersect_count_batch(k, e) OVER w AS c,
                 array_overlaps_batch(k, '{3,5}'::int4[]) OVER w AS o
          FROM chunky, evens WINDOW w AS (ORDER BY id)) s $$;
SELECT pg_temp.chunked_diffs() AS chunked_cold, pg_temp.chunked_diffs() AS chunked_warm;
INSERT INTO chunky SELECT 61, ARRAY(SELECT i FROM generate_series(1, 3000) i) || 0;
SELECT array_jaccard_batch(k, e) OVER (ORDER BY id) FROM chunky, evens;
SELECT array_jaccard(k, e) FROM chunky, evens ORDER BY id;
DELETE FROM chunky WHERE id = 61;
SET setops.agg_stream_min_size = 0;
-- (count(j): an output no one reads would not be computed at all; 10
-- rows: the partition's second chunk reads the third ahead)
SELECT count(j) AS stopped_early
FROM (SELECT array_jaccard_batch(k, e) OVER (ORDER BY id) AS j FROM chunky, evens LIMIT 10) s;
-- The request given back held its chunk's rows in the device cache while
-- it ran; it must leave none held, even where the service stopped it with
-- an ERROR (the emulated device's CPU engine does, for a backend that gave
-- up): a held row is never evicted.  The cache's size 0 for a moment
-- empties it entirely (polled, reloading, up to 30 s; where the service
-- caches: ALTER SYSTEM, not echoed, so that every mode's output is alike).
CREATE FUNCTION pg_temp.cache_size_reached(empty bool) RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. 60 LOOP
        IF (SELECT CASE WHEN empty THEN coalesce(sum(entries), 0) = 0
                        ELSE coalesce(min(capacity_bytes), 1) > 0 END
            FROM setops_cache_stats()) THEN
            RETURN true;
        END IF;
        PERFORM pg_reload_conf(), pg_sleep(0.5);
    END LOOP;
    RETURN false;
END $$;
\set ECHO none
SELECT 'ALTER SYSTEM SET setops.gpu_cache_size = 0' WHERE :'caches'::bool \gexec
\set ECHO all
SELECT pg_reload_conf() AS reloaded;
SELECT NOT :'caches'::bool OR pg_temp.cache_size_reached(true) AS nothing_left_held;
\set ECHO none
SELECT 'ALTER SYSTEM RESET setops.gpu_cache_size' WHERE :'caches'::bool \gexec
\set ECHO all
SELECT pg_reload_conf() AS reloaded;
SELECT NOT :'caches'::bool OR pg_temp.cache_size_reached(false) AS cache_back;
SELECT cardinality(array_union_agg(k)) AS union_after FROM chunky;
-- (streams are certain only in gpu mode: elsewhere the service may be
-- absent, or auto may keep the rows)
SELECT current_setting('setops.device') <> 'gpu' OR streamed_rows > 0 AS streamed_after
FROM setops_last_timing();
RESET setops.agg_stream_min_size;
-- setops.batch_read_ahead turned off while a partition is read (a cursor
-- of it fetched row by row): the partition keeps the setting it began
-- with, every row still the per-row function's
CREATE FUNCTION pg_temp.toggled_diffs() RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    c refcursor;
    r record;
    i int := 0;
    n int := 0;
BEGIN
    OPEN c FOR SELECT array_jaccard_batch(k, e) OVER (ORDER BY id) AS j, array_jaccard(k, e) AS p
               FROM chunky, evens ORDER BY id;
    LOOP
        FETCH c INTO r;
        EXIT WHEN NOT FOUND;
        i := i + 1;
        IF i = 10 THEN
            PERFORM set_config('setops.batch_read_ahead', 'off', true);
        END IF;
        IF r.j IS DISTINCT FROM r.p THEN
            n := n + 1;
        END IF;
    END LOOP;
    CLOSE c;
    PERFORM set_config('setops.batch_read_ahead', 'on', true);
    RETURN n;
END $$;
SELECT pg_temp.toggled_diffs() AS toggled_diffs;
-- A first run: after the partition's first chunk, the rest of its stored
-- rows are read into the device cache by parallel readers
-- (setops.batch_read_workers); every row still the per-row function's, an
-- order break in a later chunk still the per-row error, and parallel mode
-- over when the call returns (a nextval() beside the batch runs).  Each
-- check on new TOAST values, which the cache does not hold yet.
CREATE FUNCTION pg_temp.readers_put() RETURNS int8
    AS '$libdir/setops', 'setops_test_batch_readers_put' LANGUAGE C;
CREATE FUNCTION pg_temp.cold_copy(t text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('DROP TABLE IF EXISTS %I', t);
    EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, k int4[])', t);
    EXECUTE format('ALTER TABLE %I ALTER k SET STORAGE EXTERNAL', t);
    EXECUTE format('INSERT INTO %I SELECT id, k FROM chunky', t);
END $$;
CREATE FUNCTION pg_temp.diffs_in(t text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
BEGIN
    EXECUTE format($q$SELECT count(*) FILTER (WHERE j IS DISTINCT FROM array_jaccard(k, e)
                                              OR c IS DISTINCT FROM array_intersect_count(k, e))
                      FROM (SELECT k, e, array_jaccard_batch(k, e) OVER w AS j,
                                   array_intersect_count_batch(k, e) OVER w AS c
                            FROM %I, evens WINDOW w AS (ORDER BY id)) s$q$, t) INTO n;
    RETURN n;
END $$;
SET setops.batch_read_workers = 2;
SELECT FROM pg_temp.readers_put();
SELECT pg_temp.cold_copy('chunky_cold');
SELECT pg_temp.diffs_in('chunky_cold') AS readers_cold_diffs;
-- (gpu mode: of 60 rows, the first chunk's 7, the NULL and the empty one
-- not read ahead; the query's second batch found the rows there)
SELECT current_setting('setops.device') <> 'gpu' OR pg_temp.readers_put() = 51 AS readers_put_51;
SELECT pg_temp.diffs_in('chunky_cold') AS readers_warm_diffs;
-- (auto: chunks the CPU answered on the first run put nothing)
SELECT current_setting('setops.device') <> 'gpu' OR pg_temp.readers_put() IS NULL AS readers_none_warm;
-- the same through rings of buffers (the TOAST pages read by the index's
-- TIDs; a test hook asks for them, a read of more than a quarter of shared
-- buffers takes them itself)
CREATE FUNCTION pg_temp.readers_ring(bool) RETURNS void
    AS '$libdir/setops', 'setops_test_batch_readers_ring' LANGUAGE C STRICT;
SELECT pg_temp.readers_ring(true);
SELECT pg_temp.cold_copy('chunky_cold');
SELECT pg_temp.diffs_in('chunky_cold') AS ring_cold_diffs;
SELECT current_setting('setops.device') <> 'gpu' OR pg_temp.readers_put() = 51 AS ring_put_51;
SELECT pg_temp.readers_ring(false);
-- packed rows read ahead too, each decoded straight into the request
-- (keys spread out, so that each value is stored out of line)
CREATE TABLE chunky_packed AS
SELECT id, ARRAY(SELECT x * 1009 + x * 7919 % 997 FROM unnest(k) x ORDER BY 1)::packed_int4 AS p
FROM chunky;
SELECT FROM pg_temp.readers_put();
SELECT count(*) FILTER (WHERE j IS DISTINCT FROM array_jaccard(p, e::packed_int4)) AS packed_readers_diffs
FROM (SELECT p, e, array_jaccard_batch(p, e::packed_int4) OVER (ORDER BY id) AS j
      FROM chunky_packed, evens) s;
SELECT current_setting('setops.device') <> 'gpu' OR pg_temp.readers_put() = 51 AS packed_readers_put_51;
DROP TABLE chunky_packed;
SELECT pg_temp.cold_copy('chunky_cold');
INSERT INTO chunky_cold SELECT 40, ARRAY(SELECT i FROM generate_series(1, 3000) i) || 0
ON CONFLICT (id) DO UPDATE SET k = excluded.k;
SELECT array_jaccard_batch(k, e) OVER (ORDER BY id) FROM chunky_cold, evens;
SELECT array_jaccard(k, e) FROM chunky_cold, evens ORDER BY id;
SELECT pg_temp.cold_copy('chunky_cold');
CREATE TEMP SEQUENCE readers_seq;
SELECT count(*) AS readers_beside_nextval, max(n) AS nextval_max
FROM (SELECT nextval('readers_seq') AS n, array_jaccard_batch(k, e) OVER (ORDER BY id) AS j
      FROM chunky_cold, evens) s;
-- a temporary table's rows, whose pages only this backend holds: read
-- ahead by the backend alone (a worker cannot read them; a test hook
-- leaves every row to the workers when any start)
CREATE FUNCTION pg_temp.readers_alone(bool) RETURNS void
    AS '$libdir/setops', 'setops_test_batch_readers_alone' LANGUAGE C STRICT;
SELECT pg_temp.readers_alone(true);
CREATE TEMP TABLE chunky_temp (id int PRIMARY KEY, k int4[]);
ALTER TABLE chunky_temp ALTER k SET STORAGE EXTERNAL;
INSERT INTO chunky_temp
SELECT r, ARRAY(SELECT i * (r % 5 + 1) FROM generate_series(1, 2000 + r) i) FROM generate_series(1, 300) r;
SELECT count(*) FILTER (WHERE j IS DISTINCT FROM array_jaccard(k, e)) AS readers_temp_diffs
FROM (SELECT k, e, array_jaccard_batch(k, e) OVER (ORDER BY id) AS j FROM chunky_temp, evens) s;
SELECT current_setting('setops.device') <> 'gpu' OR pg_temp.readers_put() > 0 AS readers_temp_put;
-- an ERROR while the backend reads ahead (a test hook plants one at the
-- 20th row) leaves nothing open: a stored argument of another table is
-- read by its identity afterwards as before
CREATE FUNCTION pg_temp.readers_fail_at(int8) RETURNS void
    AS '$libdir/setops', 'setops_test_batch_readers_fail_at' LANGUAGE C STRICT;
TRUNCATE chunky_temp;
INSERT INTO chunky_temp
SELECT r, ARRAY(SELECT i * (r % 5 + 1) FROM generate_series(1, 2000 + r) i) FROM generate_series(1, 300) r;
CREATE FUNCTION pg_temp.planted() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    PERFORM count(j) FROM (SELECT array_jaccard_batch(k, e) OVER (ORDER BY id) AS j
                           FROM chunky_temp, evens) s;
    -- (gpu mode reads ahead; elsewhere the router may keep the rows)
    RETURN CASE WHEN current_setting('setops.device') = 'gpu' THEN 'no error' ELSE 'ok' END;
EXCEPTION WHEN OTHERS THEN
    RETURN CASE WHEN SQLERRM LIKE '%planted error in reading row 20 ahead' THEN 'ok' ELSE SQLERRM END;
END $$;
SELECT pg_temp.readers_fail_at(20);
SELECT pg_temp.planted() AS planted_error;
SELECT pg_temp.readers_fail_at(-1);
SELECT sum(array_intersect_count(k, e)) AS after_planted_error FROM chunky, evens;
DROP TABLE chunky_temp;
-- (the workers alone, on a table's rows: the same answers; as many rows put
-- as half the cache holds)
CREATE TABLE chunky_many (id int PRIMARY KEY, k int4[]);
ALTER TABLE chunky_many ALTER k SET STORAGE EXTERNAL;
INSERT INTO chunky_many
SELECT r, ARRAY(SELECT i * (r % 5 + 1) FROM generate_series(1, 2000 + r) i) FROM generate_series(1, 300) r;
SELECT pg_temp.diffs_in('chunky_many') AS readers_alone_diffs;
SELECT current_setting('setops.device') <> 'gpu' OR pg_temp.readers_put() > 0 AS readers_alone_put;
DROP TABLE chunky_many;
SELECT pg_temp.readers_alone(false);
SET setops.batch_read_workers = 0;
SELECT pg_temp.cold_copy('chunky_cold');
SELECT FROM pg_temp.readers_put();
SELECT pg_temp.diffs_in('chunky_cold') AS no_readers_cold_diffs;
SELECT pg_temp.readers_put() IS NULL AS no_readers_none;
RESET setops.batch_read_workers;
DROP TABLE chunky_cold;
SELECT pg_temp.batch_rows(0);
DROP TABLE chunky;

-- A value id handed out again while this backend was not looking, and
-- the counter set back to where it last saw it (as after exactly 2^32
-- OIDs): only the time since its last look can tell, and a gap longer
-- than the limit (a test hook lowers it from 60 s to 200 ms) expires every
-- identity it remembered.
CREATE FUNCTION pg_temp.next_oid() RETURNS oid
    AS '$libdir/setops', 'setops_test_next_oid' LANGUAGE C STRICT;
CREATE FUNCTION pg_temp.oid_gap(int) RETURNS void
    AS '$libdir/setops', 'setops_test_oid_gap' LANGUAGE C STRICT;
CREATE TABLE cache_gap (k int4[]);
ALTER TABLE cache_gap ALTER k SET STORAGE EXTERNAL;
INSERT INTO cache_gap SELECT ARRAY(SELECT i * 2 FROM generate_series(1, 50000) i);
SELECT split_part(pg_temp.stored_identity(k), ' ', 3) AS gap_id FROM cache_gap \gset
SELECT pg_temp.oid_gap(200);
SELECT * FROM pg_temp.counts_of('cache_gap');
SELECT * FROM pg_temp.counts_of('cache_gap');
-- (nothing takes an OID between the backend's last look and this)
SELECT pg_temp.next_oid() AS gap_seen \gset
DELETE FROM cache_gap;
VACUUM cache_gap;
SELECT pg_temp.set_next_oid(:'gap_id');
INSERT INTO cache_gap SELECT ARRAY(SELECT i * 2 + 1 FROM generate_series(1, 50000) i);
SELECT split_part(pg_temp.stored_identity(k), ' ', 3) = :'gap_id' AS gap_value_id_reused
FROM cache_gap;
SELECT pg_temp.set_next_oid(:'gap_seen');
SELECT pg_sleep(0.3);
SELECT * FROM pg_temp.counts_of('cache_gap');
SELECT pg_temp.oid_gap(0);
DROP TABLE cache_gap;

-- TRUNCATE, VACUUM FULL and CLUSTER rewrite the TOAST table.
CREATE FUNCTION pg_temp.reuse_right() RETURNS bool LANGUAGE sql AS $$
    -- k holds odd keys only, e even ones
    SELECT array_symdiff_gpu(k, e) = (SELECT array_agg(v ORDER BY v) FROM
                                      (SELECT unnest(k) v UNION ALL SELECT unnest(e)) t)
    FROM cache_reuse, evens $$;
SELECT pg_temp.reuse_right() AS right_before_rewrites;
TRUNCATE cache_reuse;
INSERT INTO cache_reuse SELECT ARRAY(SELECT i * 4 + 1 FROM generate_series(1, 50000) i);
SELECT pg_temp.stored_identity(k) <> :'id2' AS truncate_new_identity FROM cache_reuse;
SELECT pg_temp.reuse_right() AS right_after_truncate;
SELECT pg_temp.stored_identity(k) AS id3 FROM cache_reuse \gset
VACUUM FULL cache_reuse;
SELECT pg_temp.stored_identity(k) <> :'id3' AS vacuum_full_new_identity FROM cache_reuse;
SELECT pg_temp.reuse_right() AS right_after_vacuum_full;
SELECT pg_temp.stored_identity(k) AS id4 FROM cache_reuse \gset
ALTER TABLE cache_reuse ADD COLUMN n int DEFAULT 1;
CREATE INDEX cache_reuse_n_idx ON cache_reuse (n);
CLUSTER cache_reuse USING cache_reuse_n_idx;
SELECT pg_temp.stored_identity(k) <> :'id4' AS cluster_new_identity FROM cache_reuse;
SELECT pg_temp.reuse_right() AS right_after_cluster;

-- a cached argument with an unsorted one: the CPU engine's error
SELECT pg_temp.reuse_right() AS cached_again;
SELECT array_intersect_gpu(k, ARRAY[3, 2, 1]) FROM cache_reuse;
SELECT array_union_gpu(ARRAY[5, 4], k) FROM cache_reuse;
-- ... one built element by element (its order known as it is read): the
-- same error, the cached one read first; overlaps answers past the break,
-- with a cached argument or without, on every device as on the CPU
CREATE FUNCTION pg_temp.built(VARIADIC keys int4[]) RETURNS int4[] LANGUAGE plpgsql AS $$
DECLARE
  r int4[] := '{}';
BEGIN
  FOR i IN 1..cardinality(keys) LOOP r[i] := keys[i]; END LOOP;
  RETURN r;
END $$;
SELECT array_intersect_gpu(k, pg_temp.built(9, 5)) FROM cache_reuse;
SELECT array_intersect_count(k, pg_temp.built(9, 5)) FROM cache_reuse;
SELECT array_overlaps(k, pg_temp.built(13, 9, 5)) AS overlaps_past_break FROM cache_reuse;
SELECT array_overlaps(pg_temp.built(1, 3, 2), '{1}'::int4[]) AS overlaps_past_break;
SELECT array_overlaps(pg_temp.built(1, 3, 2), '{7,8}'::int4[]);

-- Operations larger than one slot of the service (CI's 64 MB are 8 slots
-- of 8 MB) go in one request through adjacent slots: stored rows of 2.5M
-- keys (answered from the cache where it holds them, else sent), and
-- PL/pgSQL variables; every answer the CPU engine's.
CREATE TABLE cache_big (id int, k int4[]);
ALTER TABLE cache_big ALTER k SET STORAGE EXTERNAL;
INSERT INTO cache_big
SELECT r, ARRAY(SELECT i * 3 + (i * 7 + r) % 5 FROM generate_series(0, 2499999) i)
FROM generate_series(1, 2) r;
CREATE FUNCTION pg_temp.big_answers() RETURNS text LANGUAGE sql AS $$
    SELECT md5(array_intersect_gpu(x.k, y.k)::text) || md5(array_union_gpu(x.k, y.k)::text) ||
           array_intersect_count(x.k, y.k)
    FROM cache_big x, cache_big y WHERE x.id = 1 AND y.id = 2 $$;
SET setops.device = cpu;
SELECT pg_temp.big_answers() AS big_cpu \gset
RESET setops.device;
SELECT pg_temp.big_answers() = :'big_cpu' AS big_cold, pg_temp.big_answers() = :'big_cpu' AS big_warm;
DO $$
DECLARE
    a int4[] := ARRAY(SELECT i * 2 FROM generate_series(1, 1500000) i);
    b int4[] := ARRAY(SELECT i * 3 FROM generate_series(1, 1500000) i);
    here text := md5(array_intersect_gpu(a, b)::text) || md5(array_union_gpu(a, b)::text) ||
                 md5(array_symdiff_gpu(a, b)::text);
    cpu text;
BEGIN
    SET LOCAL setops.device = cpu;
    cpu := md5(array_intersect_gpu(a, b)::text) || md5(array_union_gpu(a, b)::text) ||
           md5(array_symdiff_gpu(a, b)::text);
    IF here IS DISTINCT FROM cpu THEN
        RAISE EXCEPTION 'large variables: % against the CPU engine''s %', here, cpu;
    END IF;
END $$;
DROP TABLE cache_big;

SELECT within_capacity FROM pg_temp.cache();
DROP TABLE cache_t, cache_bad, cache_reuse;

-- A value's identity is read the second time from where its first chunk
-- was found (one heap fetch instead of an index probe).  It must equal
-- what a new session finds through the index, also when that place has
-- gone stale: the values deleted, the TOAST table vacuumed (and cut
-- short), their ids reused by values stored elsewhere.
CREATE TABLE cache_place (id int, k int4[]);
ALTER TABLE cache_place ALTER k SET STORAGE EXTERNAL;
INSERT INTO cache_place
SELECT r, ARRAY(SELECT i * r FROM generate_series(1, 20000) i) FROM generate_series(1, 3) r;
SELECT string_agg(pg_temp.stored_identity(k), ',' ORDER BY id) AS place1,
       min(split_part(pg_temp.stored_identity(k), ' ', 3)) FILTER (WHERE id = 1) AS v1,
       min(split_part(pg_temp.stored_identity(k), ' ', 3)) FILTER (WHERE id = 3) AS v3
FROM cache_place \gset
SELECT string_agg(pg_temp.stored_identity(k), ',' ORDER BY id) = :'place1' AS remembered_same
FROM cache_place;
DELETE FROM cache_place;
VACUUM cache_place;
SELECT pg_temp.set_next_oid(:'v3');
INSERT INTO cache_place SELECT 3, ARRAY(SELECT i * 7 FROM generate_series(1, 20000) i);
SELECT pg_temp.set_next_oid(:'v1');
INSERT INTO cache_place SELECT 1, ARRAY(SELECT i * 5 FROM generate_series(1, 20000) i);
SELECT string_agg(pg_temp.stored_identity(k), ',' ORDER BY id) AS place2,
       string_agg(split_part(pg_temp.stored_identity(k), ' ', 3), ',' ORDER BY id)
         = :'v1' || ',' || :'v3' AS value_ids_reused
FROM cache_place \gset
SELECT :'value_ids_reused' AS value_ids_reused, :'place2' <> :'place1' AS identities_differ;
\c
CREATE FUNCTION pg_temp.stored_identity(anyelement) RETURNS text
    AS '$libdir/setops', 'setops_test_stored_identity' LANGUAGE C STRICT;
SELECT string_agg(pg_temp.stored_identity(k), ',' ORDER BY id) = :'place2' AS index_finds_same
FROM cache_place;
DROP TABLE cache_place;
