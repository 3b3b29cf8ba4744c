#!/usr/bin/env bash
# test/bench/batch_bench.sh [runs] [window_rows]
#
# Segmented batches inside PostgreSQL, side by side in one run, medians of
# `runs` (each query's wall time, from a PL/pgSQL clock around EXECUTE):
#
#   window  every row's overlap with one 100,000-key constant:
#             per-row cpu   cardinality(array_intersect_gpu(items, probe()))
#                           with setops.device = cpu (one call per row)
#             batch gpu     cardinality(array_intersect_batch(items, probe())
#                           OVER ()) with setops.device = gpu
#             batch cpu     the same window function on the CPU engine
#           over window_rows rows (default 1,000,000) of 900 to 1,099 int4
#           each (1,000 different arrays, repeated: generating 10^9 random
#           keys would take longer than the benchmark).  Every form's
#           answers are compared (count, sum of cardinalities, sum of
#           hashes of each row's result).
#   agg     array_union_agg over 10,000 rows of 10,000 int4, 100,000 rows
#           of 100 and 100 rows of 1,000,000 (keys in [0, 10^9), each row
#           sorted and distinct), setops.device = cpu against gpu, and the
#           time to read the rows alone (sum of cardinalities); answers
#           compared (count and keys at five places).  Parallel query off, so both sides aggregate in one
#           backend.  The gpu forms stream the rows to the device as they
#           come (setops.agg_stream_min_size); two more forms: every row
#           detoasted before the aggregate sees it (copied twice on its way
#           to the slot, not once from its TOAST chunks), and the rows kept
#           in host memory until the final function, as before streaming.
#
# Needs a running cluster with setops preloaded (PGHOST etc. set).
# BATCH_BENCH_PARTS (default "window agg") picks the parts; slow_runs
# (default runs) the runs of the window part's CPU forms, which are slow.
# BATCH_BENCH_AGG_SHAPES ("rows keys;..."; default the three above) the
# agg part's shapes; SETOPS_BENCH_DEVICE (default gpu) the setops.device of
# the forms named gpu (test/bench/smoke.sh sets cpu, auto or gpu there).
set -euo pipefail
runs=${1:-3}
wrows=${2:-1000000}
slow_runs=${3:-$runs}
parts=${BATCH_BENCH_PARTS:-window agg}
shapes=${BATCH_BENCH_AGG_SHAPES:-10000 10000;100000 100;100 1000000}
dev=${SETOPS_BENCH_DEVICE:-gpu}

psql -Xq -v ON_ERROR_STOP=1 -v wrows="$wrows" <<'SQL'
CREATE EXTENSION IF NOT EXISTS setops;
DROP SCHEMA IF EXISTS setops_batch_bench CASCADE;
CREATE SCHEMA setops_batch_bench;
SET search_path = setops_batch_bench, public;
-- the constant: every 40th key of [0, 4M)
CREATE FUNCTION probe() RETURNS int4[] LANGUAGE sql IMMUTABLE
AS $$ SELECT array_agg(i * 40) FROM generate_series(0, 99999) i $$;
-- one key in each 4,000-wide bucket: sorted, distinct, about 25 in common
CREATE TABLE base AS
SELECT b, (SELECT array_agg(j * 4000 + (random() * 3999)::int + 0 * b)
           FROM generate_series(0, 899 + (b % 200)) j) AS items
FROM generate_series(0, 999) b;
CREATE TABLE w AS SELECT i AS id, items FROM generate_series(1, :wrows) i JOIN base ON b = i % 1000;
ANALYZE w;
CREATE FUNCTION median(v float8[]) RETURNS float8 LANGUAGE sql IMMUTABLE
AS $$ SELECT x FROM unnest(v) x ORDER BY x OFFSET (cardinality(v) - 1) / 2 LIMIT 1 $$;
-- ms of each run of query under setops.device = device, and its answer
CREATE FUNCTION time_query(query text, device text, runs int, OUT ms float8[], OUT answer text)
LANGUAGE plpgsql AS $$
DECLARE
    t timestamptz;
BEGIN
    ms := '{}';
    PERFORM set_config('setops.device', device, true);
    FOR i IN 1 .. runs LOOP
        t := clock_timestamp();
        EXECUTE query INTO answer;
        ms := ms || extract(epoch FROM clock_timestamp() - t)::float8 * 1000;
    END LOOP;
END $$;
SQL

if [[ " $parts " == *" window "* ]]; then
echo "== window: overlap of $wrows rows (~1,000 int4 each) with a 100,000-key constant; medians of $runs ($slow_runs per-row)"
psql -Xq -v ON_ERROR_STOP=1 -v runs="$runs" -v slow_runs="$slow_runs" -v dev="$dev" <<'SQL'
SET search_path = setops_batch_bench, public;
SET max_parallel_workers_per_gather = 0;
SET work_mem = '256MB';
CREATE TEMP TABLE results (form text, ms float8[], answer text);
INSERT INTO results SELECT 'batch gpu', * FROM time_query($q$
    SELECT count(*) || ' ' || sum(cardinality(r)) || ' ' || sum(hashtext(r::text)) FROM
      (SELECT array_intersect_batch(items, probe()) OVER () AS r FROM w) s $q$, :'dev', :runs);
INSERT INTO results SELECT 'batch cpu', * FROM time_query($q$
    SELECT count(*) || ' ' || sum(cardinality(r)) || ' ' || sum(hashtext(r::text)) FROM
      (SELECT array_intersect_batch(items, probe()) OVER () AS r FROM w) s $q$, 'cpu', :slow_runs);
INSERT INTO results SELECT 'per-row cpu', * FROM time_query($q$
    SELECT count(*) || ' ' || sum(cardinality(r)) || ' ' || sum(hashtext(r::text)) FROM
      (SELECT array_intersect_gpu(items, probe()) AS r FROM w) s $q$, 'cpu', :slow_runs);
INSERT INTO results SELECT 'reading the rows', * FROM time_query($q$
    SELECT count(*) || ' ' || sum(cardinality(items)) FROM w $q$, 'cpu', :runs);
SELECT form, round(median(ms)::numeric, 1) AS median_ms, ms, answer,
       round((median((SELECT ms FROM results WHERE form = 'per-row cpu')) / median(ms))::numeric, 2)
         AS speedup_vs_per_row_cpu
FROM results;
DO $$ BEGIN
    IF (SELECT count(DISTINCT answer) FROM results WHERE form <> 'reading the rows') <> 1 THEN
        RAISE EXCEPTION 'batch_bench: the forms disagree';
    END IF;
END $$;
SQL
fi

[[ " $parts " == *" agg "* ]] || exit 0
echo "== agg: array_union_agg, cpu against $dev; medians of $runs"
IFS=';' read -ra shape_list <<<"$shapes"
for shape in "${shape_list[@]}"; do
	set -- $shape
	psql -Xq -v ON_ERROR_STOP=1 -v rows="$1" -v n="$2" -v runs="$runs" -v dev="$dev" <<'SQL'
SET search_path = setops_batch_bench, public;
SET max_parallel_workers_per_gather = 0;
SET work_mem = '1GB';
DROP TABLE IF EXISTS a;
-- one key in each of n buckets of [0, 10^9): sorted and distinct per row
CREATE TABLE a AS
SELECT r, (SELECT array_agg(j * (1000000000 / :n) + (random() * (1000000000 / :n - 1))::int + 0 * r)
           FROM generate_series(0, :n - 1) j) AS a
FROM generate_series(1, :rows) r;
ANALYZE a;
-- how the rows are stored (a streamed row stored uncompressed out of line
-- is read from its TOAST chunks straight into the stream's slot)
SELECT count(*) AS rows, count(*) FILTER (WHERE pg_column_compression(a) IS NULL AND
                                          pg_column_size(a) > 2100) AS uncompressed_out_of_line
FROM a;
CREATE TEMP TABLE results (form text, ms float8[], answer text);
-- answers compared by count and keys at five places (the result is too
-- large for a text hash)
INSERT INTO results SELECT 'gpu', * FROM time_query($q$
    SELECT concat_ws(' ', cardinality(u), u[1], u[cardinality(u) / 3], u[cardinality(u) / 2],
                     u[cardinality(u) - 7], u[cardinality(u)])
    FROM (SELECT array_union_agg(a) AS u FROM a) s $q$, :'dev', :runs);
INSERT INTO results SELECT 'cpu', * FROM time_query($q$
    SELECT concat_ws(' ', cardinality(u), u[1], u[cardinality(u) / 3], u[cardinality(u) / 2],
                     u[cardinality(u) - 7], u[cardinality(u)])
    FROM (SELECT array_union_agg(a) AS u FROM a) s $q$, 'cpu', :runs);
-- the same without the text hash (what the ratio is about)
INSERT INTO results SELECT 'gpu, count only', * FROM time_query(
    'SELECT cardinality(array_union_agg(a)) FROM a', :'dev', :runs);
-- the last gpu run's final function: staging the rows on the device
-- (upload), the rounds (kernel), the result back into its array (download)
SELECT 'gpu final function' AS phase, * FROM setops_last_timing();
INSERT INTO results SELECT 'cpu, count only', * FROM time_query(
    'SELECT cardinality(array_union_agg(a)) FROM a', 'cpu', :runs);
SELECT 'cpu final function' AS phase, * FROM setops_last_timing();
-- the same with every row detoasted before the aggregate sees it (a ||
-- '{}' is the row read into memory): the two copies a streamed row made
-- before it was read from its TOAST chunks straight into the slot
INSERT INTO results SELECT 'gpu, count only, rows detoasted first', * FROM time_query(
    $q$SELECT cardinality(array_union_agg(a || '{}'::int4[])) FROM a$q$, :'dev', :runs);
-- the gpu without streaming: every row appended to host memory, the
-- whole state staged on the device by the final function
SET setops.agg_stream_min_size = -1;
INSERT INTO results SELECT 'gpu, count only, rows in memory', * FROM time_query(
    'SELECT cardinality(array_union_agg(a)) FROM a', :'dev', :runs);
SELECT 'gpu final function, rows in memory' AS phase, * FROM setops_last_timing();
RESET setops.agg_stream_min_size;
INSERT INTO results SELECT 'reading the rows', * FROM time_query(
    'SELECT sum(cardinality(a)) FROM a', 'cpu', :runs);
\echo rows :rows of :n keys
SELECT form, round(median(ms)::numeric, 1) AS median_ms, ms, answer FROM results;
SELECT round((median((SELECT ms FROM results WHERE form = 'cpu, count only')) /
              median((SELECT ms FROM results WHERE form = 'gpu, count only')))::numeric, 2) AS gpu_speedup;
DO $$ BEGIN
    IF (SELECT count(DISTINCT answer) FROM results WHERE form IN ('gpu', 'cpu')) <> 1 OR
       (SELECT count(DISTINCT answer) FROM results
        WHERE form IN ('gpu, count only', 'cpu, count only', 'gpu, count only, rows in memory',
                       'gpu, count only, rows detoasted first')) <> 1 THEN
        RAISE EXCEPTION 'batch_bench: gpu and cpu disagree';
    END IF;
END $$;
SQL
done
