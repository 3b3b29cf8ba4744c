# shellcheck shell=bash
# test/service/lib.sh: sourced by the service tests (concurrency.sh,
# faults.sh): PostgreSQL's programs first on PATH, a database of their
# own, dropped at exit, a work directory, and their tallies of checks
# passed and failed.

# service_test_begin DB NAME: sets db and work (/tmp/NAME.XXXXXX)
service_test_begin() {
	local bindir
	bindir=$("${PG_CONFIG:-pg_config}" --bindir)
	export PATH="$bindir:$PATH"
	db=$1
	work=$(mktemp -d "/tmp/$2.XXXXXX")
	chmod 755 "$work"
	unset PGOPTIONS
	trap service_test_cleanup EXIT
	passed=0
	failed=0
}

# service_test_database: db made afresh, and the sessions' database
service_test_database() {
	psql -XAtq -d postgres -c 'SET client_min_messages = warning' -c "DROP DATABASE IF EXISTS $db" \
		-c "CREATE DATABASE $db" >/dev/null
	export PGDATABASE=$db
}

service_test_cleanup() {
	psql -XAtq -d postgres -c 'SET client_min_messages = warning' -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
	rm -rf "$work"
}

fail() { echo "FAILED: $*"; failed=$((failed + 1)); }
pass() { passed=$((passed + 1)); }
