#!/usr/bin/env bash
# Device memory flat across batched requests, on the GPU machine with a
# cluster up and load_bench.sh's tables kept (LOAD_BENCH_KEEP=1): 64
# clients count pairs of stored 20k-key rows in gpu mode (the device cache
# holds them, so queued counts share their launches); after a warm-up
# round, the devices' free memory before and after 12,800 more requests
# must be the same, and some requests must have shared a launch.  Every
# request's answer is compared in its own query with the CPU engine's
# (load_bench.e_20k, computed before the load): a wrong one is an ERROR
# that aborts its client; pgbench must report all 12,800 processed and
# none failed.
# SETOPS_TEST_MUTATE=status (or 1) plants a defect, and the run must then fail:
# the answers for rows (1, 1) are compared with a count one too high.
set -uo pipefail
mutate=${SETOPS_TEST_MUTATE:-}
case $mutate in ''|1|status) ;; *) echo "unknown SETOPS_TEST_MUTATE=$mutate (status, or 1)"; exit 2 ;; esac
[ -n "$mutate" ] && echo "SETOPS_TEST_MUTATE=$mutate: a defect is planted, this run must fail"
planted=0
[ -n "$mutate" ] && planted='CASE WHEN e.i = 1 AND e.j = 1 THEN 1 ELSE 0 END'
script=$(mktemp /tmp/batched.XXXXXX.sql)
chmod 644 "$script"
trap 'rm -f "$script"' EXIT
cat >"$script" <<SQL
\\set i random(1, 32)
\\set j random(1, 32)
SELECT CASE WHEN g.r = e.cnt + $planted THEN 1
            ELSE ('batched: count of rows ' || e.i || ', ' || e.j || ' gave ' || coalesce(g.r::text, 'NULL') || ', expected ' || e.cnt)::int END
FROM load_bench.e_20k e
     LEFT JOIN LATERAL (SELECT array_intersect_count(x.a, y.a) AS r FROM load_bench.t_20k x, load_bench.t_20k y
                        WHERE x.id = e.i AND y.id = e.j OFFSET 0) g ON true
WHERE e.i = :i AND e.j = :j;
SQL
[ "$(psql -XAtq -c 'SELECT count(*) FROM load_bench.e_20k WHERE i <= 32 AND j <= 32')" = 1024 ] ||
	{ echo "FAILED: load_bench.t_20k and its expected answers e_20k are missing (run load with LOAD_BENCH_KEEP=1 first)"; exit 1; }
free() { psql -XAtq -c 'SELECT string_agg(free_memory::text, $$ $$ ORDER BY device) FROM setops_devices()'; }
batched() { psql -XAtq -c 'SELECT sum(batched) FROM setops_service_stats()'; }
export PGOPTIONS="-c setops.device=gpu"
out=$(pgbench -n -c 64 -j 16 -t 50 -f "$script" 2>&1) || { echo "$out" | tail -20; echo "FAILED: warm-up"; exit 1; }
f0=$(free)
b0=$(batched)
out=$(pgbench -n -c 64 -j 16 -t 200 -f "$script" 2>&1) || { echo "$out" | tail -20; echo "FAILED: a request failed or answered wrong"; exit 1; }
echo "$out" | grep -E "processed|failed|tps"
f1=$(free)
b1=$(batched)
echo "free device memory before: $f0; after 12,800 requests: $f1; requests that shared a launch: $((b1 - b0))"
echo "$out" | grep -q 'number of transactions actually processed: 12800/12800' ||
	{ echo "FAILED: not all 12,800 requests were processed"; exit 1; }
echo "$out" | grep -q 'number of failed transactions: 0 ' ||
	{ echo "FAILED: pgbench counted failed requests"; exit 1; }
[ "$f0" = "$f1" ] || { echo "FAILED: device memory moved"; exit 1; }
[ $((b1 - b0)) -gt 0 ] || { echo "FAILED: no request shared a launch"; exit 1; }
echo "batched requests: 12,800 answers right, device memory flat"
