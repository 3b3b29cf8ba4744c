# test/shard/cluster.sh: sourced (after scripts/lib.sh) by the scripts
# that need the sharded cluster: test/shard/run.sh, oversubscribe.sh,
# test/bench/shard_bench.sh.
#
# shard_cluster_up starts three throwaway servers (removed on exit, also
# on failure) on ports 55400 (coordinator), 55401 and 55402 (shards), with
# SETOPS_SHARD_SERVER_OPTS added to every server's options, and sets them
# up: test/shard/shard.sql on each shard, test/shard/coordinator.sql on the
# coordinator (postgres_fdw partitions, PL/Proxy, the test rows).  Sets
# COORD, SHARD0, SHARD1 (directories), their *_PORT, PGHOST etc. for the
# coordinator, and on DIR PORT [psql arguments].  shard_set_device MODE
# sets setops.device on every server (ALTER DATABASE: new sessions).

shard_cluster_up() {
	export PATH=$PG_BINDIR:$PATH
	local extdir e opts
	extdir=$("$PG_CONFIG" --sharedir)/extension
	[ -f "$extdir/plproxy.control" ] || need_packages "postgresql-$PG_MAJOR-plproxy"
	for e in setops postgres_fdw plproxy pgtap; do
		[ -f "$extdir/$e.control" ] || die "extension $e is not installed in $extdir"
	done
	command -v pg_prove >/dev/null || die "pg_prove not found (libtap-parser-sourcehandler-pgtap-perl)"

	COORD_PORT=55400 SHARD0_PORT=55401 SHARD1_PORT=55402
	opts="-c shared_buffers=${SETOPS_SHARD_SHARED_BUFFERS:-64MB} -c work_mem=64MB -c max_connections=30 ${SETOPS_SHARD_SERVER_OPTS:-}"
	new_server COORD $COORD_PORT "$opts" || die "the coordinator did not start"
	new_server SHARD0 $SHARD0_PORT "$opts" || die "shard 0 did not start"
	new_server SHARD1 $SHARD1_PORT "$opts" || die "shard 1 did not start"
	say "coordinator $COORD, shards $SHARD0 $SHARD1"
	export PGHOST=$COORD/sock PGPORT=$COORD_PORT PGUSER=postgres PGDATABASE=postgres

	say "setting up the shards and the coordinator"
	on "$SHARD0" $SHARD0_PORT -v shard=0 -f test/shard/shard.sql || die "shard 0 setup failed"
	on "$SHARD1" $SHARD1_PORT -v shard=1 -f test/shard/shard.sql || die "shard 1 setup failed"
	on "$COORD" $COORD_PORT \
		-v host0="$SHARD0/sock" -v port0=$SHARD0_PORT -v host1="$SHARD1/sock" -v port1=$SHARD1_PORT \
		-v plproxy0="host=$SHARD0/sock port=$SHARD0_PORT dbname=postgres" \
		-v plproxy1="host=$SHARD1/sock port=$SHARD1_PORT dbname=postgres" \
		-f test/shard/coordinator.sql || die "coordinator setup failed"
}

# psql on a server: dir port [psql arguments]
on() {
	local dir=$1 port=$2
	shift 2
	psql -X -q -v ON_ERROR_STOP=1 -h "$dir/sock" -p "$port" -U postgres -d postgres "$@"
}

# setops.device = MODE for new sessions on all three servers
shard_set_device() {
	local d
	for d in "$COORD:$COORD_PORT" "$SHARD0:$SHARD0_PORT" "$SHARD1:$SHARD1_PORT"; do
		on "${d%:*}" "${d#*:}" -c "ALTER DATABASE postgres SET setops.device = '$1'" >/dev/null ||
			die "could not set setops.device"
	done
}
