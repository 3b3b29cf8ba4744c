#!/usr/bin/env bash
# PostgreSQL-level GPU checks, run on the GPU machine with a cluster up
# (test/gpu/device_run.sh pgchecks):
#   1. device memory is flat across 10,000 GPU calls in one backend;
#   2. cancelling a 200M-element GPU operation returns within 100 ms.
# Exits non-zero when either fails.
set -uo pipefail
OUT=${OUT:-/tmp/setops-out}
status=0

psql -X -q -v ON_ERROR_STOP=1 <<'SQL' || status=1
CREATE EXTENSION IF NOT EXISTS setops;
SET setops.device = gpu;
DO $$
DECLARE
    a int4[] := (SELECT array_agg(i) FROM generate_series(1, 60000, 3) i);
    b int4[] := (SELECT array_agg(i) FROM generate_series(1, 60000, 2) i);
    r int4[];
    f0 bigint;
    f1 bigint;
BEGIN
    r := array_intersect_gpu(a, b);
    SELECT free_memory INTO f0 FROM setops_devices() WHERE device = 0;
    FOR i IN 1 .. 10000 LOOP
        r := array_intersect_gpu(a, b);
    END LOOP;
    SELECT free_memory INTO f1 FROM setops_devices() WHERE device = 0;
    RAISE NOTICE 'free device memory before % bytes, after 10,000 calls % bytes', f0, f1;
    IF f1 <> f0 THEN
        RAISE EXCEPTION 'device memory moved by % bytes', f0 - f1;
    END IF;
END $$;
SQL

# Session 1 builds two 100M-element arrays and runs GPU intersections in a loop
# until cancelled; generic plans pass the PL/pgSQL arrays as they are.
log=$OUT/cancel_session.log
psql -X -q >"$log" 2>&1 <<'SQL' &
SET setops.device = gpu;
SET plan_cache_mode = force_generic_plan;
DO $$
DECLARE
    -- array_agg stops short of 100M elements (its buffer would pass 1 GB):
    -- join two halves instead
    a int4[] := array_cat((SELECT array_agg(i * 2) FROM generate_series(1, 50000000) i),
                          (SELECT array_agg(i * 2) FROM generate_series(50000001, 100000000) i));
    b int4[] := array_cat((SELECT array_agg(i * 3) FROM generate_series(1, 50000000) i),
                          (SELECT array_agg(i * 3) FROM generate_series(50000001, 100000000) i));
    r int4[];
    t0 timestamptz;
BEGIN
    r := array_intersect_gpu(a, b);
    t0 := clock_timestamp();
    r := array_intersect_gpu(a, b);
    RAISE NOTICE 'one 200M-element intersection: % ms', round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000, 1);
    RAISE NOTICE 'ready';
    LOOP
        r := array_intersect_gpu(a, b);
    END LOOP;
EXCEPTION WHEN query_canceled THEN
    RAISE NOTICE 'cancelled at %', extract(epoch FROM clock_timestamp());
END $$;
SQL
s1=$!
for _ in $(seq 360); do grep -q -e ready -e ERROR "$log" && break; sleep 0.5; done
sleep 1.3
sent=$(psql -XAtq -c "SELECT extract(epoch FROM clock_timestamp()), pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE 'DO%array_intersect_gpu(a, b)%' AND pid <> pg_backend_pid()" | head -1 | cut -d'|' -f1)
wait $s1
cat "$log"
got=$(sed -n 's/.*cancelled at \([0-9.]*\).*/\1/p' "$log")
if [ -z "$got" ] || [ -z "$sent" ]; then
	echo "cancel check: no timestamps (sent='$sent' got='$got')"
	status=1
else
	ms=$(awk -v g="$got" -v s="$sent" 'BEGIN { printf "%.1f", (g - s) * 1000 }')
	echo "cancel of a running 200M-element GPU intersection returned after $ms ms"
	awk -v ms="$ms" 'BEGIN { exit !(ms <= 100) }' || status=1
fi
exit $status
