# scripts/lib.sh: shared by scripts/demo.sh and scripts/test.sh (sourced).
#
# Installs what is missing (Debian packages), builds and installs setops,
# and runs a throwaway PostgreSQL 15 cluster in a temporary directory as a
# non-root user.  The cluster is stopped and removed on exit, also on
# failure or interrupt.

PG_MAJOR=${PG_MAJOR:-15}
PG_BINDIR=${PG_BINDIR:-/usr/lib/postgresql/$PG_MAJOR/bin}
export PG_CONFIG=${PG_CONFIG:-$PG_BINDIR/pg_config}
[ -x "$PG_CONFIG" ] || PG_CONFIG=$(command -v pg_config || echo pg_config)

say() { printf '\n== %s\n' "$*"; }
die() { printf 'setops: %s\n' "$*" >&2; exit 1; }

# Run as root: directly when we are root, else through sudo.
as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Debian packages needed to build and test; installs only what is missing.
install_deps() {
	local want=(postgresql-server-dev-$PG_MAJOR postgresql-$PG_MAJOR-pgtap
		libtap-parser-sourcehandler-pgtap-perl make gcc)
	local missing=() p
	command -v dpkg-query >/dev/null || die "not a Debian system: install ${want[*]} yourself"
	for p in "${want[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ -x "$PG_BINDIR/postgres" ] || die "PostgreSQL $PG_MAJOR server not found in $PG_BINDIR"
	if [ ${#missing[@]} -gt 0 ]; then
		say "installing ${missing[*]}"
		as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
	fi
	PG_CONFIG=$PG_BINDIR/pg_config
}

build_install() {
	say "building setops ($( [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] && echo 'with CUDA' || echo 'CPU only'))"
	make -s PG_CONFIG="$PG_CONFIG" >/dev/null
	as_root make -s install PG_CONFIG="$PG_CONFIG" >/dev/null
}

# A cluster in a temporary directory, run by a non-root user (PostgreSQL
# refuses root): the invoking user, or when that is root the system user
# setops_test, created if needed.  Exports PGHOST, PGPORT, PGUSER and
# PGDATABASE for clients, which may run as any user.  Server settings:
# SETOPS_SERVER_OPTS on the command line, SETOPS_SERVER_CONF (lines)
# appended to postgresql.conf.
start_cluster() {
	CLUSTER_DIR=$(mktemp -d /tmp/setops-cluster.XXXXXX)
	chmod 755 "$CLUSTER_DIR"
	mkdir -p "$CLUSTER_DIR/sock"
	if [ "$(id -u)" -eq 0 ]; then
		id setops_test >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin setops_test
		chown -R setops_test "$CLUSTER_DIR"
		CLUSTER_RUN=(runuser -u setops_test --)
	else
		CLUSTER_RUN=()
	fi
	trap stop_cluster EXIT
	trap 'exit 130' INT TERM
	"${CLUSTER_RUN[@]}" "$PG_BINDIR/initdb" -D "$CLUSTER_DIR/data" -A trust -U postgres \
		--no-sync >"$CLUSTER_DIR/initdb.log" 2>&1 || { cat "$CLUSTER_DIR/initdb.log"; die "initdb failed"; }
	# settings a test may change with ALTER SYSTEM go into the file (the
	# command line would override what ALTER SYSTEM writes)
	[ -n "${SETOPS_SERVER_CONF:-}" ] && printf '%s\n' "$SETOPS_SERVER_CONF" >>"$CLUSTER_DIR/data/postgresql.conf"
	"${CLUSTER_RUN[@]}" "$PG_BINDIR/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w \
		-o "-k $CLUSTER_DIR/sock -c listen_addresses='' -c fsync=off -c shared_buffers=512MB -c work_mem=256MB ${SETOPS_SERVER_OPTS:-}" \
		start >/dev/null || { cat "$CLUSTER_DIR/server.log"; die "the server did not start"; }
	export PGHOST=$CLUSTER_DIR/sock PGPORT=5432 PGUSER=postgres PGDATABASE=postgres
	say "throwaway cluster up in $CLUSTER_DIR (PostgreSQL $("$PG_BINDIR/postgres" --version | awk '{print $3}'))"
}

stop_cluster() {
	if [ -n "${CLUSTER_DIR:-}" ] && [ -d "$CLUSTER_DIR" ]; then
		"${CLUSTER_RUN[@]}" "$PG_BINDIR/pg_ctl" -D "$CLUSTER_DIR/data" -m immediate stop >/dev/null 2>&1 || true
		rm -rf "$CLUSTER_DIR"
		CLUSTER_DIR=
	fi
}

# True when setops sees a GPU in this cluster.
have_gpu() {
	[ "$(psql -XAtq -c 'CREATE EXTENSION IF NOT EXISTS setops' -c 'SELECT count(*) FROM setops_devices()' 2>/dev/null | tail -1)" -gt 0 ] 2>/dev/null
}
