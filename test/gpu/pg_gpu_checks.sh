#!/usr/bin/env bash
# PostgreSQL-level GPU checks, run with a cluster up and setops preloaded
# (test/gpu/device_run.sh pgchecks on the GPU machine; on a machine without
# a GPU against the emulated service, setops.service_emulate = on):
#   1. 10,000 GPU calls in one backend: every call's answer is compared with
#      the CPU engine's (and its known size), every call must have run on a
#      GPU (setops_last_timing().gpu), and device memory is flat across them;
#   2. a GPU intersection of 2 x SETOPS_CANCEL_N elements (default 100M a
#      side on a GPU, 60M on the emulated service) cancelled while in flight
#      returns within 100 ms.  The cancel is sent a fifth into the call (its
#      length measured first), and the check fails unless the statement
#      ended with SQLSTATE 57014 "canceling statement due to user request"
#      before the call completed, and the cancel was sent at least 150 ms
#      before the call would have ended (so that a cancel honoured only at
#      completion could not pass within 100 ms).  A call that completed
#      before the cancel is a failure, not a pass.
# SETOPS_TEST_MUTATE plants a defect, and the run must then fail:
#   status   one call's answer in 10,000 is counted as a wrong one;
#   cancel   the cancel is sent only after the call completed;
#   1        both.
# Exits non-zero when a check fails.
set -uo pipefail
OUT=${OUT:-/tmp/setops-out}
mkdir -p "$OUT"
mutate=${SETOPS_TEST_MUTATE:-}
case $mutate in ''|1|status|cancel) ;; *) echo "unknown SETOPS_TEST_MUTATE=$mutate (status, cancel; 1: both)"; exit 2 ;; esac
plant() { [ "$mutate" = 1 ] || [ "$mutate" = "$1" ]; }
[ -n "$mutate" ] && echo "SETOPS_TEST_MUTATE=$mutate: a defect is planted, this run must fail"
status=0

psql -XAtq -c 'CREATE EXTENSION IF NOT EXISTS setops' || exit 1
emulated=$(psql -XAtq -c "SELECT count(*) FROM setops_devices() WHERE name LIKE '%service_emulate%'" 2>/dev/null)
ndev=$(psql -XAtq -c 'SELECT count(*) FROM setops_devices()' 2>/dev/null)
echo "the GPU service lists ${ndev:-0} device(s)$([ "${emulated:-0}" -gt 0 ] && echo ', emulated (CPU engine)')"
[ "${ndev:-0}" -gt 0 ] || { echo "FAILED: no GPU service device (setops preloaded? a GPU or setops.service_emulate?)"; exit 1; }

# 1. 10,000 calls: every answer and where it ran, device memory flat
psql -X -q -v ON_ERROR_STOP=1 -v mutate="$(plant status && echo status)" <<'SQL' || { echo "FAILED: 10,000 calls"; status=1; }
SELECT set_config('gpu_checks.mutate', :'mutate', false) \g /dev/null
DO $$
DECLARE
    a int4[] := (SELECT array_agg(i) FROM generate_series(1, 60000, 3) i);
    b int4[] := (SELECT array_agg(i) FROM generate_series(1, 60000, 2) i);
    ref int4[];
    r int4[];
    g int;
    f0 bigint;
    f1 bigint;
    wrong int := 0;
    off_gpu int := 0;
    first_wrong int;
BEGIN
    -- the reference: the CPU engine's answer, and its known size (the keys
    -- 1 mod 6 below 60000)
    PERFORM set_config('setops.device', 'cpu', true);
    ref := array_intersect_gpu(a, b);
    IF cardinality(ref) <> 10000 OR ref[1] <> 1 OR ref[10000] <> 59995 THEN
        RAISE EXCEPTION 'the CPU engine''s reference is wrong: % keys', cardinality(ref);
    END IF;
    PERFORM set_config('setops.device', 'gpu', true);
    -- 1,000 calls first: each of the service's executor threads takes its
    -- stream's pool on its first job, and which one serves a call is not
    -- this session's choice; memory must then stay flat over 10,000 more
    FOR i IN 1 .. 11000 LOOP
        IF i = 1001 THEN
            SELECT free_memory INTO f0 FROM setops_devices() WHERE device = 0;
        END IF;
        r := array_intersect_gpu(a, b);
        SELECT gpu INTO g FROM setops_last_timing();
        IF current_setting('gpu_checks.mutate') = 'status' AND i = 6000 THEN
            r := r[2:];         -- planted: this call's answer counts as wrong
        END IF;
        IF r IS DISTINCT FROM ref THEN
            wrong := wrong + 1;
            first_wrong := coalesce(first_wrong, i);
        END IF;
        IF g IS NULL THEN
            off_gpu := off_gpu + 1;
        END IF;
    END LOOP;
    SELECT free_memory INTO f1 FROM setops_devices() WHERE device = 0;
    RAISE NOTICE '11,000 calls: % wrong answers (first: call %), % not run on a GPU', wrong, first_wrong, off_gpu;
    RAISE NOTICE 'free device memory after 1,000 calls % bytes, after 10,000 more % bytes', f0, f1;
    IF wrong > 0 OR off_gpu > 0 THEN
        RAISE EXCEPTION '% of 11,000 calls gave a wrong answer, % did not run on a GPU', wrong, off_gpu;
    END IF;
    IF f1 <> f0 THEN
        RAISE EXCEPTION 'device memory moved by % bytes', f0 - f1;
    END IF;
END $$;
SQL

# 2. cancel in flight.  The session builds two arrays of n elements,
# measures one intersection (median of 3), then announces one more call
# (its pid, its start, the expected length) and makes it; generic plans pass
# the PL/pgSQL arrays as they are.  The call that completes says so, then
# sleeps so that a late cancel still ends the session.
if [ "${emulated:-0}" -gt 0 ]; then n=${SETOPS_CANCEL_N:-60000000}; else n=${SETOPS_CANCEL_N:-100000000}; fi
log=$OUT/cancel_session.log
psql -X -q -v n="$n" >"$log" 2>&1 <<'SQL' &
SET setops.device = gpu;
SET plan_cache_mode = force_generic_plan;
SELECT set_config('gpu_checks.n', :'n', false) \g /dev/null
DO $$
DECLARE
    n int8 := current_setting('gpu_checks.n')::int8;
    -- array_agg stops short of 100M elements (its buffer would pass 1 GB):
    -- join two halves instead
    a int4[] := array_cat((SELECT array_agg(i * 2) FROM generate_series(1, n / 2) i),
                          (SELECT array_agg(i * 2) FROM generate_series(n / 2 + 1, n) i));
    b int4[] := array_cat((SELECT array_agg(i * 3) FROM generate_series(1, n / 2) i),
                          (SELECT array_agg(i * 3) FROM generate_series(n / 2 + 1, n) i));
    r int4[];
    t0 timestamptz;
    ms float8[] := '{}';
    started float8;
    done bool := false;
BEGIN
    FOR k IN 1 .. 3 LOOP
        t0 := clock_timestamp();
        r := array_intersect_gpu(a, b);
        ms := ms || extract(epoch FROM clock_timestamp() - t0)::float8 * 1000;
    END LOOP;
    ms := (SELECT array_agg(x ORDER BY x) FROM unnest(ms) x);
    -- the call starts 2 s after it is announced, so that the sender, polling
    -- the log, can aim its cancel into it
    started := extract(epoch FROM clock_timestamp()) + 2;
    -- expected: the fastest of the three, so that "before its end" holds
    -- for the call even if it runs as fast as its fastest
    RAISE NOTICE 'cancel target: pid % starts % expected_ms % (one %-element intersection: % ms, fastest of %)',
        pg_backend_pid(), started, round(ms[1]::numeric, 1), 2 * n, round(ms[1]::numeric, 1), ms;
    PERFORM pg_sleep(started - extract(epoch FROM clock_timestamp()));
    started := extract(epoch FROM clock_timestamp());
    RAISE NOTICE 'call began at %', started;
    r := array_intersect_gpu(a, b);
    done := true;
    RAISE NOTICE 'COMPLETED at %: the call ran to its end', extract(epoch FROM clock_timestamp());
    PERFORM pg_sleep(120);
EXCEPTION WHEN query_canceled THEN
    RAISE NOTICE 'caught at % sqlstate % "%" completed %', extract(epoch FROM clock_timestamp()), SQLSTATE, SQLERRM, done;
END $$;
SQL
s1=$!
target=
for _ in $(seq 6000); do
	target=$(sed -n 's/.*cancel target: pid \([0-9]*\) starts \([0-9.]*\) expected_ms \([0-9.]*\).*/\1 \2 \3/p' "$log")
	[ -n "$target" ] && break
	grep -q ERROR "$log" && break
	kill -0 $s1 2>/dev/null || break
	sleep 0.1
done
sent=
if [ -n "$target" ]; then
	read -r pid started expected_ms <<<"$target"
	# the canceller connects now, not at the cancel: a connection on a
	# loaded machine takes tens of ms, which would push the cancel late
	sent_file=$OUT/cancel_sent.txt
	rm -f "$sent_file"
	exec 3> >(psql -XAtq >"$sent_file" 2>&1)
	canceller=$!
	echo "SELECT 1 \\g /dev/null" >&3
	if plant cancel; then
		# planted: the cancel goes only after the call completed
		for _ in $(seq 1200); do grep -q COMPLETED "$log" && break; sleep 0.1; done
	else
		# a fifth into the call
		wait_s=$(awk -v s="$started" -v e="$expected_ms" -v now="$(date +%s.%N)" \
			'BEGIN { w = s + e / 5000 - now; printf "%.3f", (w > 0 ? w : 0) }')
		sleep "$wait_s"
	fi
	echo "SELECT extract(epoch FROM clock_timestamp()), pg_cancel_backend($pid);" >&3
	exec 3>&-
	wait "$canceller"
	sent=$(tail -n 1 "$sent_file")
fi
# the session ends at the cancel (or, after a completed call, at its sleep's cancel)
for _ in $(seq 1500); do kill -0 $s1 2>/dev/null || break; sleep 0.1; done
kill -0 $s1 2>/dev/null && { echo "the session did not end within 150 s of the cancel"; kill $s1; }
wait $s1
cat "$log"
echo "cancel sent at (epoch, pg_cancel_backend): $sent"
caught=$(sed -n 's/.*caught at \([0-9.]*\) sqlstate.*/\1/p' "$log")
began=$(sed -n 's/.*call began at \([0-9.]*\).*/\1/p' "$log")
if [ -z "$target" ] || [ -z "$sent" ] || [ "${sent#*|}" != t ]; then
	echo "FAILED: cancel check: no call to cancel (target '$target', cancel sent '$sent')"
	status=1
elif ! grep -q 'caught at [0-9.]* sqlstate 57014 "canceling statement due to user request" completed f$' "$log"; then
	echo "FAILED: the call was not cancelled in flight (it completed before the cancel, or ended otherwise): latency not measured"
	status=1
else
	sent=${sent%|*}
	awk -v c="$caught" -v s="$sent" -v st="$began" -v e="$expected_ms" 'BEGIN {
		lat = (c - s) * 1000; into = (s - st) * 1000; left = e - into
		printf "cancel sent %.1f ms into a call expected to take %.1f ms (%.1f ms before its end); the statement ended %.1f ms after the cancel, in flight (57014)\n", into, e, left, lat
		if (left < 150) { print "FAILED: the cancel came less than 150 ms before the call would have ended: a cancel honoured only at completion could pass; make the work longer (SETOPS_CANCEL_N)"; exit 1 }
		if (lat > 100) { print "FAILED: the cancel took more than 100 ms"; exit 1 }
		print "cancel of a GPU intersection in flight: within 100 ms"
	}' || status=1
fi
[ $status = 0 ] && echo "pg_gpu_checks: passed" || echo "pg_gpu_checks: FAILED"
exit $status
