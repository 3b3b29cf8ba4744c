#!/usr/bin/env bash
# test/bench/agg_stream_ab.sh [RUNS] [ROWS] [KEYS]: how a streamed
# array_union_agg takes its rows, measured side by side: ROWS rows of KEYS
# int4 (default 10,000 of 10,000) stored
# uncompressed out of line, union counted on the GPU, the forms run in
# turn RUNS times (default 9) so that a noisy host hurts them alike:
#   stored     the rows as stored: each read from its TOAST chunks straight
#              into the stream's slot (one copy)
#   detoasted  the same rows detoasted first (a || '{}'): into backend
#              memory, then copied into the slot (two copies)
#   stored, copy_threads = 1  as stored, the backend copying alone (the
#              result out of the slot, above all)
#   read only  reading the rows and nothing more (sum of cardinalities)
# Each form's median, and of the streamed ones: the final function's, what
# came before it, of that the transition calls since the stream began
# (setops_last_timing's read_ms), and every wait for the rows' transfers
# (upload_ms).
# Needs a running cluster with setops preloaded (PGHOST etc. set).
# SETOPS_BENCH_DEVICE (default gpu): the setops.device of the run
# (test/bench/smoke.sh sets cpu, auto or gpu).
set -euo pipefail
runs=${1:-9}
rows=${2:-10000}
keys=${3:-10000}
PGOPTIONS="${PGOPTIONS:-} -c ab.runs=$runs" psql -Xq -v ON_ERROR_STOP=1 \
	-v dev="${SETOPS_BENCH_DEVICE:-gpu}" -v rows="$rows" -v keys="$keys" <<'SQL'
CREATE EXTENSION IF NOT EXISTS setops;
-- its settings exist once the library is loaded (the DO block reads one)
LOAD 'setops';
SET max_parallel_workers_per_gather = 0;
SET setops.device = :'dev';
DROP TABLE IF EXISTS agg_stream_ab;
CREATE TABLE agg_stream_ab AS
SELECT r, (SELECT array_agg(j * 100000 + (random() * 99999)::int + 0 * r)
           FROM generate_series(0, :keys - 1) j) AS a
FROM generate_series(1, :rows) r;
ANALYZE agg_stream_ab;
SELECT count(*) AS rows, count(*) FILTER (WHERE pg_column_compression(a) IS NULL AND
                                          pg_column_size(a) > 2100) AS uncompressed_out_of_line
FROM agg_stream_ab;
CREATE TEMP TABLE ab (form text, ms float8, answer int8, final_ms float8, rows_ms float8, wait_ms float8);
DO $$
DECLARE
    forms text[] := ARRAY['stored', 'detoasted', 'stored, copy_threads = 1', 'read only'];
    q text[] := ARRAY['SELECT cardinality(array_union_agg(a)) FROM agg_stream_ab',
                      $q$SELECT cardinality(array_union_agg(a || '{}'::int4[])) FROM agg_stream_ab$q$,
                      'SELECT cardinality(array_union_agg(a)) FROM agg_stream_ab',
                      'SELECT sum(cardinality(a)) FROM agg_stream_ab'];
    threads text := current_setting('setops.copy_threads');
    t timestamptz;
    n int8;
BEGIN
    FOR i IN 0 .. current_setting('ab.runs')::int LOOP	-- run 0 warms up
        FOR f IN 1 .. 4 LOOP
            PERFORM set_config('setops.copy_threads', CASE WHEN f = 3 THEN '1' ELSE threads END, false);
            t := clock_timestamp();
            EXECUTE q[f] INTO n;
            IF i > 0 THEN
                INSERT INTO ab SELECT forms[f], extract(epoch FROM clock_timestamp() - t) * 1000, n,
                                      CASE WHEN f < 4 THEN total_ms END,
                                      CASE WHEN f < 4 THEN read_ms END, CASE WHEN f < 4 THEN upload_ms END
                FROM setops_last_timing();
            END IF;
        END LOOP;
    END LOOP;
END $$;
SELECT form, count(*) AS runs,
       round(percentile_disc(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1) AS median_ms,
       round(min(ms)::numeric, 1) AS min_ms, round(max(ms)::numeric, 1) AS max_ms,
       round(percentile_disc(0.5) WITHIN GROUP (ORDER BY final_ms)::numeric, 1) AS final_median_ms,
       round(percentile_disc(0.5) WITHIN GROUP (ORDER BY ms - final_ms)::numeric, 1) AS before_final_median_ms,
       round(percentile_disc(0.5) WITHIN GROUP (ORDER BY rows_ms)::numeric, 1) AS rows_median_ms,
       round(percentile_disc(0.5) WITHIN GROUP (ORDER BY wait_ms)::numeric, 1) AS wait_median_ms,
       min(answer) = max(answer) AS same_answer
FROM ab GROUP BY form ORDER BY form;
DO $$ BEGIN
    IF (SELECT count(DISTINCT answer) FROM ab WHERE form <> 'read only') <> 1 THEN
        RAISE EXCEPTION 'agg_stream_ab: the forms disagree';
    END IF;
END $$;
DROP TABLE agg_stream_ab;
SQL
