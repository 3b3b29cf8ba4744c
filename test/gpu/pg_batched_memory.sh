#!/usr/bin/env bash
# Device memory flat across batched requests, on the GPU machine with a
# cluster up and load_bench.sh's tables kept (LOAD_BENCH_KEEP=1): 64
# clients count pairs of stored 20k-key rows in gpu mode (the device cache
# holds them, so queued counts share their launches); after a warm-up
# round, the devices' free memory before and after 12,800 more requests
# must be the same, and some requests must have shared a launch.
set -uo pipefail
script=$(mktemp /tmp/batched.XXXXXX.sql)
chmod 644 "$script"
trap 'rm -f "$script"' EXIT
printf '\\set i random(1, 32)\n\\set j random(1, 32)\nSELECT array_intersect_count(x.a, y.a) FROM load_bench.t_20k x, load_bench.t_20k y WHERE x.id = :i AND y.id = :j;\n' >"$script"
free() { psql -XAtq -c 'SELECT string_agg(free_memory::text, $$ $$ ORDER BY device) FROM setops_devices()'; }
batched() { psql -XAtq -c 'SELECT sum(batched) FROM setops_service_stats()'; }
export PGOPTIONS="-c setops.device=gpu"
pgbench -n -c 64 -j 16 -t 50 -f "$script" >/dev/null 2>&1 || { echo "warm-up failed"; exit 1; }
f0=$(free)
b0=$(batched)
out=$(pgbench -n -c 64 -j 16 -t 200 -f "$script" 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -E "processed|failed|tps"
f1=$(free)
b1=$(batched)
echo "free device memory before: $f0; after 12,800 requests: $f1; requests that shared a launch: $((b1 - b0))"
[ "$f0" = "$f1" ] || { echo "FAILED: device memory moved"; exit 1; }
[ $((b1 - b0)) -gt 0 ] || { echo "FAILED: no request shared a launch"; exit 1; }
echo "batched requests: device memory flat"
