#!/usr/bin/env bash
# Streamed aggregates on the GPU machine, with a cluster up
# (test/gpu/device_run.sh streamchecks):
#   1. array_union_agg and array_merge_agg over 3,000 rows of 10,000 int4
#      stream every row (setops_last_timing().streamed_rows) and answer as
#      the CPU engine does;
#   2. device memory is the same before and after 10 streamed aggregates,
#      and after 5 that fail mid-stream (an unsorted row): their device
#      stages are freed.
# Exits non-zero when a check fails.
set -uo pipefail

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE EXTENSION IF NOT EXISTS setops;
DROP TABLE IF EXISTS stream_rows;
CREATE TABLE stream_rows AS
SELECT r, (SELECT array_agg(j * 100000 + (random() * 99999)::int + 0 * r) FROM generate_series(0, 9999) j) AS a
FROM generate_series(1, 3000) r;
SET setops.agg_stream_min_size = 0;
DO $$
DECLARE
    f0 bigint;
    f1 bigint;
    f2 bigint;
    got text;
    want text;
    rows bigint;
BEGIN
    PERFORM set_config('setops.device', 'cpu', true);
    SELECT cardinality(u) || ' ' || u[1] || ' ' || u[cardinality(u) / 2] || ' ' || u[cardinality(u)] || ' ' ||
           (SELECT cardinality(m) || ' ' || m[cardinality(m) / 3] FROM (SELECT array_merge_agg(a) AS m FROM stream_rows) t)
      INTO want FROM (SELECT array_union_agg(a) AS u FROM stream_rows) s;
    PERFORM set_config('setops.device', 'gpu', true);
    PERFORM array_union_agg(a) FROM stream_rows;
    SELECT free_memory INTO f0 FROM setops_devices() WHERE device = 0;
    FOR i IN 1 .. 10 LOOP
        SELECT cardinality(u) || ' ' || u[1] || ' ' || u[cardinality(u) / 2] || ' ' || u[cardinality(u)] || ' ' ||
               (SELECT cardinality(m) || ' ' || m[cardinality(m) / 3] FROM (SELECT array_merge_agg(a) AS m FROM stream_rows) t)
          INTO got FROM (SELECT array_union_agg(a) AS u FROM stream_rows) s;
        SELECT streamed_rows INTO rows FROM setops_last_timing();
        IF got IS DISTINCT FROM want THEN
            RAISE EXCEPTION 'run %: % streamed, cpu %', i, got, want;
        END IF;
        IF rows <> 3000 THEN
            RAISE EXCEPTION 'run %: % rows streamed, not 3000', i, rows;
        END IF;
    END LOOP;
    SELECT free_memory INTO f1 FROM setops_devices() WHERE device = 0;
    FOR i IN 1 .. 5 LOOP
        BEGIN
            PERFORM array_union_agg(CASE WHEN r = 2000 THEN '{3,1}' ELSE a END) FROM stream_rows;
            RAISE EXCEPTION 'an unsorted row passed';
        EXCEPTION WHEN invalid_parameter_value THEN
            NULL;
        END;
    END LOOP;
    SELECT free_memory INTO f2 FROM setops_devices() WHERE device = 0;
    RAISE NOTICE 'answers: %; free device memory % before, % after 10 streamed aggregates, % after 5 failed ones',
        got, f0, f1, f2;
    IF f1 <> f0 OR f2 <> f0 THEN
        RAISE EXCEPTION 'device memory moved by % and % bytes', f0 - f1, f0 - f2;
    END IF;
END $$;
DROP TABLE stream_rows;
SQL
