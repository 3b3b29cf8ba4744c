#!/usr/bin/env bash
# test/shard/run.sh [MODE...]: setops on a sharded cluster on this machine.
#
# Starts three throwaway servers (scripts/lib.sh: own directories and
# sockets, a non-root user, all removed on exit, also on failure or
# interrupt): a coordinator and two shards.  setops on all three;
# postgres_fdw and PL/Proxy on the coordinator.  Then:
#   1. the distributed pgTAP suite (test/shard/[0-9]*.sql) on the
#      coordinator, once per setops.device MODE (default: cpu auto), set
#      with ALTER DATABASE on every server: setops functions, operators and
#      aggregates pushed into the shards' Remote SQL, partitionwise and
#      two-level aggregates, PL/Proxy functions on all shards and by key,
#      every answer against the same rows in one local table;
#   2. faults: a shard stopped before a query and in the middle of one
#      (postgres_fdw and PL/Proxy) gives a clean ERROR at the coordinator
#      within a time limit, the coordinator does not restart, and once the
#      shard is back the next query (in the same session too) is right.
# Exit status non-zero on any failure.
#
# setops must be installed where PG_CONFIG (or PG_BINDIR) points; PL/Proxy
# (postgresql-15-plproxy) is installed with apt-get when missing.  Servers
# listen on ports 55400 (coordinator), 55401, 55402 of their own socket
# directories only.  SETOPS_SHARD_SERVER_OPTS is added to every server's
# options: for the gpu mode, shared_preload_libraries=setops (and on a
# machine without a GPU setops.service_emulate=on), each server then runs
# its own GPU service (see docs/sharding.md, "A GPU per shard").
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source scripts/lib.sh
# run.sh --server start|stop DIR [MODE]: for faults.sql, start or stop
# (pg_ctl -m MODE) the server in DIR
if [ "${1:-}" = --server ]; then
	server_runner
	"${2}_server" "$3" ${4:+"$4"}
	exit
fi
modes=${*:-cpu auto}
# the mode comes from ALTER DATABASE on every server, not from the client
unset PGOPTIONS
source test/shard/cluster.sh
shard_cluster_up

failures=()
for mode in $modes; do
	shard_set_device "$mode"
	say "pgTAP on the sharded cluster, setops.device=$mode"
	pg_prove --set mode="$mode" --failures test/shard/[0-9]*.sql || failures+=("pgTAP, setops.device=$mode")
done

# Faults.  The coordinator must answer every one with an ERROR, within
# limit seconds, and never restart.
say "faults: a shard stopped before and during queries"
limit=60
export SHARD0 SHARD1
coord_pid=$(head -1 "$COORD/data/postmaster.pid")
fail() { echo "FAILED: $*"; failures+=("faults: $1"); }

# 1. one session: shard 1 stopped before queries, then started again
out=$(mktemp)
timeout $limit psql -X -q -f test/shard/faults.sql >"$out" 2>"$out.err"
rc=$?
cat "$out.err"
[ $rc -eq 0 ] || fail "faults.sql: psql exit status $rc"
diff -u test/shard/expected/faults.out "$out" || fail "faults.sql: output differs from expected/faults.out"
rm -f "$out" "$out.err"

# waits up to 10 s for a query on the server of DIR PORT: SQL (a count > 0)
wait_for() {
	for _ in $(seq 100); do
		[ "$(on "$1" "$2" -At -c "$3")" -gt 0 ] 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# expects QUERY (run in the background by mid_query) to fail with an ERROR
# within the limit once the server of DIR is stopped mid-query
mid_query() {	# name dir port ready-sql query
	local name=$1 dir=$2 port=$3 ready=$4 query=$5 out pid rc t0
	out=$(mktemp)
	timeout $limit psql -X -q -v VERBOSITY=verbose -c "$query" >"$out" 2>&1 &
	pid=$!
	if ! wait_for "$dir" "$port" "$ready"; then
		wait $pid
		fail "$name: the query did not reach the shard"
	else
		t0=$SECONDS
		stop_server "$dir" immediate
		wait $pid
		rc=$?
		sed 's/^/    /' "$out"
		if [ $rc -eq 124 ]; then
			fail "$name: no answer within $limit s"
		elif [ $rc -ne 1 ] || ! grep -q '^ERROR: ' "$out"; then
			fail "$name: psql exit status $rc, not an ERROR"
		else
			echo "-- $name: ERROR $((SECONDS - t0)) s after the stop"
		fi
		start_server "$dir"
	fi
	rm -f "$out"
}

# 2. postgres_fdw: shard 0 stopped while the coordinator reads its rows
#    (slowly, a row every 10 ms, 100 rows a FETCH)
mid_query "postgres_fdw, shard 0 stopped mid-query" "$SHARD0" $SHARD0_PORT \
	"SELECT count(*) FROM pg_stat_activity WHERE application_name = 'postgres_fdw' AND query LIKE 'FETCH%'" \
	"SELECT array_union_agg(slow(members, 0.01)) IS NOT NULL FROM seg"
# 3. PL/Proxy: shard 1 stopped while it runs the function
mid_query "PL/Proxy, shard 1 stopped mid-query" "$SHARD1" $SHARD1_PORT \
	"SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%shard_sleep%' AND state = 'active' AND pid <> pg_backend_pid()" \
	"SELECT count(*) FROM shard_sleep(5)"

# 4. both back: right answers, in a new session; the coordinator never
#    restarted
ok=$(timeout $limit psql -X -At -c 'SELECT fdw_ok(), proxy_ok()' 2>&1)
[ "$ok" = "t|t" ] || fail "after the restarts: fdw_ok, proxy_ok: $ok"
[ "$(head -1 "$COORD/data/postmaster.pid")" = "$coord_pid" ] || fail "the coordinator's postmaster changed"
if grep -E 'terminated by signal|server process .* was terminated|reinitializing|PANIC' "$COORD/server.log"; then
	fail "the coordinator's log shows a crash"
fi

if [ ${#failures[@]} -gt 0 ]; then
	say "FAILED: ${failures[*]}"
	exit 1
fi
say "sharded cluster: all passed (modes: $modes)"
