#!/usr/bin/env bash
# GPU service checks, run on the GPU machine with a cluster up and setops
# preloaded (test/gpu/device_run.sh service):
#   1. the first GPU answer on a fresh connection: no CUDA context to
#      create in the backend (before the service: 0.2-0.4 s);
#   2. the service stopped while a session runs requests in a loop: a
#      request in flight gets a clean ERROR; a session between two requests
#      goes on through the restarted service (calls that end after the
#      SIGTERM show it); never a hang; the restarted service answers again.
# Exits non-zero when either fails.
set -uo pipefail
OUT=${OUT:-/tmp/setops-out}
status=0

psql -Xq -c 'CREATE EXTENSION IF NOT EXISTS setops'
psql -X -c 'SELECT * FROM setops_devices()'

# 1. ten fresh connections, each timing its first GPU call (the statement
# as psql's \timing sees it: parse, plan, the call, the answer), next to
# the same first call on the CPU engine
first_call() {		# device
	local ms=() i t
	for i in $(seq 1 10); do
		t=$(psql -XAtq -c "SET setops.device = $1" -c '\timing on' \
			-c "SELECT array_intersect_gpu('{1,2,2,3,5,8,13}'::int4[], '{2,3,4,5,6,7,8}'::int4[])" |
			sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
		ms+=("$t")
	done
	printf '%s\n' "${ms[@]}" | sort -g | tr '\n' ' '
}
gpu_ms=$(first_call gpu)
cpu_ms=$(first_call cpu)
median=$(echo "$gpu_ms" | tr ' ' '\n' | sed -n 5p)
echo "first call on a fresh connection, gpu mode (through the service), ms: $gpu_ms"
echo "the same on the CPU engine, ms: $cpu_ms"
echo "median gpu: $median ms"
awk -v m="$median" 'BEGIN { exit !(m < 5) }' || { echo "FAILED: first GPU answer not under 5 ms"; status=1; }

# 2. stop the service during a long request
psql -X >"$OUT/service_stop_session.log" 2>&1 <<'SQL' &
SET setops.device = gpu;
DO $$
DECLARE
    a int4[] := (SELECT array_agg(i) FROM generate_series(1, 10000000) i);
    r int4[];
BEGIN
    FOR k IN 1 .. 1000 LOOP
        r := array_union_gpu(a, a);
        -- (when each call ended, in ms since the epoch)
        RAISE NOTICE 'call % done at %', k, round(extract(epoch FROM clock_timestamp()) * 1000);
    END LOOP;
END $$;
SQL
session=$!
sleep 6
t0=$(date +%s%N)
pkill -TERM -f '^postgres: setops GPU service' && echo "service sent SIGTERM"
# a request in flight fails at once; a session between requests waits for
# the restarted service and goes on: stop it after 20 s either way
for i in $(seq 1 200); do
	kill -0 $session 2>/dev/null || break
	sleep 0.1
done
kill -0 $session 2>/dev/null && psql -XAtq -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%array_union_gpu(a, a)%' AND pid <> pg_backend_pid()" >/dev/null
wait $session
t1=$(date +%s%N)
echo "the session ended $(( (t1 - t0) / 1000000 )) ms after the service was stopped:"
grep -v 'NOTICE:  call' "$OUT/service_stop_session.log"
# calls that ended after the SIGTERM: the session was between two requests
# and went on through the restarted service (then was stopped by the loop)
went_on=$(awk -v t0=$((t0 / 1000000)) '/NOTICE:  call [0-9]+ done at/ { if ($NF > t0) n++ } END { print n + 0 }' \
	"$OUT/service_stop_session.log")
echo "calls ended after the SIGTERM: $went_on"
if grep -q 'the setops GPU service stopped while serving this request\|the setops GPU service restarted\|the setops GPU service is restarting\|the setops GPU service is not running' "$OUT/service_stop_session.log"; then
	echo "a request in flight: a clean error"
elif [ "$went_on" -gt 0 ]; then
	echo "between two requests: the session went on through the restarted service"
else
	echo "FAILED: neither a clean error nor a session that went on"
	status=1
fi
sleep 3
answer=$(psql -XAt -c 'SET setops.device = gpu' -c "SELECT array_union_gpu('{1,3}'::int4[], '{2,3}'::int4[])" 2>&1)
echo "after the restart: $answer"
echo "$answer" | grep -q '{1,2,3}' && echo "the restarted service answers" ||
	{ echo "FAILED: the service did not come back"; status=1; }
exit $status
