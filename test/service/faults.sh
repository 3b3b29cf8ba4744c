#!/usr/bin/env bash
# test/service/faults.sh [sessions] [calls]
#
# Device faults under load fail only the request they hit: `sessions`
# (default 16) psql sessions each make `calls` (default 400) counts of
# stored int4[] pairs in setops.device = gpu, through the emulated GPU
# service, whose count runners put the counts that wait together in one
# shared trip.  Meanwhile an injector session makes a device fail
# (setops_test_service_faults, a test hook of builds for the tests: the
# next n launches or trips on a device fail as a GPU fault would), the
# devices in turn, each fault waited for until taken:
#
#   phase 1, a fault at a time that only a shared trip of two or more
#     counts takes: the trip fails and sends each of its counts again
#     alone, so no request may fail: every call must be answered, and
#     right;
#   phase 2, two faults at a time that any launch takes: a count that
#     runs alone (its trip failed) and takes one fails, and only it, with
#     the device's message; so some requests fail, never more than the
#     faults taken, and every other call is right;
#   phase 3, a fault at a time that also resets its device (its memory
#     lost: the emulated device fills it with -1s): the requests whose
#     arrays were on it fail with the reset's message, none may read what
#     was lost (a wrong answer), every other call is right, and the arrays
#     go to the device again;
#   phase 4, no fault, but the service stopped (SIGTERM) under the load:
#     the requests in flight and those until the postmaster has started it
#     again fail with the service's message, every other call is right,
#     and afterwards the new service answers every pair on its devices.
#
# Each answer is compared with the expected count computed by the CPU
# engine before the load (setops.device = cpu).  A wrong answer, or an
# ERROR other than an injected fault's, fails the session.  Afterwards
# every pair again, nothing left queued, and no fault left untaken.
#
# Needs a cluster with setops preloaded, the GPU service emulated with one
# or more devices (setops.service_emulate) and a build with the test
# hooks (make SETOPS_TEST_HOOKS=yes).  Exits non-zero on any failure; the
# last line says "service_faults: N passed, M failed".  scripts/test.sh
# runs it in its pass with two emulated devices.
set -euo pipefail
sessions=${1:-16}
calls=${2:-400}
# shellcheck source=test/service/lib.sh
source "$(dirname "$0")/lib.sh"
service_test_begin setops_service_faults setops-service-faults

[ "$(psql -XAtq -d postgres -c "SELECT current_setting('setops.service_emulate', true) = 'on' AND current_setting('shared_preload_libraries') ~ '\msetops\M'")" = t ] ||
	{ echo "service_faults: needs the GPU service emulated (setops.service_emulate = on, setops preloaded)"; exit 1; }
service_test_database
psql -Xq -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION setops;
CREATE FUNCTION faults(device int, failures int, kind text DEFAULT 'any') RETURNS int
    AS '$libdir/setops', 'setops_test_service_faults' LANGUAGE C;
-- 24 rows of 1,000 to 6,000 keys with duplicates, stored out of line
-- (the device cache keys them by their TOAST identity); 48 pairs
CREATE TABLE rows4 (id int PRIMARY KEY, a int4[] NOT NULL);
ALTER TABLE rows4 ALTER a SET STORAGE EXTERNAL;
SELECT setseed(0.5) \gset
INSERT INTO rows4
SELECT id, ARRAY(SELECT floor(random() * n * 0.7)::int4 - 2000 FROM generate_series(1, n) ORDER BY 1)
FROM (SELECT id, 1000 + (id * 211) % 5000 AS n FROM generate_series(1, 24) id) s;
CREATE TABLE pairs (p int PRIMARY KEY, x int NOT NULL, y int NOT NULL, want int8);
INSERT INTO pairs SELECT g, 1 + g % 24, 1 + (g * 7 + 3) % 24 FROM generate_series(1, 48) g;
SET setops.device = cpu;
UPDATE pairs SET want = array_intersect_count(r.a, s.a) FROM rows4 r, rows4 s WHERE r.id = x AND s.id = y;
-- each session's tally
CREATE TABLE tally (phase int, session int, ok int, faulted int, lost int, gone int, other text);
SQL
ndev=$(psql -XAtq -c 'SELECT count(*) FROM setops_devices()')
echo "service_faults: $sessions sessions x $calls counts a phase, $ndev emulated device(s)"
psql -XAtq -c 'SET setops.device = gpu' -c 'SELECT count(*) FROM pairs p, rows4 r, rows4 s WHERE r.id = p.x AND s.id = p.y AND array_intersect_count(r.a, s.a) >= 0' >/dev/null

# session_loop PHASE SESSION: the session's counts, tallied; a wrong answer
# raises (faulted: an injected fault's ERROR; lost: a reset's, phase 3;
# gone: the service's, phase 4)
session_loop() {
	psql -Xq -v ON_ERROR_STOP=1 -c "SET setops.device = gpu" -c "
DO \$\$
DECLARE
    ok int := 0;
    faulted int := 0;
    lost int := 0;
    gone int := 0;
    other text;
    got int8;
    pr record;
BEGIN
    FOR i IN 1 .. $calls LOOP
        SELECT * INTO pr FROM pairs WHERE p = 1 + (i * 13 + $2 * 5) % 48;
        BEGIN
            SELECT array_intersect_count(r.a, s.a) INTO got FROM rows4 r, rows4 s
            WHERE r.id = pr.x AND s.id = pr.y;
            IF got IS DISTINCT FROM pr.want THEN
                RAISE EXCEPTION 'pair %: % where the CPU engine counts %', pr.p, got, pr.want;
            END IF;
            ok := ok + 1;
        EXCEPTION WHEN others THEN
            IF SQLERRM LIKE 'array_intersect_count: the GPU failed: an injected fault on device _' OR
               ($1 = 3 AND SQLERRM LIKE 'array_intersect_count: the GPU failed: an injected fault on device _, which reset it') THEN
                faulted := faulted + 1;
            ELSIF $1 = 3 AND SQLERRM LIKE 'array_intersect_count: the GPU failed: the GPU was reset %' THEN
                lost := lost + 1;
            ELSIF $1 = 4 AND (SQLERRM LIKE '%the setops GPU service %' OR
                              SQLERRM LIKE '%but no GPU is usable%') THEN
                gone := gone + 1;
            ELSE
                other := SQLERRM;
                EXIT;
            END IF;
        END;
    END LOOP;
    INSERT INTO tally VALUES ($1, $2, ok, faulted, lost, gone, other);
END \$\$" >"$work/session_$1_$2.log" 2>&1
}

# inject PHASE N KIND: N faults at a time on a device in turn, each
# waited for until taken (2 s at most: the load is over); how many times
inject() {
	psql -XAtq -c "
DO \$\$
DECLARE
    d int := 0;
    taken int := 0;
    t0 timestamptz;
BEGIN
    PERFORM pg_sleep(0.05);
    LOOP
        PERFORM faults(d, $2, '$3');
        t0 := clock_timestamp();
        WHILE faults(d, NULL) > 0 AND clock_timestamp() - t0 < interval '2 s' LOOP
            PERFORM pg_sleep(0.002);
        END LOOP;
        EXIT WHEN faults(d, 0) > 0;
        taken := taken + 1;
        d := (d + 1) % $ndev;
    END LOOP;
    RAISE NOTICE 'taken %', taken;
END \$\$" 2>&1 | sed -n 's/.*NOTICE:  taken \([0-9]*\).*/\1/p' >"$work/inject_$1"
}

# this cluster's GPU service: the postmaster's child of that title
postmaster=$(ps -o ppid= -p "$(psql -XAtq -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'")" | tr -d ' ')
service_pid() { ps -o pid=,args= --ppid "$postmaster" | awk '/setops GPU service/ { print $1; exit }'; }

# stop_service PHASE: SIGTERM to the service once the sessions are busy
stop_service() {
	sleep 0.5
	service_pid >"$work/stopped_$1"
	kill -TERM "$(cat "$work/stopped_$1")"
}

for phase in 1 2 3 4; do
	pids=()
	for s in $(seq 1 "$sessions"); do
		session_loop $phase "$s" &
		pids+=($!)
	done
	case $phase in
		1) inject $phase 1 shared & ;;
		2) inject $phase 2 any & ;;
		3) inject $phase 1 reset & ;;
		4) stop_service $phase & ;;
	esac
	ipid=$!
	rc=0
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	wait $ipid || rc=1
	read -r nsess ok faulted lost gone others < <(psql -XAtq -F ' ' -c "SELECT count(*), coalesce(sum(ok), 0), coalesce(sum(faulted), 0), coalesce(sum(lost), 0), coalesce(sum(gone), 0), count(other) FROM tally WHERE phase = $phase")
	[ $rc -eq 0 ] || { fail "phase $phase: a session, the injector or the stop failed"; cat "$work"/session_${phase}_*.log | grep -v '^DO$' | head -20; }
	if [ "$nsess" -eq "$sessions" ] && [ "$others" -eq 0 ] && [ $((ok + faulted + lost + gone)) -eq $((sessions * calls)) ]; then pass; else
		fail "phase $phase: every session's every call answered right or failed as the phase allows ($nsess sessions, $ok + $faulted + $lost + $gone of $((sessions * calls)); $(psql -XAtq -c "SELECT string_agg(other, '; ') FROM tally WHERE phase = $phase"))"
	fi
	if [ $phase = 4 ]; then
		echo "phase 4: the service (pid $(cat "$work/stopped_4")) stopped under the load; $nsess sessions tallied, $ok counts right, $gone failed with the service's message, $others other errors"
		if [ "$faulted" -eq 0 ] && [ "$gone" -ge 1 ]; then pass; else fail "phase 4: $gone calls failed with the service's message (some should), $faulted with a fault (none should)"; fi
		continue
	fi
	taken=$(cat "$work/inject_$phase")
	echo "phase $phase: $taken time(s) $([ $phase = 2 ] && echo 2 faults || echo a fault) taken; $nsess sessions tallied, $ok counts right, $faulted failed with an injected fault, $lost with a reset's message, $others other errors"
	case $phase in
		1) if [ "${taken:-0}" -ge 10 ] && [ "$faulted" -eq 0 ]; then pass; else
			fail "phase 1: $faulted requests failed of ${taken:-0} faults that shared trips took (10 or more), whose counts should go again alone"; fi ;;
		2) if [ "${taken:-0}" -ge 10 ] && [ "$faulted" -ge 1 ] && [ "$faulted" -le $((2 * taken)) ]; then pass; else
			fail "phase 2: $faulted requests failed of $((2 * ${taken:-0})) faults taken (20 or more; some requests, one a fault at most)"; fi ;;
		3) if [ "${taken:-0}" -ge 5 ] && [ "$faulted" -le "$taken" ]; then pass; else
			fail "phase 3: ${taken:-0} resets (5 or more), $faulted requests failed with the fault itself (one a reset at most)"; fi ;;
	esac
done

# the service back (the postmaster restarts it): a new process, as many devices
for _ in $(seq 1 60); do
	new_pid=$(service_pid)
	[ -n "$new_pid" ] && [ "$new_pid" != "$(cat "$work/stopped_4")" ] &&
		[ "$(psql -XAtq -c 'SELECT count(*) FROM setops_devices()' 2>/dev/null)" = "$ndev" ] && break
	sleep 0.5
done
if [ -n "$new_pid" ] && [ "$new_pid" != "$(cat "$work/stopped_4")" ]; then pass; else fail "the service did not come back after its stop"; fi

# afterwards: every pair right, nothing queued, no fault left
bad=$(psql -XAtq -c 'SET setops.device = gpu' -c 'SELECT count(*) FROM pairs p, rows4 r, rows4 s WHERE r.id = p.x AND s.id = p.y AND array_intersect_count(r.a, s.a) <> p.want')
if [ "$bad" = 0 ]; then pass; else fail "after the faults and the restart, $bad pairs counted wrong"; fi
left=$(psql -XAtq -c "SELECT sum(faults(d, NULL)) FROM generate_series(0, $ndev - 1) d")
queued=$(psql -XAtq -c 'SELECT coalesce(sum(queued), 0) FROM setops_service')
batched=$(psql -XAtq -c 'SELECT coalesce(sum(batched), 0) FROM setops_service')
if [ "$left" = 0 ] && [ "$queued" = 0 ]; then pass; else fail "afterwards $left faults left, $queued operations queued"; fi
echo "afterwards: the service back (pid $new_pid), every pair right on it, $queued queued, $batched counts shared a trip so far"
if [ "$batched" -gt 0 ]; then pass; else fail "no count shared a trip: the faults hit no trip of several counts"; fi
echo "service_faults: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
