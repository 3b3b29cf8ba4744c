#!/usr/bin/env bash
# test/upgrade/check.sh: setops 0.1 followed by ALTER EXTENSION setops UPDATE
# one version at a time (0.1 -> 0.2 -> 0.3 -> 0.4) must be the same
# extension as a fresh install of the default version, 0.4: the same
# members (pg_describe_object of the extension's pg_depend entries), and
# for each member function the same attributes (volatility, strictness,
# parallel safety, C symbol, result type); the upgraded database must pass
# the suites of what 0.2 added and 0.3 changed (the aggregates' state
# type), and have what 0.4 added (setops_service, setops_last_timing()'s
# new columns).  A database left at 0.2 (its aggregates' state internal)
# must still aggregate right with the new library, in serial and in
# parallel plans; one left at 0.3 must still read setops_last_timing()
# with its ten columns.
#
# Runs against the server PGHOST etc. name; creates and drops four
# databases.  Exit status non-zero on any difference or failed test.
set -uo pipefail
cd "$(dirname "$0")/../.."
latest=0.4
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
	-c "ALTER EXTENSION setops UPDATE TO '0.2'" -c "ALTER EXTENSION setops UPDATE TO '0.3'" \
	-c "ALTER EXTENSION setops UPDATE TO '0.4'" -c 'CREATE EXTENSION pgtap' >/dev/null || exit 1
psql -XAtq -v ON_ERROR_STOP=1 -d "$fresh" -c 'CREATE EXTENSION setops' >/dev/null || exit 1
vu=$(psql -XAtq -d "$up" -c "SELECT extversion FROM pg_extension WHERE extname = 'setops'")
vf=$(psql -XAtq -d "$fresh" -c "SELECT extversion FROM pg_extension WHERE extname = 'setops'")
echo "upgraded: $vu, fresh: $vf"
[ "$vu" = "$vf" ] || { echo "FAILED: the versions differ"; status=1; }
[ "$vf" = "$latest" ] || { echo "FAILED: the default version is $vf, not $latest"; status=1; }
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
# what 0.3 changed, on the upgraded database
pg_prove -d "$up" --failures test/pgtap/03_aggregates.sql test/pgtap/06_parallel_aggregates.sql || status=1
# what 0.4 added, on the upgraded database: the service's view (no rows
# without the service) and setops_last_timing()'s four new columns
a_new=$(psql -XAtq -v ON_ERROR_STOP=1 -d "$up" <<'SQL'
SET setops.device = cpu;
SELECT count(*) >= 0 FROM setops_service;
SELECT array_length(array_intersect_gpu('{1,2,3}'::int4[], '{2,3,4}'::int4[]), 1);
SELECT device, gpu IS NULL, batched, reason IS NOT NULL FROM setops_last_timing();
SQL
) || status=1
if [ "$a_new" != "$(printf 't\n2\ncpu|t|0|t')" ]; then
	echo "FAILED: what 0.4 added, after the update:"
	echo "$a_new"
	status=1
fi

# a database still at 0.2, served by this library: the same answers
old=setops_at_0_2
psql -XAtq -d postgres -c 'SET client_min_messages = warning' -c "DROP DATABASE IF EXISTS $old" \
	-c "CREATE DATABASE $old" >/dev/null || exit 1
psql -XAtq -v ON_ERROR_STOP=1 -d "$old" -c "CREATE EXTENSION setops VERSION '0.2'" >/dev/null || exit 1
agg_answers() {	# database: the aggregates over one table, serial and parallel
	psql -XAtq -v ON_ERROR_STOP=1 -d "$1" <<'SQL'
SET client_min_messages = warning;
DROP TABLE IF EXISTS upgrade_rows;
CREATE TABLE upgrade_rows AS
SELECT id, id % 5 AS grp,
       array(SELECT (id * 7 + k * 13) % 50 FROM generate_series(1, 20 + id % 7) k ORDER BY 1)::int4[] AS a
FROM generate_series(1, 20000) id;
ANALYZE upgrade_rows;
SELECT grp, md5(array_intersect_agg(a)::text), md5(array_union_agg(a)::text),
       md5(array_merge_agg(a::int8[])::text), md5(array_union_agg(a::packed_int4)::text)
FROM upgrade_rows GROUP BY grp ORDER BY grp;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT grp, md5(array_intersect_agg(a)::text), md5(array_union_agg(a)::text),
       md5(array_merge_agg(a::int8[])::text), md5(array_union_agg(a::packed_int4)::text)
FROM upgrade_rows GROUP BY grp ORDER BY grp;
DROP TABLE upgrade_rows;
SQL
}
a_old=$(agg_answers "$old") || status=1
a_up=$(agg_answers "$up") || status=1
if [ -z "$a_old" ] || [ "$a_old" != "$a_up" ]; then
	echo "FAILED: aggregates at 0.2 and after the update answer differently"
	diff <(echo "$a_old") <(echo "$a_up")
	status=1
else
	echo "aggregates at 0.2 (internal state) and after the update ($vu) agree: $(echo "$a_up" | wc -l) groups"
fi

# a database still at 0.3, served by this library: setops_last_timing() as
# 0.3 defined it, ten columns
at3=setops_at_0_3
psql -XAtq -d postgres -c 'SET client_min_messages = warning' -c "DROP DATABASE IF EXISTS $at3" \
	-c "CREATE DATABASE $at3" >/dev/null || exit 1
psql -XAtq -v ON_ERROR_STOP=1 -d "$at3" -c "CREATE EXTENSION setops VERSION '0.3'" >/dev/null || exit 1
a_03=$(psql -XAtq -v ON_ERROR_STOP=1 -d "$at3" <<'SQL'
SET setops.device = cpu;
SELECT array_length(array_intersect_gpu('{1,2,3}'::int4[], '{2,3,4}'::int4[]), 1);
SELECT t.device, (SELECT count(*) FROM json_object_keys(row_to_json(t))) FROM setops_last_timing() t;
SQL
) || status=1
if [ "$a_03" != "$(printf '2\ncpu|10')" ]; then
	echo "FAILED: setops_last_timing() at 0.3:"
	echo "$a_03"
	status=1
else
	echo "setops_last_timing() at 0.3: its ten columns"
fi
psql -XAtq -d postgres -c "DROP DATABASE $up" -c "DROP DATABASE $fresh" -c "DROP DATABASE $old" \
	-c "DROP DATABASE $at3" >/dev/null
exit $status
