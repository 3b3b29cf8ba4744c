#!/usr/bin/env bash
# test/bench/similarity_bench.sh
#
# Issue 34's similarity benchmark, side by side in one run, every answer
# compared: a table of ROWS rows of MINK to MAXK int4 keys each (an int4[]
# column and the same keys as packed_int4), against one QUERY_KEYS-key
# constant.  Each method computes Jaccard for every row ("all") and the
# top 10 rows by Jaccard ("top 10", ties by id):
#
#   per-row cpu       array_jaccard(a, q) per row, setops.device = cpu;
#                     top 10: ORDER BY a <%> q, id LIMIT 10 (Jaccard distance)
#   per-row gpu       the same through the GPU service (setops.device =
#                     SETOPS_BENCH_DEVICE, default gpu)
#   intarray          icount(a & q)::float8 / icount(a | q) per row, on the
#                     first INTARRAY_ROWS rows only (each call sorts the
#                     query again: all rows would take minutes); its
#                     figures are per row, its answers compared with
#                     per-row cpu's on the same rows
#   batch gpu first   array_jaccard_batch(a, q) OVER () on the GPU, its
#                     first run (the rows not yet in the device cache)
#                     (setops.batch_read_workers parallel readers put the
#                     rows into the cache after the first chunk); each
#                     first run after the first finds the device cache
#                     emptied (setops.gpu_cache_size 0 for a moment: needs
#                     a superuser)
#   batch gpu first, no readers  first runs with
#                     setops.batch_read_workers = 0, the cache emptied
#                     before each
#   batch gpu         the same repeated (rows from the device cache)
#   batch gpu packed  array_jaccard_batch(p, q::packed_int4) OVER () on the
#                     packed column: first run, then repeated
#   batch gpu, no read-ahead  batch gpu repeated with setops.batch_read_ahead
#                     off (each chunk read, then counted: the overlap's worth)
#   batch cpu         array_jaccard_batch(a, q) OVER (), setops.device = cpu
#   (top 10 of a batch: ORDER BY array_jaccard_batch(..) OVER () DESC, id
#   LIMIT 10, a WindowAgg under PostgreSQL's top-N heapsort)
#
# Rows and query hold no duplicates: intarray's & and | are set operations
# that drop copies, so only on distinct keys must every method agree.  The
# query's keys are k*8 + h(k) % 7 (gaps of 2 or more); a row of n keys
# takes every (QUERY_KEYS/n)-th query key, each as it is (a hit) or plus 1
# (a miss, never a query key), hits with a per-row probability from 0 to 1:
# sorted and distinct by construction (checked at load with
# array_distinct_gpu), Jaccard spread from 0 to n/QUERY_KEYS.  Generated
# by formula (no random()), in SIM_JOBS parallel sessions (default the
# CPUs, at most 16), into an UNLOGGED table, int4[] stored EXTERNAL (the
# device cache keys stored rows by TOAST identity).
#
# Answers: every run of "all" returns count(j) and bit_xor of
# hashfloat8extended(j, id), a fingerprint of the exact (id, Jaccard)
# pairs; every method's must equal per-row cpu's (intarray: per-row cpu's
# over the same rows), every run's its first; each top-10 id list must
# equal per-row cpu's.  All methods divide the same two integers in
# float8, so the comparison is exact; on a difference the rows that differ
# are counted (exactly, and beyond 1e-12) and a few printed.  Any
# difference, or a method that fails, makes the exit status non-zero.
#
# Figures: medians of RUNS runs (per-row methods and batch cpu: SLOW_RUNS,
# first runs: FIRST_RUNS, both default RUNS), wall time of each query in one backend (PL/pgSQL clock
# around EXECUTE, planning included; parallel query off); rows/s; ratios
# of rows/s against per-row cpu and intarray; GB/s of row keys scanned
# (the rows' keys x 4 bytes / time, the query's not counted) beside the
# GPU's memory read bandwidth (from nvidia-smi's name); for the GPU methods
# the GPU service's own time in those runs (setops_service: its main
# thread's dispatch_ms, which includes the batches it runs, and its
# executors' run_ms), so that the backend's share shows.
#
# Environment: ROWS (100000), MINK (1000), MAXK (10000), QUERY_KEYS
# (100000; at least MAXK), RUNS (3), SLOW_RUNS (RUNS), FIRST_RUNS (RUNS),
# INTARRAY_ROWS (2000),
# SIM_JOBS, SETOPS_BENCH_DEVICE (gpu), SIM_METHODS (default: all of
# "per-row-cpu per-row-gpu intarray batch-gpu batch-gpu-packed
# batch-gpu-no-read-ahead batch-cpu"; methods left out are listed as not run).  A method whose function is
# missing (array_jaccard_batch before issue 34's batches land) fails the
# run before any data is made; intarray that cannot be installed is said,
# its row marked "not available".
#
# Needs a running cluster (PGHOST etc. set; setops preloaded for the GPU
# service), a superuser.  On the GPU machine: bash test/gpu/device_run.sh
# similarity.  CI size: ROWS=200 MINK=100 MAXK=1000 QUERY_KEYS=2000 RUNS=1.
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${ROWS:-100000}
mink=${MINK:-1000}
maxk=${MAXK:-10000}
qkeys=${QUERY_KEYS:-100000}
runs=${RUNS:-3}
slow_runs=${SLOW_RUNS:-$runs}
first_runs=${FIRST_RUNS:-$runs}
ia_rows=${INTARRAY_ROWS:-2000}
dev=${SETOPS_BENCH_DEVICE:-gpu}
all_methods="per-row-cpu per-row-gpu intarray batch-gpu batch-gpu-packed batch-gpu-first-no-readers batch-gpu-no-read-ahead batch-cpu"
methods=" $(echo ${SIM_METHODS:-$all_methods}) "
ncpu=$(nproc)
jobs=${SIM_JOBS:-$((ncpu < 16 ? ncpu : 16))}
[ "$ia_rows" -le "$rows" ] || ia_rows=$rows
base_pgoptions=${PGOPTIONS:-}

die() { printf 'similarity_bench: %s\n' "$*" >&2; exit 1; }
has() { case $methods in *" $1 "*) return 0 ;; esac; return 1; }
for m in $methods; do
	case " $all_methods " in *" $m "*) ;; *) die "unknown method $m (SIM_METHODS; known: $all_methods)" ;; esac
done
[ "$mink" -ge 1 ] && [ "$mink" -le "$maxk" ] || die "MINK ($mink) must be 1 to MAXK ($maxk)"
[ "$maxk" -le "$qkeys" ] || die "MAXK ($maxk) must be at most QUERY_KEYS ($qkeys): a row takes distinct query positions"
has per-row-cpu || die "per-row-cpu is the reference every answer is compared with: keep it in SIM_METHODS"

# the header: machine, GPU, code, command
gpu_name=none
if command -v nvidia-smi >/dev/null 2>&1; then
	gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) || gpu_name=none
	[ -n "$gpu_name" ] || gpu_name=none
fi
case $gpu_name in
	*H200*) bw="4800 GB/s (H200)" bw_gbs=4800 ;;
	*H100*NVL*) bw="3900 GB/s (H100 NVL)" bw_gbs=3900 ;;
	*H100*PCIe*) bw="2000 GB/s (H100 PCIe)" bw_gbs=2000 ;;
	*H100*) bw="3350 GB/s (H100 SXM)" bw_gbs=3350 ;;
	none) bw="no GPU (nvidia-smi lists none)" bw_gbs=0 ;;
	*) bw="not known for this GPU" bw_gbs=0 ;;
esac
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "${SETOPS_COMMIT:-unknown}")
dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | grep -c . || true)
[ "${dirty:-0}" != 0 ] || dirty=""
echo "# similarity_bench on $(hostname) ($ncpu CPUs), GPU: $gpu_name, $(date -u +%Y-%m-%dT%H:%MZ), code $commit${dirty:+ ($dirty files changed)}"
echo "# command: ROWS=$rows MINK=$mink MAXK=$maxk QUERY_KEYS=$qkeys RUNS=$runs SLOW_RUNS=$slow_runs INTARRAY_ROWS=$ia_rows SETOPS_BENCH_DEVICE=$dev SIM_METHODS=\"$(echo $methods)\" bash test/bench/similarity_bench.sh"
echo "# GPU memory read bandwidth: $bw"

psql -XAtq -v ON_ERROR_STOP=1 -c 'SET client_min_messages = warning' -c 'CREATE EXTENSION IF NOT EXISTS setops' ||
	die "cannot create the extension setops"
echo "# setops $(psql -XAtq -c "SELECT extversion FROM pg_extension WHERE extname = 'setops'"), GPU service devices: $(psql -XAtq -c 'SET client_min_messages = warning' -c 'SELECT count(*) FROM setops_devices()')"

# every function a chosen method calls must exist: a missing one fails the run here
need() {	# method, regprocedure or regoperator text
	local kind=procedure
	case $2 in *'<%>'*) kind=operator ;; esac
	[ "$(psql -XAtq -c "SELECT to_reg$kind('$2') IS NOT NULL")" = t ] ||
		die "method $1 needs $2, which does not exist in this database (issue 34's batch functions not installed?)"
}
need per-row-cpu 'array_jaccard(int4[],int4[])'
need per-row-cpu '<%>(int4[],int4[])'
has batch-gpu && need batch-gpu 'array_jaccard_batch(int4[],int4[])'
has batch-cpu && need batch-cpu 'array_jaccard_batch(int4[],int4[])'
has batch-gpu-packed && need batch-gpu-packed 'array_jaccard_batch(packed_int4,packed_int4)'
ia_note=""
if has intarray && ! err=$(psql -XAtq -v ON_ERROR_STOP=1 -c 'SET client_min_messages = warning' \
	-c 'CREATE EXTENSION IF NOT EXISTS intarray' 2>&1); then
	ia_note="intarray was not available: $err"
	echo "# $ia_note"
	methods=${methods/ intarray / }
fi

# the data
t0=$SECONDS
psql -Xq -v ON_ERROR_STOP=1 -v qkeys="$qkeys" <<'SQL'
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS setops_sim_bench CASCADE;
CREATE SCHEMA setops_sim_bench;
SET search_path = setops_sim_bench, public;
CREATE UNLOGGED TABLE rows (id int PRIMARY KEY, a int4[] NOT NULL, p packed_int4 NOT NULL);
ALTER TABLE rows ALTER a SET STORAGE EXTERNAL;
CREATE TABLE query (q int4[] NOT NULL, qp packed_int4 NOT NULL);
-- query key k: k*8 + h(k) % 7, so that q[k] + 1 is never a query key
INSERT INTO query
SELECT q, q FROM (SELECT array_agg((k * 8 + (k * 2654435761 % 4294967296) / 65536 % 7)::int4 ORDER BY k) AS q
                  FROM generate_series(0, :qkeys - 1) k) s;
-- The constant every query compares with.  IMMUTABLE though it reads a
-- table (which no one changes during the run): the planner folds q() into
-- a constant once per query, as it would a literal or a parameter.
CREATE FUNCTION q() RETURNS int4[] LANGUAGE sql IMMUTABLE AS 'SELECT q FROM setops_sim_bench.query';
CREATE FUNCTION qp() RETURNS packed_int4 LANGUAGE sql IMMUTABLE AS 'SELECT qp FROM setops_sim_bench.query';
SQL
# row i: n keys, hits with probability f (cubed, so that few rows come near 1)
load_sql="SET search_path = setops_sim_bench, public;
INSERT INTO rows
SELECT i, k, k FROM generate_series(__LO__, __HI__) i,
LATERAL (SELECT $mink + (i::int8 * 2246822519 % 4294967296) / 65536 % ($maxk - $mink + 1) AS n,
                (power((i::int8 * 3266489917 % 4294967296) / 65536 % 1001 / 1000.0, 3) * 1000)::int AS f) r,
LATERAL (SELECT array_agg((x * 8 + (x * 2654435761 % 4294967296) / 65536 % 7
                           + CASE WHEN ((i::int8 * 1000003 + j) % 2147483648 * 2654435761 % 4294967296) / 65536 % 1000 < r.f
                                  THEN 0 ELSE 1 END)::int4) AS k
         FROM generate_series(0, r.n - 1) j, LATERAL (SELECT j * $qkeys / r.n AS x) xs) g;
-- this session's rows: sorted, distinct, of MINK to MAXK keys, packed alike
DO \$\$ BEGIN
    IF EXISTS (SELECT FROM rows WHERE id BETWEEN __LO__ AND __HI__
               AND (array_distinct_gpu(a) <> a OR cardinality(a) NOT BETWEEN $mink AND $maxk
                    OR cardinality(p) <> cardinality(a))) THEN
        RAISE EXCEPTION 'rows % to %: a row is not sorted and distinct, or of the wrong size', __LO__, __HI__;
    END IF;
END \$\$;"
pids=()
per=$(((rows + jobs - 1) / jobs))
for ((s = 0; s < jobs; s++)); do
	lo=$((s * per + 1))
	hi=$(((s + 1) * per < rows ? (s + 1) * per : rows))
	[ "$lo" -le "$hi" ] || break
	sql=${load_sql//__LO__/$lo}
	PGOPTIONS="$base_pgoptions -c setops.device=cpu" psql -Xq -v ON_ERROR_STOP=1 <<<"${sql//__HI__/$hi}" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || die "a loading session failed"; done
# every row there (each session checked its own); the query sorted and distinct, packed alike
PGOPTIONS="$base_pgoptions -c setops.device=cpu" psql -XAtq -v ON_ERROR_STOP=1 <<SQL || die "the data is not as generated"
SET search_path = setops_sim_bench, public;
ANALYZE rows;
DO \$\$ BEGIN
    IF (SELECT count(*) FROM rows) <> $rows THEN RAISE EXCEPTION 'rows missing'; END IF;
    IF (SELECT array_distinct_gpu(q) <> q OR cardinality(q) <> $qkeys OR qp::int4[] <> q FROM query) THEN
        RAISE EXCEPTION 'the query is not % sorted distinct keys', $qkeys;
    END IF;
END \$\$;
SQL
read -r nkeys ia_keys < <(psql -XAtq -F ' ' -c "SELECT sum(cardinality(a)), sum(cardinality(a)) FILTER (WHERE id <= $ia_rows) FROM setops_sim_bench.rows")
echo "# data: $rows rows, $nkeys keys ($(( nkeys * 4 / 1000000 )) MB as int4), $((nkeys / rows)) a row on average; query $qkeys keys; loaded in $((SECONDS - t0)) s by $jobs sessions"
[ -z "$ia_note" ] && has intarray && echo "# intarray: on the first $ia_rows rows ($ia_keys keys) only"

# the methods, then the table
rc=0
PGOPTIONS="$base_pgoptions" psql -X -v ON_ERROR_STOP=1 -v runs="$runs" -v slow_runs="$slow_runs" -v first_runs="$first_runs" \
	-v dev="$dev" -v ia_rows="$ia_rows" -v nkeys="$nkeys" -v ia_keys="${ia_keys:-0}" -v bw="$bw_gbs" \
	-v methods="$methods" -v nrows="$rows" <<'SQL' || rc=$?
\set QUIET on
SET search_path = setops_sim_bench, public;
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
SET work_mem = '256MB';
CREATE FUNCTION median(v float8[]) RETURNS float8 LANGUAGE sql IMMUTABLE
AS $$ SELECT x FROM unnest(v) x ORDER BY x OFFSET (cardinality(v) - 1) / 2 LIMIT 1 $$;
-- the fingerprint of every row's (id, Jaccard) over the rows that filt keeps
-- (OFFSET 0: j computed once a row, not once for each aggregate using it)
CREATE FUNCTION all_query(expr text, filt text) RETURNS text LANGUAGE sql IMMUTABLE AS $f$
    SELECT format($q$SELECT count(j) || ' ' || coalesce(bit_xor(hashfloat8extended(j, id)), 0)
                     FROM (SELECT id, %s AS j FROM rows %s OFFSET 0) s$q$, expr, filt)
$f$;
CREATE FUNCTION top_query(ord text, filt text) RETURNS text LANGUAGE sql IMMUTABLE AS $f$
    SELECT format('SELECT array(SELECT id FROM rows %s ORDER BY %s LIMIT 10)::text', filt, ord)
$f$;
CREATE TABLE results (ord serial, method text, device text, nrows int, nkeys int8, expr text, filt text,
                      ms float8[], answers text[], top_ms float8[], tops text[], error text,
                      svc_ms float8[]);
-- the GPU service's time so far (ms): its main thread's handing requests on,
-- which includes the batches it runs itself, and its executors' running
-- time (setops_service; 0 without the service)
CREATE FUNCTION service_ms() RETURNS float8 LANGUAGE sql VOLATILE
AS $$ SELECT coalesce(max(dispatch_ms), 0) + coalesce(sum(run_ms), 0) FROM setops_service $$;
-- run query `runs` times under setops.device = device: wall ms, answer
-- and the service's time of each
CREATE FUNCTION timed(query text, device text, runs int, OUT ms float8[], OUT answers text[],
                      OUT svc_ms float8[], read_ahead bool DEFAULT true, readers int DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
    t timestamptz;
    s float8;
    a text;
BEGIN
    ms := '{}';
    answers := '{}';
    svc_ms := '{}';
    PERFORM set_config('setops.device', device, true);
    PERFORM set_config('setops.batch_read_ahead', read_ahead::text, true);
    IF readers IS NOT NULL THEN
        PERFORM set_config('setops.batch_read_workers', readers::text, true);
    END IF;
    FOR i IN 1 .. runs LOOP
        s := service_ms();
        t := clock_timestamp();
        EXECUTE query INTO a;
        ms := ms || extract(epoch FROM clock_timestamp() - t)::float8 * 1000;
        svc_ms := svc_ms || (service_ms() - s);
        answers := answers || a;
    END LOOP;
END $$;
-- one method: `runs` runs of "all", then of "top 10" (top_runs, default runs;
-- 0: none); an ERROR is kept as the method's answer, so the rest still run
CREATE FUNCTION measure(method text, device text, expr text, ord text, runs int,
                        sample int DEFAULT NULL, top_runs int DEFAULT NULL,
                        read_ahead bool DEFAULT true, readers int DEFAULT NULL) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    filt text := CASE WHEN sample IS NULL THEN '' ELSE 'WHERE id <= ' || sample END;
    a record;
    t record;
BEGIN
    SELECT * INTO a FROM timed(all_query(expr, filt), device, runs, read_ahead, readers);
    IF coalesce(top_runs, runs) > 0 THEN
        SELECT * INTO t FROM timed(top_query(ord, filt), device, coalesce(top_runs, runs), read_ahead,
                                   readers);
    ELSE
        SELECT NULL::float8[] AS ms, NULL::text[] AS answers INTO t;
    END IF;
    INSERT INTO results (method, device, nrows, nkeys, expr, filt, ms, answers, top_ms, tops, svc_ms)
    SELECT method, device, coalesce(sample, current_setting('sim.nrows')::int),
           CASE WHEN sample IS NULL THEN current_setting('sim.nkeys')::int8 ELSE current_setting('sim.ia_keys')::int8 END,
           expr, filt, a.ms, a.answers, t.ms, t.answers, a.svc_ms;
EXCEPTION WHEN OTHERS THEN
    INSERT INTO results (method, device, expr, filt, error) VALUES (method, device, expr, filt, SQLSTATE || ': ' || SQLERRM);
END $$;
SELECT set_config('sim.nrows', :'nrows', false), set_config('sim.nkeys', :'nkeys', false),
       set_config('sim.ia_keys', :'ia_keys', false), set_config('sim.methods', :'methods', false) \gset
-- wait (30 s at most) until the device cache is empty (empty) or has room
-- again (not empty); true when it got there
CREATE FUNCTION empty_cache(empty bool) RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. 300 LOOP
        IF empty AND (SELECT coalesce(sum(entries), 0) = 0 AND coalesce(sum(capacity_bytes), 0) = 0
                      FROM setops_cache_stats()) THEN
            RETURN true;
        END IF;
        IF NOT empty AND (SELECT coalesce(min(capacity_bytes), 0) > 0 FROM setops_cache_stats()) THEN
            RETURN true;
        END IF;
        PERFORM pg_sleep(0.1);
    END LOOP;
    RETURN false;
END $$;
-- one more first run of a method (its row in results, made by the first):
-- only when the device cache is empty, else a warning and no run
CREATE FUNCTION measure_first(method text, device text, expr text, readers int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    a record;
BEGIN
    IF (SELECT coalesce(sum(entries), 0) > 0 FROM setops_cache_stats()) THEN
        RAISE WARNING 'similarity_bench: % not run again: the device cache did not empty', method;
        RETURN;
    END IF;
    IF NOT EXISTS (SELECT FROM results r WHERE r.method = measure_first.method) THEN
        PERFORM measure(method, device, expr, '', 1, NULL, 0, true, readers);
        RETURN;
    END IF;
    SELECT * INTO a FROM timed(all_query(expr, ''), device, 1, true, readers);
    UPDATE results r SET ms = r.ms || a.ms, answers = r.answers || a.answers, svc_ms = r.svc_ms || a.svc_ms
    WHERE r.method = measure_first.method AND r.error IS NULL;
EXCEPTION WHEN OTHERS THEN
    INSERT INTO results (method, device, expr, filt, error)
    VALUES (method, device, expr, '', SQLSTATE || ': ' || SQLERRM);
END $$;
CREATE FUNCTION chosen(m text) RETURNS bool LANGUAGE sql STABLE
AS $$ SELECT position(' ' || m || ' ' IN current_setting('sim.methods')) > 0 $$;

-- reading the rows alone (detoasting every int4[]): a floor, and the cache warm
SELECT round(ms[1]::numeric, 1) AS read_ms FROM timed('SELECT sum(cardinality(a)) FROM rows', 'cpu', 1) \gset
\echo '# reading the rows (sum of cardinality(a), detoasting each):' :read_ms 'ms'

-- CPU methods first, then the GPU's batch (its first run finds no row in
-- the device cache), then per-row through the GPU service
\o /dev/null
SELECT measure('per-row cpu', 'cpu', 'array_jaccard(a, q())', 'a <%> q(), id', :slow_runs);
SELECT measure('per-row cpu (intarray''s rows)', 'cpu', 'array_jaccard(a, q())', 'a <%> q(), id', 1, :ia_rows, 1)
WHERE chosen('intarray');
SELECT measure('intarray', 'cpu', 'icount(a & q())::float8 / icount(a | q())',
               'icount(a & q())::float8 / icount(a | q()) DESC, id', :slow_runs, :ia_rows)
WHERE chosen('intarray');
SELECT measure('batch cpu', 'cpu', 'array_jaccard_batch(a, q()) OVER ()',
               'array_jaccard_batch(a, q()) OVER () DESC, id', :slow_runs)
WHERE chosen('batch-cpu');
SELECT measure('batch gpu first', :'dev', 'array_jaccard_batch(a, q()) OVER ()', '', 1, NULL, 0)
WHERE chosen('batch-gpu');
SELECT measure('batch gpu packed first', :'dev', 'array_jaccard_batch(p, qp()) OVER ()', '', 1, NULL, 0)
WHERE chosen('batch-gpu-packed');
\o
-- first runs again (FIRST_RUNS of each in all), each after the device cache
-- was emptied (its size 0 for a moment: ALTER SYSTEM, a superuser's); and
-- as many first runs with the rows read by the backend alone
SELECT EXISTS (SELECT FROM setops_cache_stats()) AS again \gset
\if :again
\o /dev/null
SELECT step FROM generate_series(1, :first_runs) k,
    (VALUES (1, 'batch-gpu', 'batch gpu first', 'array_jaccard_batch(a, q()) OVER ()', NULL),
            (2, 'batch-gpu-packed', 'batch gpu packed first', 'array_jaccard_batch(p, qp()) OVER ()', NULL),
            (3, 'batch-gpu-first-no-readers', 'batch gpu first, no readers',
             'array_jaccard_batch(a, q()) OVER ()', 0)) m(o, chosen_as, method, expr, readers),
    LATERAL (VALUES (1, 'ALTER SYSTEM SET setops.gpu_cache_size = 0'), (2, 'SELECT pg_reload_conf()'),
                    (3, 'SELECT empty_cache(true)'), (4, 'ALTER SYSTEM RESET setops.gpu_cache_size'),
                    (5, 'SELECT pg_reload_conf()'), (6, 'SELECT empty_cache(false)'),
                    (7, format('SELECT measure_first(%L, %L, %L, %s)', m.method, :'dev', m.expr,
                               coalesce(m.readers::text, 'NULL')))) st(i, step)
WHERE chosen(m.chosen_as) AND (k > 1 OR m.readers IS NOT NULL)
ORDER BY k, m.o, st.i \gexec
\o
\endif
\o /dev/null
SELECT measure('batch gpu', :'dev', 'array_jaccard_batch(a, q()) OVER ()',
               'array_jaccard_batch(a, q()) OVER () DESC, id', :runs)
WHERE chosen('batch-gpu');
SELECT measure('batch gpu packed', :'dev', 'array_jaccard_batch(p, qp()) OVER ()',
               'array_jaccard_batch(p, qp()) OVER () DESC, id', :runs)
WHERE chosen('batch-gpu-packed');
SELECT measure('batch gpu, no read-ahead', :'dev', 'array_jaccard_batch(a, q()) OVER ()',
               'array_jaccard_batch(a, q()) OVER () DESC, id', :runs, NULL, NULL, false)
WHERE chosen('batch-gpu-no-read-ahead');
SELECT measure('per-row gpu', :'dev', 'array_jaccard(a, q())', 'a <%> q(), id', :slow_runs)
WHERE chosen('per-row-gpu');
\o
SELECT 'device cache after the GPU methods: ' || coalesce(string_agg(format('device %s: %s entries, %s MB, %s hits, %s misses',
       device, entries, bytes / 1000000, hits, misses), '; '), 'none (no GPU service)') AS cache
FROM setops_cache_stats() \gset
\echo '#' :cache

-- every answer against per-row cpu's (the same rows), every run against its first
CREATE TABLE verdict AS
SELECT r.ord, r.method,
       CASE WHEN r.error IS NOT NULL THEN 'FAILED: ' || r.error
            WHEN EXISTS (SELECT FROM unnest(r.answers) x WHERE x IS DISTINCT FROM ref.answers[1])
            THEN 'DIFFERENT' ELSE 'same' END AS answers,
       CASE WHEN r.error IS NOT NULL OR r.tops IS NULL THEN '-'
            WHEN EXISTS (SELECT FROM unnest(r.tops) x WHERE x IS DISTINCT FROM ref.tops[1])
            THEN 'DIFFERENT' ELSE 'same' END AS top10
FROM results r
LEFT JOIN results ref ON ref.method = CASE WHEN r.filt = '' THEN 'per-row cpu' ELSE 'per-row cpu (intarray''s rows)' END;

-- where an answer differs: which rows, exactly and beyond 1e-12
CREATE TABLE ref_rows AS SELECT id, array_jaccard(a, q()) AS j FROM rows
WHERE EXISTS (SELECT FROM verdict WHERE answers = 'DIFFERENT');
CREATE FUNCTION diff_rows(r results) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    res text;
BEGIN
    PERFORM set_config('setops.device', r.device, true);
    EXECUTE format($q$SELECT format('%%s rows differ (%%s beyond 1e-12), e.g. %%s', count(*),
                                    count(*) FILTER (WHERE abs(xj - fj) > 1e-12 OR xj IS NULL OR fj IS NULL),
                                    string_agg(format('id %%s: %%s against %%s', id, xj, fj), '; ') FILTER (WHERE n <= 5))
                      FROM (SELECT id, x.j AS xj, f.j AS fj, row_number() OVER (ORDER BY id) AS n
                            FROM (SELECT id, %s AS j FROM rows %s) x JOIN ref_rows f USING (id)
                            WHERE x.j IS DISTINCT FROM f.j) d$q$, r.expr, r.filt) INTO res;
    RETURN res;
END $$;
SELECT EXISTS (SELECT FROM verdict WHERE answers = 'DIFFERENT') AS differ \gset
\if :differ
SELECT v.method, diff_rows(r) AS rows_that_differ FROM verdict v JOIN results r USING (ord)
WHERE v.answers = 'DIFFERENT';
\endif
SELECT method, tops[1] AS top10_ids FROM results WHERE method IN ('per-row cpu', 'per-row cpu (intarray''s rows)')
UNION ALL
SELECT r.method || ' (DIFFERENT)', r.tops[1] FROM results r JOIN verdict v USING (ord) WHERE v.top10 = 'DIFFERENT';

-- the table
\pset footer off
WITH m AS (
    SELECT r.*, median(r.ms) AS med, r.nrows / (median(r.ms) / 1000) AS rps FROM results r WHERE r.error IS NULL),
base AS (SELECT (SELECT rps FROM m WHERE method = 'per-row cpu') AS cpu_rps,
                (SELECT rps FROM m WHERE method = 'intarray') AS ia_rps)
SELECT r.method, r.device, m.nrows AS rows, cardinality(m.ms) AS runs,
       round(m.med::numeric, 1) AS all_ms, round(m.rps::numeric) AS rows_per_s,
       round((m.nkeys * 4 / (m.med / 1000) / 1e9)::numeric, 2) AS keys_gb_s,
       CASE WHEN :bw > 0 AND r.device <> 'cpu' THEN round((m.nkeys * 4 / (m.med / 1000) / 1e9 / :bw * 100)::numeric, 2) END
         AS pct_of_gpu_bw,
       round((m.rps / b.cpu_rps)::numeric, 2) AS x_per_row_cpu,
       round((m.rps / b.ia_rps)::numeric, 2) AS x_intarray,
       round(median(m.top_ms)::numeric, 1) AS top10_ms,
       CASE WHEN r.device <> 'cpu' THEN round(median(m.svc_ms)::numeric, 1) END AS service_ms,
       v.answers, v.top10
FROM results r JOIN verdict v USING (ord) LEFT JOIN m USING (ord) CROSS JOIN base b
ORDER BY r.ord;
\echo '# all_ms: Jaccard of every row (median wall ms); top10_ms: the 10 best rows; x_*: rows/s against per-row cpu and intarray (intarray and its reference on a sample); keys_gb_s: the rows'' int4 keys / all_ms; service_ms: the GPU service''s time in the all_ms runs (median; its main thread, which runs batches itself, and its executors), the rest of all_ms is the backend''s or waiting'
SELECT count(*) FILTER (WHERE answers <> 'same' OR top10 NOT IN ('same', '-')) > 0 AS failed FROM verdict \gset
\if :failed
DO $$ BEGIN RAISE EXCEPTION 'similarity_bench: a method failed or gave a different answer (above)'; END $$;
\endif
SQL
for m in $all_methods; do has "$m" || echo "# not run: $m (not in SIM_METHODS)"; done
[ -n "$ia_note" ] && echo "# intarray: not run, $ia_note"
psql -XAtq -c 'SET client_min_messages = warning' -c 'DROP SCHEMA setops_sim_bench CASCADE' >/dev/null || true
exit $rc
