#!/usr/bin/env bash
# test/bench/count_bench.sh [runs] [n] [rows] [index_rows]
#
# The 0.2 counts and predicates inside PostgreSQL, side by side in one run,
# medians of `runs`, every answer compared:
#
#   vars     n + n int4 (default 16M) in PL/pgSQL variables:
#              count      array_intersect_count(a, b)
#              build      cardinality(array_intersect_gpu(a, b))
#              intarray   icount(a & b)
#            on the CPU engine and on SETOPS_BENCH_DEVICE (default gpu);
#            and array_overlaps(a, b) where the first keys match (stops
#            there) and where nothing matches (reads everything).
#   stored   the same count on `rows` (default 4) stored n-key arrays,
#            every row touched once untimed, then `runs` timed calls (the
#            device cache answers them):
#            array_intersect_count against intarray's icount(x & y).
#   index    index_rows (default 1,000,000) posting lists of 20 to 200
#            keys as packed_int4 with setops's GIN index, and as int4[] with
#            intarray's gin__int_ops: `@>` lookups of two keys, each
#            answer set compared.
#
# COUNT_BENCH_THREADS (default "0", the setting's default: half the host's
# CPUs): the vars part once per setops.cpu_threads value listed (the CPU
# engine's count splits over them; in auto mode a count of arrays at hand
# runs there), each row's device then named with its threads ("auto 16t",
# "auto 0t" for the default).
# COUNT_BENCH_PARTS (default "vars stored index") picks the parts.  For
# count and build, where they ran (ran_on) and the median time split of
# setops_last_timing() follow (read, upload, kernel, download, result,
# total: ms).
#
# Keys are sorted and distinct (intarray's set semantics and setops'
# multiset semantics then agree), never all zero.  Needs a running cluster
# (setops preloaded for the GPU) with intarray available (PGHOST etc. set).
set -euo pipefail
runs=${1:-7}
n=${2:-16000000}
rows=${3:-4}
index_rows=${4:-1000000}
dev=${SETOPS_BENCH_DEVICE:-gpu}
parts=" ${COUNT_BENCH_PARTS:-vars stored index} "
has() { case $parts in *" $1 "*) return 0 ;; esac; return 1; }

has vars && vars=1 || vars=0
has stored && stored=1 || stored=0
threads=${COUNT_BENCH_THREADS:-0}
PGOPTIONS="${PGOPTIONS:-} -c bench.n=$n -c bench.runs=$runs -c bench.dev=$dev -c bench.vars=$vars -c bench.stored=$stored -c bench.threads=${threads// /,}" \
	psql -Xq -v ON_ERROR_STOP=1 -v n="$n" -v rows="$rows" <<'SQL'
CREATE EXTENSION IF NOT EXISTS setops;
CREATE EXTENSION IF NOT EXISTS intarray;
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS setops_count_bench CASCADE;
CREATE SCHEMA setops_count_bench;
SET search_path = setops_count_bench, public;
SET max_parallel_workers_per_gather = 0;
CREATE FUNCTION median(v float8[]) RETURNS float8 LANGUAGE sql IMMUTABLE
AS $$ SELECT x FROM unnest(v) x ORDER BY x OFFSET (cardinality(v) - 1) / 2 LIMIT 1 $$;
-- n distinct sorted keys, one in each 4-wide bucket (about n/4 in common)
CREATE FUNCTION keys(n int) RETURNS int4[] LANGUAGE sql VOLATILE
AS $$ SELECT coalesce(array_agg((i * 4 + floor(random() * 4))::int4 ORDER BY i), '{}')
      FROM generate_series(0, n - 1) i $$;
CREATE TABLE results (part text, form text, device text, ms float8[], answer text,
                      split float8[], ran text);

-- vars: each form in turn, `runs` times, on the same two variables
DO $$
DECLARE
    n int := current_setting('bench.n')::int;
    runs int := current_setting('bench.runs')::int;
    a int4[] := keys(n);
    b int4[] := keys(n);
    first_a int4[];
    first_b int4[];
    t timestamptz;
    ms float8;
    sp float8[];
    ans text;
    dev text;
    f text;
    threads int[] := string_to_array(current_setting('bench.threads'), ',')::int[];
    th int;
    label text;
    ran text;
BEGIN
    IF NOT current_setting('bench.vars')::bool THEN
        RETURN;
    END IF;
    -- the first keys match, nothing else need be read
    first_a := '{-1}'::int4[] || a;
    first_b := '{-1}'::int4[] || b;
    FOREACH th IN ARRAY threads LOOP
    PERFORM set_config('setops.cpu_threads', th::text, true);
    FOREACH dev IN ARRAY ARRAY['cpu', current_setting('bench.dev')] LOOP
        PERFORM set_config('setops.device', dev, true);
        label := CASE WHEN cardinality(threads) > 1 THEN dev || ' ' || th || 't' ELSE dev END;
        FOREACH f IN ARRAY ARRAY['count', 'build', 'intarray', 'overlaps, first keys match',
                                 'overlaps, disjoint'] LOOP
            CONTINUE WHEN f = 'intarray' AND (dev <> 'cpu' OR th <> threads[1]);
            FOR i IN 0 .. runs LOOP			-- run 0 warms up
                t := clock_timestamp();
                ans := CASE f WHEN 'count' THEN array_intersect_count(a, b)::text
                              WHEN 'build' THEN cardinality(array_intersect_gpu(a, b))::text
                              WHEN 'intarray' THEN icount(a & b)::text
                              WHEN 'overlaps, first keys match' THEN array_overlaps(first_a, first_b)::text
                              ELSE array_overlaps(a, array_fill(-5, ARRAY[1]) || '{-3}')::text END;
                ms := extract(epoch FROM clock_timestamp() - t) * 1000;
                SELECT ARRAY[read_ms, upload_ms, kernel_ms, download_ms, result_ms, total_ms], device
                INTO sp, ran FROM setops_last_timing();
                IF i > 0 THEN
                    INSERT INTO results VALUES ('vars', f, CASE WHEN f = 'intarray' THEN '-' ELSE label END,
                                                ARRAY[ms], ans, CASE WHEN f IN ('count', 'build') THEN sp END,
                                                CASE WHEN f IN ('count', 'build') THEN ran END);
                END IF;
            END LOOP;
        END LOOP;
    END LOOP;
    END LOOP;
END $$ ;

-- stored: rows of n keys, stored out of line; pairs (1,2), (2,3), ...
CREATE TABLE t (id int PRIMARY KEY, a int4[]);
ALTER TABLE t ALTER a SET STORAGE EXTERNAL;
INSERT INTO t SELECT r, keys(:n) FROM generate_series(1, :rows) r
WHERE current_setting('bench.stored')::bool;
DO $$
DECLARE
    runs int := current_setting('bench.runs')::int;
    nrows int := (SELECT count(*) FROM setops_count_bench.t);
    t timestamptz;
    ans text;
    x int;
    dev text;
    f text;
BEGIN
    IF nrows = 0 THEN
        RETURN;
    END IF;
    FOREACH dev IN ARRAY ARRAY['cpu', current_setting('bench.dev')] LOOP
        PERFORM set_config('setops.device', dev, true);
        FOREACH f IN ARRAY ARRAY['count', 'intarray'] LOOP
            CONTINUE WHEN f = 'intarray' AND dev <> 'cpu';
            -- the first nrows runs touch every row once, untimed: the
            -- device cache's puts finish their copies in the background,
            -- so a row's first use after its put waits for it
            FOR i IN 1 - nrows .. runs LOOP
                x := (i + nrows) % nrows + 1;
                t := clock_timestamp();
                IF f = 'count' THEN
                    SELECT array_intersect_count(p.a, q.a)::text INTO ans
                    FROM setops_count_bench.t p, setops_count_bench.t q
                    WHERE p.id = x AND q.id = x % nrows + 1;
                ELSE
                    SELECT icount(p.a & q.a)::text INTO ans
                    FROM setops_count_bench.t p, setops_count_bench.t q
                    WHERE p.id = x AND q.id = x % nrows + 1;
                END IF;
                IF i > 0 THEN
                    INSERT INTO results VALUES ('stored', f || ' rows ' || x, CASE WHEN f = 'intarray' THEN '-' ELSE dev END,
                                                ARRAY[extract(epoch FROM clock_timestamp() - t) * 1000], ans);
                END IF;
            END LOOP;
        END LOOP;
    END LOOP;
END $$;
SQL

if has vars || has stored; then
psql -Xq -v ON_ERROR_STOP=1 <<'SQL'
SET search_path = setops_count_bench, public;
\echo == vars and stored: medians (ms)
SELECT part, regexp_replace(form, ' rows .*', '') AS form, device, count(*) AS runs,
       round(median(array_agg(ms[1]))::numeric, 3) AS median_ms,
       min(answer) AS answer, string_agg(DISTINCT ran, ',') AS ran_on
FROM results GROUP BY 1, 2, 3 ORDER BY 1 DESC, 2, 3;
\echo == ratios (median against median)
WITH m AS (SELECT part, regexp_replace(form, ' rows .*', '') AS form, device,
                  median(array_agg(ms[1])) AS ms
           FROM results GROUP BY 1, 2, 3)
SELECT c.part, c.device,
       round((b.ms / c.ms)::numeric, 2) AS count_vs_build,
       round((i.ms / c.ms)::numeric, 1) AS count_vs_intarray
FROM m c LEFT JOIN m b ON b.part = c.part AND b.form = 'build' AND b.device = c.device
         JOIN m i ON i.part = c.part AND i.form = 'intarray'
WHERE c.form = 'count' ORDER BY 1 DESC, 2;
\echo == vars: median time split (setops_last_timing, ms)
SELECT form, device, array_agg(m ORDER BY k) AS "read, upload, kernel, download, result, total"
FROM (SELECT form, device, k, round(median(array_agg(split[k]))::numeric, 3) AS m
      FROM results, generate_series(1, 6) k
      WHERE part = 'vars' AND split IS NOT NULL GROUP BY 1, 2, 3) s
GROUP BY 1, 2 ORDER BY 1, 2;
-- every form's answers agree: counts with intarray's, per pair of rows
DO $$ BEGIN
    IF EXISTS (SELECT 1 FROM results WHERE part = 'vars' AND form IN ('count', 'build', 'intarray')
               HAVING count(*) > 0 AND count(DISTINCT answer) <> 1) OR
       EXISTS (SELECT 1 FROM results WHERE part = 'stored'
               GROUP BY regexp_replace(form, '^[a-z]+ ', '') HAVING count(DISTINCT answer) <> 1) OR
       EXISTS (SELECT 1 FROM results WHERE form = 'overlaps, first keys match' AND answer <> 'true') OR
       EXISTS (SELECT 1 FROM results WHERE form = 'overlaps, disjoint' AND answer <> 'false') THEN
        RAISE EXCEPTION 'count_bench: the forms disagree';
    END IF;
END $$;
SQL
fi

# index: GIN on packed posting lists against intarray's GIN on int4[]
if ! has index; then
	:
elif psql -XAtq -c "SELECT count(*) FROM pg_opclass WHERE opcname LIKE 'packed_int4%' AND opcmethod = (SELECT oid FROM pg_am WHERE amname = 'gin')" | grep -qx 0; then
	echo "== index: setops has no GIN operator class here; skipped"
else
psql -Xq -v ON_ERROR_STOP=1 -v index_rows="$index_rows" -v runs="$runs" <<'SQL'
SET search_path = setops_count_bench, public;
SET client_min_messages = warning;
-- posting lists: 20 to 200 distinct keys of 100,000, skewed towards small keys
CREATE TABLE docs AS
SELECT d AS id, ARRAY(SELECT DISTINCT (100000 * power(random(), 2))::int4 AS k
                      FROM generate_series(1, 20 + (d % 181)) ORDER BY 1) AS a
FROM generate_series(1, :index_rows) d;
ALTER TABLE docs ADD p packed_int4;
UPDATE docs SET p = a::packed_int4;
CREATE INDEX docs_p ON docs USING gin (p);
CREATE INDEX docs_a ON docs USING gin (a gin__int_ops);
VACUUM ANALYZE docs;
CREATE TABLE probes AS
SELECT g, ARRAY[(1000 * random())::int4, (1000 + 20000 * random())::int4] AS q
FROM generate_series(1, :runs) g;
UPDATE probes SET q = ARRAY(SELECT DISTINCT unnest(q) ORDER BY 1);
CREATE TABLE index_results (form text, g int, ms float8, answer text);
DO $$
DECLARE
    t timestamptz;
    ans text;
    r record;
BEGIN
    FOR r IN SELECT * FROM setops_count_bench.probes ORDER BY g LOOP
        t := clock_timestamp();
        SELECT count(*) || ':' || coalesce(sum(hashint4(id)), 0) INTO ans
        FROM setops_count_bench.docs WHERE p @> r.q::packed_int4;
        INSERT INTO setops_count_bench.index_results
        VALUES ('setops packed_int4 GIN', r.g, extract(epoch FROM clock_timestamp() - t) * 1000, ans);
        t := clock_timestamp();
        SELECT count(*) || ':' || coalesce(sum(hashint4(id)), 0) INTO ans
        FROM setops_count_bench.docs WHERE a @> r.q;
        INSERT INTO setops_count_bench.index_results
        VALUES ('intarray gin__int_ops', r.g, extract(epoch FROM clock_timestamp() - t) * 1000, ans);
    END LOOP;
END $$;
\echo == index: @> lookups of two keys on :index_rows rows
EXPLAIN (COSTS OFF) SELECT count(*) FROM docs WHERE p @> '{10,2000}'::packed_int4;
EXPLAIN (COSTS OFF) SELECT count(*) FROM docs WHERE a @> '{10,2000}'::int4[];
SELECT form, count(*) AS lookups, round(median(array_agg(ms))::numeric, 3) AS median_ms,
       round(avg(split_part(answer, ':', 1)::int)) AS avg_rows
FROM index_results GROUP BY form ORDER BY form;
DO $$ BEGIN
    IF EXISTS (SELECT 1 FROM setops_count_bench.index_results GROUP BY g HAVING count(DISTINCT answer) <> 1) THEN
        RAISE EXCEPTION 'count_bench: the indexes disagree';
    END IF;
END $$;
SQL
fi
psql -Xq -c 'SET client_min_messages = warning' -c 'DROP SCHEMA setops_count_bench CASCADE'
