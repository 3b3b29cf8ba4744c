#!/usr/bin/env bash
# test/upgrade/check.sh: setops 0.1 followed by ALTER EXTENSION setops UPDATE
# must be the same extension as a fresh install of the default version:
# the same members (pg_describe_object of the extension's pg_depend
# entries), and for each member function the same attributes (volatility,
# strictness, parallel safety, C symbol, result type); and the upgraded
# database must pass the suites of what 0.2 added.
#
# Runs against the server PGHOST etc. name; creates and drops two
# databases.  Exit status non-zero on any difference or failed test.
set -uo pipefail
cd "$(dirname "$0")/../.."
up=setops_upgraded
fresh=setops_fresh
status=0
members() {	# database: one line per member, with its attributes
	psql -XAtq -d "$1" -c "
		SELECT pg_describe_object(d.classid, d.objid, d.objsubid) ||
		       coalesce(' ' || (SELECT concat_ws(' ', p.provolatile, p.proisstrict, p.proparallel,
		                                         p.prosrc, p.prorettype::regtype)
		                        FROM pg_proc p
		                        WHERE d.classid = 'pg_proc'::regclass AND p.oid = d.objid), '')
		FROM pg_depend d
		WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
		  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'setops')
		ORDER BY 1"
}
psql -XAtq -d postgres -c 'SET client_min_messages = warning' \
	-c "DROP DATABASE IF EXISTS $up" -c "DROP DATABASE IF EXISTS $fresh" \
	-c "CREATE DATABASE $up" -c "CREATE DATABASE $fresh" >/dev/null || exit 1
psql -XAtq -v ON_ERROR_STOP=1 -d "$up" -c "CREATE EXTENSION setops VERSION '0.1'" \
	-c 'ALTER EXTENSION setops UPDATE' -c 'CREATE EXTENSION pgtap' >/dev/null || exit 1
psql -XAtq -v ON_ERROR_STOP=1 -d "$fresh" -c 'CREATE EXTENSION setops' >/dev/null || exit 1
vu=$(psql -XAtq -d "$up" -c "SELECT extversion FROM pg_extension WHERE extname = 'setops'")
vf=$(psql -XAtq -d "$fresh" -c "SELECT extversion FROM pg_extension WHERE extname = 'setops'")
echo "upgraded: $vu, fresh: $vf"
[ "$vu" = "$vf" ] || { echo "FAILED: the versions differ"; status=1; }
mu=$(mktemp)
mf=$(mktemp)
members "$up" >"$mu"
members "$fresh" >"$mf"
echo "members: $(wc -l <"$mu") upgraded, $(wc -l <"$mf") fresh"
if ! diff -u "$mf" "$mu"; then
	echo "FAILED: the members differ (- fresh, + upgraded)"
	status=1
fi
rm -f "$mu" "$mf"
# what 0.2 added, on the upgraded database
pg_prove -d "$up" --failures test/pgtap/13_counts.sql $(ls test/pgtap/14_*.sql 2>/dev/null) || status=1
psql -XAtq -d postgres -c "DROP DATABASE $up" -c "DROP DATABASE $fresh" >/dev/null
exit $status
