#!/usr/bin/env bash
# GPU service checks, run with a cluster up and setops preloaded
# (test/gpu/device_run.sh service on the GPU machine; on a machine without a
# GPU against the emulated service, setops.service_emulate = on):
#   1. the first GPU answer on a fresh connection: no CUDA context to
#      create in the backend (before the service: 0.2-0.4 s);
#   2. the service stopped while a session runs requests in a loop: a
#      request in flight gets a clean ERROR; a session between two requests
#      goes on through the restarted service (calls that end after the
#      SIGTERM show it); never a hang;
#   3. recovery: the service comes back as a new process with as many
#      devices as before, and requests after it run on a GPU: in gpu mode
#      and in auto mode (above setops.gpu_min_elements), each answer right,
#      setops_last_timing().gpu set, and the service's request counters
#      grow.  An answer from the CPU engine (auto's fallback) is not a
#      recovery: a GPU that stays unavailable fails the check.
# The service is found as the cluster's own postmaster's child (the
# checkpointer's parent), never by name across the machine.
# SETOPS_TEST_MUTATE=recovery (or 1) plants a defect, and the run must then fail:
# the recovery's requests are answered by the CPU engine (setops.device =
# cpu), right answers as auto's fallback gives them while the GPU stays
# unavailable.
# Exits non-zero when a check fails.
set -uo pipefail
OUT=${OUT:-/tmp/setops-out}
mkdir -p "$OUT"
mutate=${SETOPS_TEST_MUTATE:-}
case $mutate in ''|1|recovery) ;; *) echo "unknown SETOPS_TEST_MUTATE=$mutate (recovery, or 1)"; exit 2 ;; esac
[ "$mutate" = 1 ] && mutate=recovery
[ -n "$mutate" ] && echo "SETOPS_TEST_MUTATE=$mutate: a defect is planted, this run must fail"
status=0

psql -Xq -c 'CREATE EXTENSION IF NOT EXISTS setops'
psql -X -c 'SELECT * FROM setops_devices()'
ndev=$(psql -XAtq -c 'SELECT count(*) FROM setops_devices()' 2>/dev/null)
[ "${ndev:-0}" -gt 0 ] || { echo "FAILED: no GPU service device (setops preloaded? a GPU or setops.service_emulate?)"; exit 1; }
# this cluster's GPU service: the postmaster's child of that title
# (the checkpointer's parent: no read of the data directory needed)
postmaster=$(ps -o ppid= -p "$(psql -XAtq -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'")" | tr -d ' ')
service_pid() { ps -o pid=,args= --ppid "$postmaster" | awk '/setops GPU service/ { print $1; exit }'; }
old_pid=$(service_pid)
[ -n "$old_pid" ] || { echo "FAILED: no GPU service process under postmaster $postmaster"; exit 1; }
echo "GPU service: pid $old_pid (postmaster $postmaster), $ndev device(s)"

# 1. ten fresh connections, each timing its first GPU call (the statement
# as psql's \timing sees it: parse, plan, the call, the answer), next to
# the same first call on the CPU engine
first_call() {		# device
	local ms=() t
	for _ in $(seq 1 10); do
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
kill -TERM "$old_pid" && echo "service (pid $old_pid) sent SIGTERM"
# a request in flight fails at once; a session between requests waits for
# the restarted service and goes on: stop it after 3 calls that ended after
# the SIGTERM, or 20 s, either way
ended_after() {
	awk -v t0=$((t0 / 1000000)) '/NOTICE:  call [0-9]+ done at/ { if ($NF > t0) n++ } END { print n + 0 }' \
		"$OUT/service_stop_session.log"
}
for _ in $(seq 1 200); do
	kill -0 $session 2>/dev/null || break
	[ "$(ended_after)" -ge 3 ] && break
	sleep 0.1
done
kill -0 $session 2>/dev/null && psql -XAtq -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%array_union_gpu(a, a)%' AND pid <> pg_backend_pid()" >/dev/null
wait $session
t1=$(date +%s%N)
echo "the session ended $(( (t1 - t0) / 1000000 )) ms after the service was stopped:"
grep -v 'NOTICE:  call' "$OUT/service_stop_session.log"
# calls that ended after the SIGTERM: the session was between two requests
# and went on through the restarted service (then was stopped by the loop)
went_on=$(ended_after)
echo "calls ended after the SIGTERM: $went_on"
if grep -q 'the setops GPU service stopped while serving this request\|the setops GPU service restarted\|the setops GPU service is restarting\|the setops GPU service is not running' "$OUT/service_stop_session.log"; then
	echo "a request in flight: a clean error"
elif [ "$went_on" -gt 0 ]; then
	echo "between two requests: the session went on through the restarted service"
else
	echo "FAILED: neither a clean error nor a session that went on"
	status=1
fi

# 3. recovery: wait up to 30 s for a request in gpu mode to succeed, then
# requests must run on a GPU, in gpu and in auto mode (auto's own
# exploration of the CPU engine aside)
back=
for _ in $(seq 60); do
	back=$(timeout 40 psql -XAtq -c 'SET setops.device = gpu' -c "SELECT array_union_gpu('{1,3}'::int4[], '{2,3}'::int4[])" 2>&1)
	[ "$back" = '{1,2,3}' ] && break
	sleep 0.5
done
echo "a request in gpu mode after the restart: $back"
new_pid=$(service_pid)
ndev1=$(timeout 40 psql -XAtq -c 'SELECT count(*) FROM setops_devices()' 2>/dev/null)
req0=$(psql -XAtq -c 'SELECT coalesce(sum(requests), 0) FROM setops_service_stats()' 2>/dev/null)
# three calls in gpu mode, and in auto until one runs on a GPU (at most
# eight), 300,000 elements (auto sends them to a GPU first, from
# setops.gpu_min_elements); each answer and where it ran.  Near the
# threshold auto may start a try of the CPU engine at any call (at
# random, about one in 64), and a try is four calls: with three calls, a
# try started at the first left none on a GPU (a CI run failed so).
probe=$(timeout 120 psql -XAtq -v mutate="$mutate" 2>&1 <<'SQL'
SELECT set_config('service_checks.mutate', :'mutate', false) \g /dev/null
DO $$
DECLARE
    a int4[] := (SELECT array_agg(i) FROM generate_series(1, 300000, 2) i);
    b int4[] := (SELECT array_agg(i) FROM generate_series(1, 300000, 3) i);
    ref int4[];
    r int4[];
    t record;
    m text;
BEGIN
    PERFORM set_config('setops.device', 'cpu', true);
    ref := array_intersect_gpu(a, b);
    FOREACH m IN ARRAY ARRAY['gpu', 'auto'] LOOP
        -- planted (recovery): the requests answered by the CPU engine, as
        -- auto's fallback answers while the GPU stays unavailable
        PERFORM set_config('setops.device', CASE current_setting('service_checks.mutate')
                                            WHEN 'recovery' THEN 'cpu' ELSE m END, true);
        FOR k IN 1 .. CASE m WHEN 'auto' THEN 8 ELSE 3 END LOOP
            BEGIN
                r := array_intersect_gpu(a, b);
                SELECT gpu, reason INTO t FROM setops_last_timing();
                RAISE NOTICE 'probe % %: answer %, gpu %, reason %', m, k,
                    CASE WHEN r = ref THEN 'right' ELSE 'WRONG' END, coalesce(t.gpu::text, 'none'), t.reason;
            EXCEPTION WHEN OTHERS THEN
                RAISE NOTICE 'probe % %: ERROR %', m, k, SQLERRM;
            END;
            EXIT WHEN m = 'auto' AND t.gpu IS NOT NULL;
        END LOOP;
    END LOOP;
END $$;
SQL
)
req1=$(psql -XAtq -c 'SELECT coalesce(sum(requests), 0) FROM setops_service_stats()' 2>/dev/null)
echo "$probe" | sed 's/^NOTICE:  //'
echo "after the restart: service pid ${new_pid:-none} (was $old_pid), ${ndev1:-no} device(s) (were $ndev), service requests ${req0:-?} -> ${req1:-?}"
# gpu mode: every request on a GPU; auto: right, on a GPU but where the
# router explores the CPU engine ("trying the CPU"), and at least once on one
# (the last it made)
gpu_ok=$(echo "$probe" | grep -c 'probe gpu [0-9]: answer right, gpu [0-9]')
auto_gpu=$(echo "$probe" | grep -c 'probe auto [0-9]: answer right, gpu [0-9]')
auto_tried=$(echo "$probe" | grep -c 'probe auto [0-9]: answer right, gpu none, reason auto: trying the CPU')
auto_n=$(echo "$probe" | grep -c 'probe auto [0-9]:')
if [ "$back" != '{1,2,3}' ]; then
	echo "FAILED: the service did not come back within 30 s"; status=1
elif [ -z "$new_pid" ] || [ "$new_pid" = "$old_pid" ]; then
	echo "FAILED: no new service process"; status=1
elif [ "${ndev1:-0}" -lt "$ndev" ]; then
	echo "FAILED: the restarted service lists fewer devices"; status=1
elif [ "$gpu_ok" -ne 3 ] || [ "$auto_gpu" -lt 1 ] || [ "$((auto_gpu + auto_tried))" -ne "$auto_n" ]; then
	echo "FAILED: after the restart $gpu_ok of 3 requests in gpu mode and $auto_gpu of $auto_n in auto mode were answered right on a GPU ($auto_tried auto ones explored the CPU engine; the CPU engine's answers are not a recovery)"; status=1
elif [ "$((${req1:-0} - ${req0:-0}))" -lt $((3 + auto_gpu)) ]; then
	echo "FAILED: the service's request counters grew by $((${req1:-0} - ${req0:-0})), not at least $((3 + auto_gpu))"; status=1
else
	echo "the restarted service answers: 3 of 3 requests in gpu mode and $auto_gpu of $auto_n in auto mode right on a GPU (the others: auto exploring the CPU engine)"
fi
[ $status = 0 ] && echo "pg_service_checks: passed" || echo "pg_service_checks: FAILED"
exit $status
