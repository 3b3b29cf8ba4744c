#!/usr/bin/env bash
# test/trusted/check.sh: setops is a trusted extension (setops.control:
# trusted = true), so a role that is not a superuser but has CREATE on a
# database installs it there.  Checks, on the server PGHOST etc. name (as a
# superuser; creates and drops the database setops_trusted and the roles
# setops_t_owner, setops_t_user, setops_t_nocreate and setops_t_planter):
#
#   1. a plain role without CREATE on the database cannot install it;
#   2. a plain role with CREATE installs 0.1 in a schema of its own and
#      updates it one version at a time to the control file's default
#      version (ALTER EXTENSION ... UPDATE: the update scripts run for it
#      too), then uses it: the operations, a count and Jaccard, a packed
#      column with a GIN index answering @>, an aggregate, the view
#      setops_service, setops_last_timing(), setops_devices(), a user
#      setting; another plain role uses it through the schema;
#   3. the extension belongs to that role, its member objects to the
#      bootstrap superuser, and the role cannot alter them;
#   4. crafted input from that role: packed values from mutated bytes
#      (casts from bytea; binary COPY, which calls the receive functions)
#      and setops_agg_state's binary form with mutated fields (binary COPY)
#      are each rejected with an ERROR or accepted as a value that every
#      function then reads; the server must not crash (each backend that
#      dies restarts them all: the final SELECT would fail);
#   5. objects planted in the target schema before CREATE EXTENSION do not
#      capture the script's references: a function of the same name with
#      polymorphic arguments is not what the aggregates, operators and view
#      bind to (every function those reference is a member or in
#      pg_catalog); one that would make the view's call ambiguous makes
#      CREATE EXTENSION fail.
#
# SETOPS_TEST_MUTATE=1 withholds CREATE on the database from the owner
# role, so that installing fails and so must this check.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
db=setops_trusted
owner=setops_t_owner
user=setops_t_user
nocreate=setops_t_nocreate
planter=setops_t_planter
fuzz_iters=${SETOPS_TRUSTED_FUZZ:-20000}
status=0
fail() { echo "FAILED: $*"; status=1; }
su_psql() { psql -XAtq -v ON_ERROR_STOP=1 "$@"; }
as() { local r=$1; shift; psql -XAtq -v ON_ERROR_STOP=1 -U "$r" -d $db "$@"; }
tmp=$(mktemp -d /tmp/setops-trusted.XXXXXX)
chmod 755 "$tmp"
cleanup() {
	psql -XAtq -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
	for r in $owner $user $nocreate $planter; do
		psql -XAtq -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
cleanup
mkdir -p "$tmp"
latest=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" setops.control)
grep -q '^trusted *= *true' setops.control || fail "setops.control does not say trusted = true"

su_psql -c "CREATE DATABASE $db" \
	-c "CREATE ROLE $owner LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE" \
	-c "CREATE ROLE $user LOGIN NOSUPERUSER" \
	-c "CREATE ROLE $nocreate LOGIN NOSUPERUSER" \
	-c "CREATE ROLE $planter LOGIN NOSUPERUSER" || { fail "setup"; exit 1; }
if [ -n "${SETOPS_TEST_MUTATE:-}" ] && [ "$SETOPS_TEST_MUTATE" != 0 ]; then
	echo "SETOPS_TEST_MUTATE is set: $owner gets no CREATE on $db, the checks below must fail"
else
	su_psql -c "GRANT CREATE ON DATABASE $db TO $owner"
fi
su_psql -d $db -c "GRANT CREATE ON DATABASE $db TO $planter" -c "REVOKE CREATE ON SCHEMA public FROM PUBLIC"

echo "-- 1. without CREATE on the database"
if as $nocreate -c 'CREATE EXTENSION setops' 2>"$tmp/err"; then
	fail "$nocreate installed setops without CREATE on the database"
elif ! grep -q 'permission denied' "$tmp/err"; then
	fail "$nocreate: not a permission error: $(cat "$tmp/err")"
else
	echo "refused: $(head -1 "$tmp/err")"
fi

echo "-- 2. installed by $owner: 0.1, then each update to $latest"
as $owner -c 'CREATE SCHEMA sx' -c "CREATE EXTENSION setops SCHEMA sx VERSION '0.1'" ||
	fail "$owner could not install setops 0.1"
for v in $(su_psql -d $db -c "SELECT target FROM pg_extension_update_paths('setops')
		WHERE source = '0.1' AND path IS NOT NULL
		  AND string_to_array(target, '.')::int[] <= string_to_array('$latest', '.')::int[]
		ORDER BY string_to_array(target, '.')::int[]"); do
	as $owner -c "ALTER EXTENSION setops UPDATE TO '$v'" || fail "$owner could not update to $v"
done
got=$(as $owner -c "SELECT extversion FROM pg_extension WHERE extname = 'setops'")
[ "$got" = "$latest" ] || fail "after the updates: version '$got', not $latest"
echo "version $got"
[ $status = 0 ] || { echo "trusted install: FAILED (the rest needs the extension)"; exit 1; }

check() {	# role, label, SQL returning one boolean: true passes [, SQL run first, printing nothing]
	local r pre=()
	[ $# -gt 3 ] && pre=(-c "$4")
	r=$(as "$1" -c 'SET search_path = sx, public' -c 'SET client_min_messages = warning' "${pre[@]}" -c "$3" 2>&1)
	if [ "$r" = t ]; then echo "ok: $2"; else fail "$2 ($1): $r"; fi
}
use_it() {	# role
	local r=$1
	check "$r" "operations" "SELECT array_intersect_gpu('{1,1,2,3,3}'::int4[], '{1,3,3,3,4}') = '{1,3,3}'
		AND array_union_gpu('{1,1,2}'::int8[], '{1,2,2}') = '{1,1,2,2}'
		AND array_difference_gpu('{1,1,2}'::int4[], '{1}') = '{1,2}'
		AND array_symdiff_gpu('{1,1,2}'::int4[], '{1,3}') = '{1,2,3}'"
	check "$r" "count and Jaccard" "SELECT array_intersect_count('{1,2,2,3}'::int4[], '{2,2,3,4}') = 3
		AND array_jaccard('{1,2,2,3}'::int4[], '{2,2,3,4}') = 0.6"
	check "$r" "an aggregate" "SELECT array_union_agg(x) = '{1,2,2,3}' AND array_intersect_agg(x) = '{2}'
		FROM (VALUES ('{1,2,2}'::int4[]), ('{2,3}')) v(x)"
	check "$r" "a user setting (setops.device = cpu)" "SELECT device = 'cpu' FROM setops_last_timing()" \
		"SET setops.device = cpu; DO \$\$ BEGIN PERFORM array_intersect_gpu('{1,2}'::int4[], '{2}'); END \$\$"
	check "$r" "the view setops_service: a row per device of setops_devices()" "SELECT
		(SELECT count(*) FROM setops_service) = (SELECT count(*) FROM setops_devices())"
}
as $owner -c 'SET search_path = sx' -c "CREATE TABLE sx.seg (id int, members packed_int4)" \
	-c "INSERT INTO sx.seg SELECT i, array(SELECT generate_series(i, i + 50) UNION ALL SELECT i ORDER BY 1)
		FROM generate_series(1, 3000) i" \
	-c "CREATE INDEX seg_members ON sx.seg USING gin (members)" -c 'ANALYZE sx.seg' ||
	fail "$owner: a packed column with a GIN index"
use_it $owner
check $owner "GIN @> through the index" "SELECT set_config('enable_seqscan', 'off', false) IS NOT NULL
	AND (SELECT count(*) = 1 FROM seg WHERE members @> '{100,100,101}'::packed_int4)
	AND (SELECT count(*) = 50 FROM seg WHERE members @> '{99,100}'::packed_int4)"
as $owner -c 'SET search_path = sx' -c 'SET enable_seqscan = off' \
	-c "EXPLAIN SELECT * FROM sx.seg WHERE members @> '{99,100}'::packed_int4" | grep -q 'Index Scan on seg_members' ||
	fail "the GIN index does not serve @>"
as $owner -c "GRANT USAGE ON SCHEMA sx TO $user" -c "GRANT SELECT ON sx.seg TO $user"
use_it $user
check $user "packed values from a table (another role)" "SELECT array_union_agg(members) = array_pack(array(
	SELECT generate_series(1, 3050) UNION ALL SELECT generate_series(1, 3000) ORDER BY 1)) FROM seg"

echo "-- 3. owners"
check $owner "the extension is $owner's, its members the bootstrap superuser's" "SELECT
	(SELECT extowner::regrole::text = '$owner' FROM pg_extension WHERE extname = 'setops')
	AND (SELECT bool_and(p.proowner = 10) AND count(*) > 100 FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid
	     WHERE d.classid = 'pg_proc'::regclass AND d.deptype = 'e'
	       AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'setops'))"
if as $owner -c 'ALTER FUNCTION sx.array_jaccard(int4[], int4[]) SECURITY DEFINER' 2>/dev/null; then
	fail "$owner altered a member function"
else
	echo "ok: $owner cannot alter a member function"
fi

echo "-- 4. crafted input from $owner"
# packed values: valid values' bytes, mutated (a few bytes, a header bit,
# truncated or extended, a header count set to an extreme, random bytes);
# each cast from bytea, then read by every kind of function when accepted
if as $owner -v iters="$fuzz_iters" -f test/trusted/fuzz.sql >"$tmp/fuzz.out" 2>&1 &&
		tail -1 "$tmp/fuzz.out" | grep -q ', 0 wrong$'; then
	echo "ok: bytea casts: $(tail -1 "$tmp/fuzz.out")"
else
	fail "bytea casts: $(tail -5 "$tmp/fuzz.out")"
fi
# binary COPY (the receive functions) of crafted packed and setops_agg_state
# fields: each case written as a bytea field of its own file, read back
# into a column of the type; a case's COPY fails or adds its row
as $owner -f test/trusted/binary_cases.sql >/dev/null || fail "binary cases"
n=$(as $owner -c 'SELECT count(*) FROM sx.cases')
{
	for ((i = 1; i <= n; i++)); do
		echo "\\copy (SELECT b FROM sx.cases WHERE id = $i) TO '$tmp/case.bin' (FORMAT binary)"
		echo "\\copy sx.got_$(( i % 3 == 0 ? 4 : i % 3 == 1 ? 8 : 0 )) FROM '$tmp/case.bin' (FORMAT binary)"
	done
} | sed -e 's/got_0/got_state/' >"$tmp/copy.psql"
as $owner -c 'CREATE TABLE sx.got_4 (v sx.packed_int4)' -c 'CREATE TABLE sx.got_8 (v sx.packed_int8)' \
	-c 'CREATE TABLE sx.got_state (v sx.setops_agg_state)'
psql -Xq -U $owner -d $db -f "$tmp/copy.psql" >/dev/null 2>"$tmp/copy.err"
echo "binary COPY: $n cases, $(grep -c ERROR "$tmp/copy.err") refused: $(grep ERROR "$tmp/copy.err" |
	sed -e 's/.*ERROR: *//' -e 's/ at position.*//' -e 's/:.*//' | sort | uniq -c | sort -rn | head -5 | awk '{$1=$1; print}' | paste -sd ';' | sed 's/;/; /g')"
grep -v -E '(^|: )(ERROR|HINT|CONTEXT|DETAIL): |^$' "$tmp/copy.err" | head -3 | grep . && fail "binary COPY: unexpected messages"
check $owner "the accepted binary cases read back (every value)" "SET setops.device = cpu;
	SELECT (SELECT count(*) FROM got_4 WHERE array_unpack(v)::text IS NULL OR v <> array_pack(array_unpack(v))) = 0
	AND (SELECT count(*) FROM got_8 WHERE cardinality(v) <> cardinality(array_unpack(v)) OR NOT v @> v) = 0
	AND (SELECT count(*) FROM got_state WHERE v::text::setops_agg_state::text = v::text
	     AND CASE WHEN v::text LIKE '% int4 %' THEN cardinality(setops_agg_final_int4(v))
	              ELSE cardinality(setops_agg_final_int8(v)) END >= 0) = (SELECT count(*) FROM got_state)"
check $owner "the server is up (no backend crashed)" "SELECT count(*) = 1 FROM pg_stat_activity WHERE pid = pg_backend_pid()"

echo "-- 5. objects planted in the target schema"
su_psql -d $db -c "CREATE SCHEMA planted AUTHORIZATION $planter" -c "GRANT CREATE, USAGE ON SCHEMA planted TO $owner" \
	-c "CREATE SCHEMA planted2 AUTHORIZATION $planter" -c "GRANT CREATE, USAGE ON SCHEMA planted2 TO $owner"
as $planter -c "CREATE FUNCTION planted.setops_union_agg_trans(anyelement, anyarray) RETURNS anyelement
		LANGUAGE sql AS 'SELECT \$1'" \
	-c "CREATE FUNCTION planted.array_jaccard(anyarray, anyarray) RETURNS float8 LANGUAGE sql AS 'SELECT 0.5::float8'" \
	-c "CREATE FUNCTION planted.array_overlaps(anyelement, anyelement) RETURNS bool LANGUAGE sql AS 'SELECT true'" \
	-c "CREATE FUNCTION planted.setops_service_stats(VARIADIC int[]) RETURNS SETOF record LANGUAGE sql
		AS 'SELECT 1, 1, 1, 1::int8, 1::int8, 1::int8, 1::float8, 1::float8, 1::int8'" \
	-c "CREATE FUNCTION planted2.setops_service_stats(x int DEFAULT 0) RETURNS SETOF record LANGUAGE sql
		AS 'SELECT 1, 1, 1, 1::int8, 1::int8, 1::int8, 1::float8, 1::float8, 1::int8'" ||
	fail "planting"
as $owner -c 'SET client_min_messages = warning' -c 'DROP EXTENSION setops CASCADE' -c 'CREATE EXTENSION setops SCHEMA planted' ||
	fail "$owner could not install setops $latest beside the planted functions"
check $owner "every function the members reference is a member or pg_catalog's" "SELECT count(*) = 0 FROM (
	WITH m AS (SELECT classid, objid FROM pg_depend WHERE deptype = 'e'
	           AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'setops')),
	refs AS (
		SELECT unnest(ARRAY[aggtransfn, aggfinalfn, aggcombinefn, aggserialfn, aggdeserialfn]) AS f
		FROM pg_aggregate WHERE aggfnoid IN (SELECT objid FROM m)
		UNION ALL SELECT unnest(ARRAY[oprcode, oprrest, oprjoin]) FROM pg_operator WHERE oid IN (SELECT objid FROM m)
		UNION ALL SELECT castfunc FROM pg_cast WHERE oid IN (SELECT objid FROM m)
		UNION ALL SELECT amproc FROM pg_amproc p JOIN pg_opclass c ON c.opcfamily = p.amprocfamily
		          WHERE c.oid IN (SELECT objid FROM m)
		UNION ALL SELECT d.refobjid FROM pg_rewrite w JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass
		          AND d.objid = w.oid AND d.refclassid = 'pg_proc'::regclass
		          WHERE w.ev_class IN (SELECT objid FROM m))
	SELECT f FROM refs WHERE f <> 0
	  AND f NOT IN (SELECT objid FROM m WHERE classid = 'pg_proc'::regclass)
	  AND (SELECT pronamespace <> 'pg_catalog'::regnamespace FROM pg_proc WHERE oid = f)) x"
check $owner "calls resolve to the members" "SET search_path = planted;
	SELECT array_jaccard('{1,2}'::int4[], '{3}') = 0 AND NOT array_overlaps('{1}'::int4[], '{2}')
	AND array_union_agg(x) = '{1,2}' FROM (VALUES ('{1}'::int4[]), ('{2}')) v(x)"
as $owner -c 'DROP EXTENSION setops'
if as $owner -c 'CREATE EXTENSION setops SCHEMA planted2' 2>"$tmp/err"; then
	check $owner "the view reads the member function" "SELECT count(*) = 0 FROM pg_rewrite w
		JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = w.oid AND d.refclassid = 'pg_proc'::regclass
		WHERE w.ev_class = 'planted2.setops_service'::regclass
		  AND d.refobjid = 'planted2.setops_service_stats(int)'::regprocedure"
elif grep -q 'is not unique' "$tmp/err"; then
	echo "ok: refused beside an ambiguous planted function: $(head -1 "$tmp/err")"
else
	fail "installing beside an ambiguous planted function: $(cat "$tmp/err")"
fi

if [ $status = 0 ]; then echo "trusted install: all checks passed"; else echo "trusted install: FAILED"; fi
exit $status
