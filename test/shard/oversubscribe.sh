#!/usr/bin/env bash
# test/shard/oversubscribe.sh: three servers that share one GPU (the
# sharded cluster of test/shard/cluster.sh, each server with its own GPU
# service) find it full.  Needs a GPU and test/gpu/device_hog (make
# gpu-tests).
#
#   1. every server's GPU service answers a small query (contexts made);
#   2. device_hog takes all but a few MB of the GPU's free memory;
#   3. on a shard and through the coordinator (PL/Proxy, on both shards),
#      a count of two stored 30M-key arrays: in gpu mode a clean ERROR
#      (out of memory), within a time limit; in auto mode the CPU engine's
#      answer, the same as in cpu mode;
#   4. device_hog ends: gpu mode answers right again;
#   5. no server crashed or restarted.
# Exit status non-zero on any failure.  SETOPS_SHARD_SERVER_OPTS as for
# run.sh (shared_preload_libraries=setops at least).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source scripts/lib.sh
source test/shard/cluster.sh
unset PGOPTIONS
hog=test/gpu/device_hog
[ -x $hog ] || die "$hog not built (make gpu-tests)"
n=${SETOPS_OVERSUB_KEYS:-30000000}
limit=120
failures=()
fail() { echo "FAILED: $*"; failures+=("$1"); }

shard_cluster_up
pids=()
for d in "$COORD" "$SHARD0" "$SHARD1"; do pids+=("$(head -1 "$d/data/postmaster.pid")"); done

say "two stored $n-key arrays on each shard; a proxy function that counts them on both"
for d in "$SHARD0:$SHARD0_PORT" "$SHARD1:$SHARD1_PORT"; do
	on "${d%:*}" "${d#*:}" -v n="$n" <<'SQL' || die "shard setup failed"
CREATE TABLE big AS
SELECT (SELECT array_agg(i * 2) FROM generate_series(1, :n) i)::int4[] AS a,
       (SELECT array_agg(i * 3) FROM generate_series(1, :n) i)::int4[] AS b;
CREATE FUNCTION big_count() RETURNS SETOF int8
LANGUAGE sql AS $$ SELECT array_intersect_count(a, b) FROM big $$;
SQL
done
on "$COORD" $COORD_PORT <<'SQL' || die "coordinator setup failed"
CREATE FUNCTION big_count() RETURNS SETOF int8
LANGUAGE plproxy AS $$ CLUSTER 'shards'; RUN ON ALL; $$;
SQL

# the count on shard 0, and the sum over both through the coordinator
shard_q="SELECT array_intersect_count(a, b) FROM big"
coord_q="SELECT sum(c) FROM big_count() c"
ask() {	# dir port query: prints the answer, or the ERROR; returns psql's status
	timeout $limit psql -X -q -At -v ON_ERROR_STOP=1 -v VERBOSITY=verbose \
		-h "$1/sock" -p "$2" -U postgres -d postgres -c "$3" 2>&1
}

shard_set_device cpu
want_shard=$(ask "$SHARD0" $SHARD0_PORT "$shard_q")
want_coord=$(ask "$COORD" $COORD_PORT "$coord_q")
say "cpu: shard 0 $want_shard, both shards $want_coord"

shard_set_device gpu
for d in "$COORD:$COORD_PORT" "$SHARD0:$SHARD0_PORT" "$SHARD1:$SHARD1_PORT"; do
	on "${d%:*}" "${d#*:}" -At -c "SELECT array_intersect_count('{1,2,3}'::int4[], '{2,3}')" >/dev/null ||
		fail "a small query in gpu mode on ${d%:*}"
done
nvidia-smi --query-compute-apps=pid,used_memory --format=csv 2>/dev/null

say "device_hog takes the GPU's free memory"
hog_out=$(mktemp)
$hog "${SETOPS_OVERSUB_LEAVE_MB:-4}" 600 >"$hog_out" 2>&1 &
hog_pid=$!
for _ in $(seq 300); do grep -q '^held' "$hog_out" && break; sleep 0.1; done
cat "$hog_out"
grep -q '^held' "$hog_out" || fail "device_hog did not start"

expect_error() {	# name dir port query
	local out rc t0=$SECONDS
	out=$(ask "$2" "$3" "$4")
	rc=$?
	echo "$out" | sed 's/^/    /'
	if [ $rc -eq 124 ]; then
		fail "$1: no answer within $limit s"
	elif [ $rc -ne 1 ] || ! echo "$out" | grep -q 'ERROR'; then
		fail "$1: psql exit status $rc, not an ERROR"
	else
		echo "-- $1: ERROR after $((SECONDS - t0)) s"
	fi
}
expect_answer() {	# name dir port query want
	local out
	out=$(ask "$2" "$3" "$4")
	if [ "$out" = "$5" ]; then
		echo "-- $1: $out, as in cpu mode"
	else
		echo "$out" | sed 's/^/    /'
		fail "$1: '$out', cpu mode gave '$5'"
	fi
}

shard_set_device gpu
expect_error "gpu mode, GPU full, on shard 0" "$SHARD0" $SHARD0_PORT "$shard_q"
expect_error "gpu mode, GPU full, through the coordinator" "$COORD" $COORD_PORT "$coord_q"
shard_set_device auto
expect_answer "auto mode, GPU full, on shard 0" "$SHARD0" $SHARD0_PORT "$shard_q" "$want_shard"
expect_answer "auto mode, GPU full, through the coordinator" "$COORD" $COORD_PORT "$coord_q" "$want_coord"

say "device_hog ends"
kill $hog_pid
wait $hog_pid 2>/dev/null
shard_set_device gpu
expect_answer "gpu mode, GPU free again, on shard 0" "$SHARD0" $SHARD0_PORT "$shard_q" "$want_shard"
expect_answer "gpu mode, GPU free again, through the coordinator" "$COORD" $COORD_PORT "$coord_q" "$want_coord"
nvidia-smi --query-compute-apps=pid,used_memory --format=csv 2>/dev/null

i=0
for d in "$COORD" "$SHARD0" "$SHARD1"; do
	[ "$(head -1 "$d/data/postmaster.pid")" = "${pids[$i]}" ] || fail "the postmaster of $d changed"
	if grep -E 'terminated by signal|was terminated|reinitializing|PANIC' "$d/server.log"; then
		fail "the log of $d shows a crash"
	fi
	grep -E 'fell back to the CPU|out of memory|GPU failed' "$d/server.log" | head -3 | sed 's/^/    log: /'
	i=$((i + 1))
done
rm -f "$hog_out"
if [ ${#failures[@]} -gt 0 ]; then
	say "FAILED: ${failures[*]}"
	exit 1
fi
say "oversubscribed GPU: clean ERRORs in gpu mode, the CPU engine's answers in auto mode"
