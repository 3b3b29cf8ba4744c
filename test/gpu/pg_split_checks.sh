#!/usr/bin/env bash
# test/gpu/pg_split_checks.sh: operations large enough for the GPU service
# to split them over every GPU (from 4M input keys), in gpu mode, against
# the CPU engine on the same arrays: all four operations, int4 and int8,
# duplicates and extremes.  Prints the service's devices and cache figures.
set -euo pipefail
log=$(mktemp)
psql -X -v ON_ERROR_STOP=1 <<'SQL' | tee "$log"
CREATE EXTENSION IF NOT EXISTS setops;
SELECT device, name, total_memory FROM setops_devices();
CREATE TEMP TABLE split_in AS
SELECT array_sort_gpu(ARRAY(SELECT (random() * 3000000)::int4 FROM generate_series(1, 5000000))) AS a,
       array_sort_gpu(ARRAY(SELECT (random() * 3000000)::int4 FROM generate_series(1, 4000000))
                      || ARRAY[-2147483648, 2147483647, 2147483647]) AS b;
UPDATE split_in SET b = array_sort_gpu(b);
CREATE FUNCTION pg_temp.check(a anyarray, b anyarray) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    g a%TYPE;
    c a%TYPE;
    op text;
    bad text := '';
BEGIN
    FOREACH op IN ARRAY ARRAY['intersect', 'union', 'difference', 'symdiff'] LOOP
        PERFORM set_config('setops.device', 'gpu', true);
        EXECUTE format('SELECT array_%s_gpu($1, $2)', op) INTO g USING a, b;
        PERFORM set_config('setops.device', 'cpu', true);
        EXECUTE format('SELECT array_%s_gpu($1, $2)', op) INTO c USING a, b;
        IF g IS DISTINCT FROM c THEN
            bad := bad || op || ' ';
        END IF;
    END LOOP;
    RETURN CASE WHEN bad = '' THEN 'all four identical' ELSE 'DIFFER: ' || bad END;
END $$;
SELECT 'int4' AS keys, pg_temp.check(a, b) FROM split_in
UNION ALL
SELECT 'int8', pg_temp.check(a::int8[], b::int8[]) FROM split_in;
SELECT * FROM setops_cache_stats();
SQL
! grep -q DIFFER "$log" && [ "$(grep -c 'all four identical' "$log")" = 2 ]
