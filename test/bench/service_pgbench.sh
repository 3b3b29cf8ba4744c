#!/usr/bin/env bash
# test/bench/service_pgbench.sh [clients] [seconds] [max_elements]
#
# Many clients at once through the GPU service: pgbench runs, on every
# client, random operations (the four set operations, keys; arrays and
# packed values, read into variables or passed straight from the table,
# where the service's device cache answers for them) on random stored
# arrays of 1K to max_elements keys, each answer computed in gpu mode and
# compared with the CPU engine's in the same transaction (a mismatch is an
# ERROR, which pgbench counts as a failure).  Before and after, with the
# device cache emptied (setops.gpu_cache_size = 0 for a moment),
# setops_devices() gives the free device memory.
#
# Needs a running cluster with setops preloaded (PGHOST etc. set) and
# pgbench on PATH.  Defaults: 64 clients, 300 s, 4M elements.
# SETOPS_BENCH_DEVICE (default gpu): the setops.device checked against the
# CPU engine (test/bench/smoke.sh sets cpu, auto or gpu); on a server
# without the GPU service the cache settings are left alone.
set -euo pipefail
clients=${1:-64}
seconds=${2:-300}
max_n=${3:-4000000}
export PGOPTIONS="${PGOPTIONS:-} -c setops_bench.device=${SETOPS_BENCH_DEVICE:-gpu}"
service=$(psql -XAtq -c "SELECT current_setting('shared_preload_libraries') ~ '\msetops\M'")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

psql -Xq -v ON_ERROR_STOP=1 -v max_n="$max_n" <<'SQL'
CREATE EXTENSION IF NOT EXISTS setops;
DROP SCHEMA IF EXISTS setops_bench CASCADE;
CREATE SCHEMA setops_bench;
-- 200 sorted arrays, sizes spread log-uniformly from 1K to max_n, keys
-- with about two copies each
CREATE TABLE setops_bench.arrays (id int PRIMARY KEY, a int4[], p packed_int4);
INSERT INTO setops_bench.arrays (id, a)
SELECT g, array_sort_gpu(ARRAY(SELECT floor(random() * n / 2)::int4 FROM generate_series(1, n)))
FROM (SELECT g, (1000 * power(:max_n / 1000.0, random()))::int AS n
      FROM generate_series(1, 200) g) s;
UPDATE setops_bench.arrays SET p = a;
CREATE FUNCTION setops_bench.check(op int, i int, j int, form int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
    a int4[];
    b int4[];
    pa packed_int4;
    pb packed_int4;
    g int4[];
    c int4[];
BEGIN
    SELECT x.a, x.p INTO a, pa FROM setops_bench.arrays x WHERE x.id = i;
    SELECT x.a, x.p INTO b, pb FROM setops_bench.arrays x WHERE x.id = j;
    PERFORM set_config('setops.device', current_setting('setops_bench.device'), true);
    IF form = 2 THEN
        -- straight from the table: stored arguments, the device cache
        g := (SELECT CASE op WHEN 0 THEN array_intersect_gpu(x.a, y.a) WHEN 1 THEN array_union_gpu(x.a, y.a)
                             WHEN 2 THEN array_difference_gpu(x.a, y.a) ELSE array_symdiff_gpu(x.a, y.a) END
              FROM setops_bench.arrays x, setops_bench.arrays y WHERE x.id = i AND y.id = j);
    ELSE
    g := CASE WHEN form = 1 THEN
            CASE op WHEN 0 THEN array_intersect_gpu(pa, pb) WHEN 1 THEN array_union_gpu(pa, pb)
                    WHEN 2 THEN array_difference_gpu(pa, pb) ELSE array_symdiff_gpu(pa, pb) END::int4[]
         ELSE
            CASE op WHEN 0 THEN array_intersect_gpu(a, b) WHEN 1 THEN array_union_gpu(a, b)
                    WHEN 2 THEN array_difference_gpu(a, b) ELSE array_symdiff_gpu(a, b) END
         END;
    END IF;
    PERFORM set_config('setops.device', 'cpu', true);
    c := CASE op WHEN 0 THEN array_intersect_gpu(a, b) WHEN 1 THEN array_union_gpu(a, b)
                 WHEN 2 THEN array_difference_gpu(a, b) ELSE array_symdiff_gpu(a, b) END;
    IF g IS DISTINCT FROM c THEN
        RAISE EXCEPTION 'op % on arrays % and % (form %): the GPU gave % keys, the CPU engine %',
            op, i, j, form, cardinality(g), cardinality(c);
    END IF;
    RETURN cardinality(g);
END $$;
SQL

cat >"$work/ops.sql" <<'EOF2'
\set i random(1, 200)
\set j random(1, 200)
\set op random(0, 3)
\set form random(0, 2)
SELECT setops_bench.check(:op, :i, :j, :form);
EOF2

# free device memory with the cache emptied for a moment
free_memory() {
	if [ "$service" != t ]; then
		psql -XAtq -c 'SELECT coalesce(sum(free_memory), 0) FROM setops_devices()' 2>/dev/null
		return
	fi
	psql -XAtq -c 'ALTER SYSTEM SET setops.gpu_cache_size = 0' -c 'SELECT pg_reload_conf()' >/dev/null
	sleep 2
	psql -XAtq -c 'SELECT coalesce(sum(free_memory), 0) FROM setops_devices()'
	psql -XAtq -c 'ALTER SYSTEM RESET setops.gpu_cache_size' -c 'SELECT pg_reload_conf()' >/dev/null
	sleep 2
}
# every operation and form once first: what the first use of a kernel
# loads onto the device (CUDA loads modules lazily) is not a leak
psql -XAtq -c "SELECT sum(setops_bench.check(op, 1, 2, form)) FROM generate_series(0, 3) op, generate_series(0, 2) form" >/dev/null
before=$(free_memory)
pgbench -n -c "$clients" -j "$(( $(nproc) < clients ? $(nproc) : clients ))" -T "$seconds" -f "$work/ops.sql" -P 30 2>&1 | tee "$work/pgbench.log"
psql -Xq -c 'SELECT * FROM setops_cache_stats()'
after=$(free_memory)
echo "free device memory before: $before bytes, after: $after bytes"
grep -q 'number of failed transactions: 0\b' "$work/pgbench.log" ||
	! grep -q 'number of failed transactions' "$work/pgbench.log" || { echo "FAILED: failed transactions"; exit 1; }
grep -q 'aborted' "$work/pgbench.log" && { echo "FAILED: clients aborted"; exit 1; }
grep -q 'number of transactions actually processed: [1-9]' "$work/pgbench.log" ||
	{ echo "FAILED: no transaction ran"; exit 1; }
[ "$before" = "$after" ] || { echo "FAILED: device memory moved"; exit 1; }
echo "service_pgbench: passed"
