#!/usr/bin/env bash
# test/bench/cache_bench.sh [runs] [n] [rows]
#
# A repeated query over a table of stored (TOASTed) int4[] arrays of n keys
# each: array_intersect_gpu of two rows against intarray's & on the same
# rows, side by side in one run, medians of `runs`:
#   intarray   x.a & y.a
#   cpu        the CPU engine (setops.device = cpu)
#   gpu_nocache  the GPU with the device cache off (setops.gpu_cache_size = 0):
#              every call detoasts and sends both arrays
#   gpu_cold   the first call after the cache was emptied (one call): detoast,
#              send, keep on the device
#   gpu_warm   later calls: only the arrays' identities cross; the answer
#              comes from device memory
# Each is timed in two forms: the result array assigned to a PL/pgSQL
# variable (which itself copies the array) and only its cardinality()
# taken, as a query that counts common members would.
# The medians of where the time went inside the function follow.
# Every answer is compared with intarray's (distinct keys: the two agree).
# Keys: sorted, distinct, a quarter of [0, 4n) (about n/4 in common).
#
# Needs a running cluster with setops preloaded and intarray installed
# (PGHOST etc. set).  Defaults: 7 runs, 16M keys, 4 rows.
# SETOPS_BENCH_DEVICE (default gpu): the setops.device of the gpu_* forms;
# the smoke runs (test/bench/smoke.sh) set cpu or auto there, and on a
# server without the GPU service the cache settings are left alone.
set -euo pipefail
runs=${1:-7}
n=${2:-16000000}
rows=${3:-4}
dev=${SETOPS_BENCH_DEVICE:-gpu}
service=$(psql -XAtq -c "SELECT current_setting('shared_preload_libraries') ~ '\msetops\M'")

psql -Xq -v ON_ERROR_STOP=1 -v n="$n" -v rows="$rows" <<'SQL'
CREATE EXTENSION IF NOT EXISTS setops;
CREATE EXTENSION IF NOT EXISTS intarray;
DROP SCHEMA IF EXISTS setops_cache_bench CASCADE;
CREATE SCHEMA setops_cache_bench;
CREATE TABLE setops_cache_bench.t (id int PRIMARY KEY, a int4[]);
ALTER TABLE setops_cache_bench.t ALTER a SET STORAGE EXTERNAL;
-- (the subquery names r: one array per row, not one for all)
INSERT INTO setops_cache_bench.t
SELECT r, (SELECT array_agg((i * 4 + floor(random() * 4) + 0 * r)::int4 ORDER BY i)
           FROM generate_series(0, :n - 1) i)
FROM generate_series(1, :rows) r;
-- rows differ (else every intersection would be a whole row)
DO $$ BEGIN
    IF (SELECT count(DISTINCT md5(a::text)) FROM setops_cache_bench.t) <>
       (SELECT count(*) FROM setops_cache_bench.t) THEN
        RAISE EXCEPTION 'cache_bench: rows are not all different';
    END IF;
END $$;
CREATE FUNCTION setops_cache_bench.median(v float8[]) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
    SELECT x FROM unnest(v) x ORDER BY x OFFSET (cardinality(v) - 1) / 2 LIMIT 1 $$;
-- ms of each of `runs` calls on rows (1,2), (2,3), ... in turn; checked
-- against intarray
CREATE FUNCTION setops_cache_bench.time(what text, runs int, count_only bool) RETURNS float8[]
LANGUAGE plpgsql AS $$
DECLARE
    nrows int := (SELECT count(*) FROM setops_cache_bench.t);
    c int;
    r int4[];
    want int4[];
    t timestamptz;
    ms float8[] := '{}';
    i int;
    x int;
BEGIN
    FOR i IN 1 .. runs LOOP
        x := (i - 1) % nrows + 1;
        t := clock_timestamp();
        IF what = 'intarray' AND count_only THEN
            SELECT cardinality(p.a & q.a) INTO c FROM setops_cache_bench.t p, setops_cache_bench.t q
            WHERE p.id = x AND q.id = x % nrows + 1;
        ELSIF what = 'intarray' THEN
            SELECT p.a & q.a INTO r FROM setops_cache_bench.t p, setops_cache_bench.t q
            WHERE p.id = x AND q.id = x % nrows + 1;
        ELSIF count_only THEN
            SELECT cardinality(array_intersect_gpu(p.a, q.a)) INTO c
            FROM setops_cache_bench.t p, setops_cache_bench.t q
            WHERE p.id = x AND q.id = x % nrows + 1;
        ELSE
            SELECT array_intersect_gpu(p.a, q.a) INTO r FROM setops_cache_bench.t p, setops_cache_bench.t q
            WHERE p.id = x AND q.id = x % nrows + 1;
        END IF;
        ms := ms || extract(epoch FROM clock_timestamp() - t) * 1000;
        IF what <> 'intarray' THEN
            -- columns named: setops_last_timing() may gain more
            INSERT INTO setops_cache_bench.splits
            SELECT what, CASE WHEN count_only THEN 'count' ELSE 'array' END, l.device,
                   l.read_ms, l.upload_ms, l.decode_ms, l.kernel_ms, l.download_ms, l.cpu_ms,
                   l.result_ms, l.total_ms
            FROM setops_last_timing() l;
        END IF;
        SELECT p.a & q.a INTO want FROM setops_cache_bench.t p, setops_cache_bench.t q
        WHERE p.id = x AND q.id = x % nrows + 1;
        IF count_only AND c IS DISTINCT FROM cardinality(want) THEN
            RAISE EXCEPTION '%: rows % and %: % keys, intarray %', what, x, x % nrows + 1,
                c, cardinality(want);
        END IF;
        IF NOT count_only AND r IS DISTINCT FROM want THEN
            RAISE EXCEPTION '%: rows % and %: % keys, intarray %', what, x, x % nrows + 1,
                cardinality(r), cardinality(want);
        END IF;
    END LOOP;
    RETURN ms;
END $$;
CREATE TABLE setops_cache_bench.results (what text, form text, runs int, median_ms float8,
                                         all_ms float8[]);
-- where each call's time went inside the function (setops_last_timing)
CREATE TABLE setops_cache_bench.splits (what text, form text, device text, read_ms float8,
    upload_ms float8, decode_ms float8, kernel_ms float8, download_ms float8, cpu_ms float8,
    result_ms float8, total_ms float8);
SQL

cache_size() {	# value; waits until the service applied it
	[ "$service" = t ] || return 0
	psql -XAtq -c "ALTER SYSTEM SET setops.gpu_cache_size = '$1'" -c 'SELECT pg_reload_conf()' >/dev/null
	for _ in $(seq 1 50); do
		if [ "$1" = 0 ]; then
			[ "$(psql -XAtq -c 'SELECT coalesce(sum(capacity_bytes), 0) FROM setops_cache_stats()')" = 0 ] && return 0
		else
			[ "$(psql -XAtq -c 'SELECT coalesce(sum(capacity_bytes), 0) > 0 FROM setops_cache_stats()')" = t ] && return 0
		fi
		sleep 0.2
	done
	echo "the service did not apply setops.gpu_cache_size = $1" >&2
	exit 1
}

measure() {	# label, device, runs: both forms
	local form
	for form in array count; do
		psql -Xq -v ON_ERROR_STOP=1 -c "SET setops.device = $2" -c \
			"INSERT INTO setops_cache_bench.results SELECT '$1', '$form', $3, setops_cache_bench.median(m), m
			 FROM setops_cache_bench.time('$1', $3, '$form' = 'count') m"
	done
}

psql -XAtq -c 'SELECT name, total_memory FROM setops_devices()'
echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
measure intarray cpu "$runs"
measure cpu cpu "$runs"
cache_size 0
measure gpu_nocache "$dev" "$runs"
cache_size -1
# cold: the first call (both rows new to the cache; array form, then the
# count form with the cache emptied again), then warm
psql -Xq -v ON_ERROR_STOP=1 -c "SET setops.device = $dev" -c \
	"INSERT INTO setops_cache_bench.results SELECT 'gpu_cold', 'array', 1, m[1], m
	 FROM setops_cache_bench.time('gpu_cold', 1, false) m"
cache_size 0
cache_size -1
psql -Xq -v ON_ERROR_STOP=1 -c "SET setops.device = $dev" -c \
	"INSERT INTO setops_cache_bench.results SELECT 'gpu_cold', 'count', 1, m[1], m
	 FROM setops_cache_bench.time('gpu_cold', 1, true) m"
psql -Xq -c 'SELECT * FROM setops_cache_stats()'
measure gpu_warm "$dev" "$runs"
psql -Xq -c 'SELECT * FROM setops_cache_stats()'
psql -X -c "SELECT what, form, count(*) AS calls,
                   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY read_ms)::numeric, 3) AS read_ms,
                   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY upload_ms)::numeric, 3) AS upload_ms,
                   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY kernel_ms)::numeric, 3) AS kernel_ms,
                   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY download_ms)::numeric, 3) AS download_ms,
                   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu_ms)::numeric, 3) AS cpu_ms,
                   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY result_ms)::numeric, 3) AS result_ms,
                   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY total_ms)::numeric, 3) AS in_function_ms
            FROM setops_cache_bench.splits GROUP BY what, form ORDER BY form, what"
psql -X -c "SELECT what, form, runs, round(median_ms::numeric, 3) AS median_ms,
                   round(((SELECT i.median_ms FROM setops_cache_bench.results i
                           WHERE i.what = 'intarray' AND i.form = r.form) /
                          median_ms)::numeric, 1) AS x_vs_intarray,
                   (SELECT round(avg(cardinality(a))) FROM setops_cache_bench.t) AS keys_per_row,
                   (SELECT round(avg(cardinality(p.a & q.a))) FROM setops_cache_bench.t p,
                           setops_cache_bench.t q WHERE q.id = p.id % $rows + 1) AS keys_in_result
            FROM setops_cache_bench.results r ORDER BY form, median_ms DESC"
[ "$service" = t ] &&
	psql -XAtq -c "ALTER SYSTEM RESET setops.gpu_cache_size" -c 'SELECT pg_reload_conf()' >/dev/null
psql -Xq -c 'DROP SCHEMA setops_cache_bench CASCADE'
