# scripts/lib.sh: shared by scripts/demo.sh, scripts/test.sh and
# test/shard/run.sh (sourced).
#
# Installs what is missing (Debian packages), builds and installs setops,
# and runs throwaway PostgreSQL 15 servers, each in a temporary directory,
# as a non-root user.  They are stopped and removed on exit, also on
# failure or interrupt.
#
# PG_BINDIR names the server's programs; when only PG_CONFIG is given, its
# --bindir.  Default: the Debian install of PG_MAJOR (15).

PG_MAJOR=${PG_MAJOR:-15}
if [ -z "${PG_BINDIR:-}" ] && [ -n "${PG_CONFIG:-}" ] && [ -x "$PG_CONFIG" ]; then
	PG_BINDIR=$("$PG_CONFIG" --bindir)
fi
PG_BINDIR=${PG_BINDIR:-/usr/lib/postgresql/$PG_MAJOR/bin}
export PG_CONFIG=${PG_CONFIG:-$PG_BINDIR/pg_config}
[ -x "$PG_CONFIG" ] || PG_CONFIG=$(command -v pg_config || echo pg_config)

say() { printf '\n== %s\n' "$*"; }
die() { printf 'setops: %s\n' "$*" >&2; exit 1; }

# Run as root: directly when we are root, else through sudo.
as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Installs those of the given Debian packages that are missing.
need_packages() {
	local missing=() p
	command -v dpkg-query >/dev/null || die "not a Debian system: install $* yourself"
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		say "installing ${missing[*]}"
		as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
	fi
}

# Debian packages needed to build and test.
install_deps() {
	[ -x "$PG_BINDIR/postgres" ] || die "PostgreSQL $PG_MAJOR server not found in $PG_BINDIR"
	need_packages postgresql-server-dev-$PG_MAJOR postgresql-$PG_MAJOR-pgtap \
		libtap-parser-sourcehandler-pgtap-perl make gcc python3
	PG_CONFIG=$PG_BINDIR/pg_config
}

build_install() {
	say "building setops ($( [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] && echo 'with CUDA' || echo 'CPU only'))"
	# (with the test hooks the suites declare: a build for the tests)
	make -s PG_CONFIG="$PG_CONFIG" SETOPS_TEST_HOOKS=yes >/dev/null
	as_root make -s install PG_CONFIG="$PG_CONFIG" SETOPS_TEST_HOOKS=yes >/dev/null
}

# Throwaway servers.  Each lives in a temporary directory of its own (data/,
# server.log, and sock/, the socket directory: the only place it listens,
# so that servers never collide, whatever their ports) and is run by a
# non-root user (PostgreSQL refuses root): the invoking user, or when that
# is root the system user setops_test, created if needed.  Every server
# started is stopped and removed on exit, also on failure or interrupt.
#
# new_server VAR PORT [OPTIONS]: initdb and start a server, listening on
# PORT in its socket directory; sets VAR to its directory.  Server options:
# the defaults, then SETOPS_SERVER_OPTS, then OPTIONS, on the command line
# (kept in the directory's opts for start_server); SETOPS_SERVER_CONF
# (lines) appended to postgresql.conf (settings a test may change with
# ALTER SYSTEM: the command line would override what ALTER SYSTEM writes).
SERVER_DIRS=()
new_server() {
	local _var=$1 _port=$2 _opts=${3:-} _dir
	_dir=$(mktemp -d /tmp/setops-cluster.XXXXXX)
	SERVER_DIRS+=("$_dir")
	trap stop_servers EXIT
	trap 'exit 130' INT TERM
	printf -v "$_var" %s "$_dir"
	chmod 755 "$_dir"
	mkdir -p "$_dir/sock"
	server_runner
	[ ${#SERVER_RUN[@]} -eq 0 ] || chown -R setops_test "$_dir"
	"${SERVER_RUN[@]}" "$PG_BINDIR/initdb" -D "$_dir/data" -A trust -U postgres \
		--no-sync >"$_dir/initdb.log" 2>&1 || { cat "$_dir/initdb.log"; die "initdb failed"; }
	[ -n "${SETOPS_SERVER_CONF:-}" ] && printf '%s\n' "$SETOPS_SERVER_CONF" >>"$_dir/data/postgresql.conf"
	echo "-k $_dir/sock -p $_port -c listen_addresses='' -c fsync=off -c shared_buffers=512MB" \
		"-c work_mem=256MB ${SETOPS_SERVER_OPTS:-} $_opts" >"$_dir/opts"
	start_server "$_dir"
}

# Sets SERVER_RUN, the prefix that runs a command as the servers' user.
server_runner() {
	if [ "$(id -u)" -eq 0 ]; then
		id setops_test >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin setops_test
		# (the library path kept: a bundled server finds its libraries there)
		SERVER_RUN=(runuser -u setops_test -- env "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}")
	else
		SERVER_RUN=()
	fi
}

# start_server DIR: (re)starts the server of DIR, with the options it was
# created with.
start_server() {
	"${SERVER_RUN[@]}" "$PG_BINDIR/pg_ctl" -D "$1/data" -l "$1/server.log" -w -o "$(cat "$1/opts")" \
		start >/dev/null || { tail -n 50 "$1/server.log"; die "the server in $1 did not start"; }
}

# stop_server DIR [MODE]: stops the server of DIR (pg_ctl's -m: fast,
# immediate, ...); its directory stays.
stop_server() {
	"${SERVER_RUN[@]}" "$PG_BINDIR/pg_ctl" -D "$1/data" -m "${2:-fast}" -w stop >/dev/null
}

# remove_server DIR: stops the server of DIR and removes its directory.
remove_server() {
	local d keep=()
	if [ -d "$1" ]; then
		stop_server "$1" immediate 2>/dev/null || true
		rm -rf "$1"
	fi
	for d in "${SERVER_DIRS[@]}"; do [ "$d" = "$1" ] || keep+=("$d"); done
	SERVER_DIRS=("${keep[@]}")
}

stop_servers() {
	local d
	for d in "${SERVER_DIRS[@]}"; do remove_server "$d"; done
}

# The one cluster of scripts/demo.sh and scripts/test.sh: a server whose
# socket PGHOST etc. name for clients (which may run as any user).
start_cluster() {
	new_server CLUSTER_DIR 5432
	export PGHOST=$CLUSTER_DIR/sock PGPORT=5432 PGUSER=postgres PGDATABASE=postgres
	say "throwaway cluster up in $CLUSTER_DIR (PostgreSQL $("$PG_BINDIR/postgres" --version | awk '{print $3}'))"
}

stop_cluster() {
	[ -n "${CLUSTER_DIR:-}" ] && remove_server "$CLUSTER_DIR"
	CLUSTER_DIR=
}

# True when setops sees a GPU in this cluster.
have_gpu() {
	[ "$(psql -XAtq -c 'CREATE EXTENSION IF NOT EXISTS setops' -c 'SELECT count(*) FROM setops_devices()' 2>/dev/null | tail -1)" -gt 0 ] 2>/dev/null
}
