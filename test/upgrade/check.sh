#!/usr/bin/env bash
# test/upgrade/check.sh: setops 0.1 followed by ALTER EXTENSION setops UPDATE
# one version at a time (0.1 -> 0.2 -> 0.3 -> 0.4) must be the same
# extension as a fresh install of the default version, 0.4: the same
# members (pg_describe_object of the extension's pg_depend entries), and
# the same attributes of each: functions (volatility, strictness, parallel
# safety, kind, C symbol, result type, ...), aggregates (pg_aggregate: the
# transition, final, combine, serial and deserial functions, moving-
# aggregate functions, state types, kind, initial values), operators
# (pg_operator: operand and result types, commutator, negator, function,
# estimators, merges and hashes), operator classes and the operators and
# support functions of their families, types, casts and views; the
# upgraded database must pass the suites of what 0.2 added and 0.3 changed
# (the aggregates' state type), and have what 0.4 added (setops_service,
# setops_last_timing()'s new columns).  A database left at 0.2 (its
# aggregates' state internal) and the upgraded one must aggregate as a
# reference in plain SQL says (per group and key the fewest, the most and
# the sum of the rows' copies), in a serial plan and in a parallel one,
# which EXPLAIN ANALYZE must show ran parallel (Partial Aggregate under a
# Gather, workers launched); one left at 0.3 must still read
# setops_last_timing() with its ten columns.
#
# SETOPS_TEST_MUTATE=1 plants defects, to show that these checks can fail
# (docs/development.md): a combine function and an operator's hashes flag
# changed in the upgraded database's catalog (rolled back), one key taken
# out of the reference's answers, and the parallel plans turned serial;
# the pgTAP suites see their references perturbed too (reference.psql).
#
# Runs against the server PGHOST etc. name; creates and drops four
# databases.  Exit status non-zero on any difference or failed test.
set -uo pipefail
cd "$(dirname "$0")/../.."
latest=0.4
up=setops_upgraded
fresh=setops_fresh
status=0
mutate=0
[ -n "${SETOPS_TEST_MUTATE:-}" ] && [ "$SETOPS_TEST_MUTATE" != 0 ] && mutate=1
[ $mutate = 1 ] && echo "SETOPS_TEST_MUTATE is set: planting defects, the checks below must fail"
members() {	# database [SQL run first, rolled back after]: one line per member and per attribute
	psql -XAtq -v ON_ERROR_STOP=1 -d "$1" -c 'BEGIN' -c "${2:-SELECT}" -c "
		WITH m AS (
			SELECT classid, objid, objsubid FROM pg_depend
			WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
			  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'setops')),
		fam AS (	-- the families of member classes, and member families
			SELECT objid AS fam FROM m WHERE classid = 'pg_opfamily'::regclass
			UNION SELECT c.opcfamily FROM m JOIN pg_opclass c ON m.classid = 'pg_opclass'::regclass
			                                               AND c.oid = m.objid)
		SELECT pg_describe_object(classid, objid, objsubid) FROM m
		UNION ALL
		SELECT format('%s: volatile %s strict %s parallel %s kind %s secdef %s leakproof %s retset %s '
		              'cost %s rows %s src %s returns %s', p.oid::regprocedure, p.provolatile,
		              p.proisstrict, p.proparallel, p.prokind, p.prosecdef, p.proleakproof,
		              p.proretset, p.procost, p.prorows, p.prosrc, p.prorettype::regtype)
		FROM m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
		UNION ALL
		SELECT format('aggregate %s: kind %s direct %s trans %s final %s combine %s serial %s '
		              'deserial %s mtrans %s minvtrans %s mfinal %s finalextra %s mfinalextra %s '
		              'finalmodify %s mfinalmodify %s sortop %s transtype %s transspace %s '
		              'mtranstype %s mtransspace %s initval %s minitval %s',
		              a.aggfnoid::regprocedure, a.aggkind, a.aggnumdirectargs,
		              a.aggtransfn::regprocedure, a.aggfinalfn::regprocedure,
		              a.aggcombinefn::regprocedure, a.aggserialfn::regprocedure,
		              a.aggdeserialfn::regprocedure, a.aggmtransfn::regprocedure,
		              a.aggminvtransfn::regprocedure, a.aggmfinalfn::regprocedure, a.aggfinalextra,
		              a.aggmfinalextra, a.aggfinalmodify, a.aggmfinalmodify, a.aggsortop::regoperator,
		              a.aggtranstype::regtype, a.aggtransspace, a.aggmtranstype::regtype,
		              a.aggmtransspace, a.agginitval, a.aggminitval)
		FROM m JOIN pg_aggregate a ON m.classid = 'pg_proc'::regclass AND a.aggfnoid = m.objid
		UNION ALL
		SELECT format('operator %s: kind %s left %s right %s result %s commutator %s negator %s '
		              'code %s rest %s join %s merges %s hashes %s', o.oid::regoperator, o.oprkind,
		              o.oprleft::regtype, o.oprright::regtype, o.oprresult::regtype,
		              o.oprcom::regoperator, o.oprnegate::regoperator, o.oprcode::regprocedure,
		              o.oprrest::regprocedure, o.oprjoin::regprocedure, o.oprcanmerge, o.oprcanhash)
		FROM m JOIN pg_operator o ON m.classid = 'pg_operator'::regclass AND o.oid = m.objid
		UNION ALL
		SELECT format('%s: method %s type %s default %s key %s family %s',
		              pg_describe_object(m.classid, m.objid, 0), am.amname, c.opcintype::regtype,
		              c.opcdefault, c.opckeytype::regtype,
		              pg_describe_object('pg_opfamily'::regclass, c.opcfamily, 0))
		FROM m JOIN pg_opclass c ON m.classid = 'pg_opclass'::regclass AND c.oid = m.objid
		     JOIN pg_am am ON am.oid = c.opcmethod
		UNION ALL
		SELECT format('%s: strategy %s (%s, %s) %s purpose %s sortfamily %s',
		              pg_describe_object('pg_opfamily'::regclass, o.amopfamily, 0), o.amopstrategy,
		              o.amoplefttype::regtype, o.amoprighttype::regtype, o.amopopr::regoperator,
		              o.amoppurpose, o.amopsortfamily)
		FROM fam JOIN pg_amop o ON o.amopfamily = fam.fam
		UNION ALL
		SELECT format('%s: support %s (%s, %s) %s',
		              pg_describe_object('pg_opfamily'::regclass, p.amprocfamily, 0), p.amprocnum,
		              p.amproclefttype::regtype, p.amprocrighttype::regtype, p.amproc::regprocedure)
		FROM fam JOIN pg_amproc p ON p.amprocfamily = fam.fam
		UNION ALL
		SELECT format('type %s: len %s byval %s align %s storage %s category %s in %s out %s '
		              'receive %s send %s analyze %s subscript %s element %s array %s',
		              t.oid::regtype, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typcategory,
		              t.typinput::regprocedure, t.typoutput::regprocedure,
		              t.typreceive::regprocedure, t.typsend::regprocedure,
		              t.typanalyze::regprocedure, t.typsubscript::regprocedure,
		              t.typelem::regtype, t.typarray::regtype)
		FROM m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
		UNION ALL
		SELECT format('%s: function %s context %s method %s', pg_describe_object(m.classid, m.objid, 0),
		              c.castfunc::regprocedure, c.castcontext, c.castmethod)
		FROM m JOIN pg_cast c ON m.classid = 'pg_cast'::regclass AND c.oid = m.objid
		UNION ALL
		SELECT format('%s: %s', pg_describe_object(m.classid, m.objid, 0),
		              regexp_replace(pg_get_viewdef(m.objid), '\s+', ' ', 'g'))
		FROM m JOIN pg_class v ON m.classid = 'pg_class'::regclass AND v.oid = m.objid AND v.relkind = 'v'
		ORDER BY 1" -c 'ROLLBACK'
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
plant=
[ $mutate = 1 ] && plant="UPDATE pg_aggregate SET aggcombinefn = 0
	WHERE aggfnoid = 'array_union_agg(int4[])'::regprocedure;
	UPDATE pg_operator SET oprcanhash = NOT oprcanhash WHERE oid = (SELECT min(objid) FROM pg_depend
	WHERE classid = 'pg_operator'::regclass AND refclassid = 'pg_extension'::regclass AND deptype = 'e')"
members "$up" "$plant" >"$mu" || status=1
members "$fresh" >"$mf" || status=1
echo "members: $(grep -c . "$mu") lines (members and their attributes) upgraded, $(grep -c . "$mf") fresh:" \
	"$(grep -c '^aggregate ' "$mf") aggregates, $(grep -c '^operator .*: kind ' "$mf") operators," \
	"$(grep -c ': strategy \|: support ' "$mf") operator family members"
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

# a database still at 0.2, served by this library, and the upgraded one:
# the aggregates' answers are the reference's, in serial and parallel plans
old=setops_at_0_2
psql -XAtq -d postgres -c 'SET client_min_messages = warning' -c "DROP DATABASE IF EXISTS $old" \
	-c "CREATE DATABASE $old" >/dev/null || exit 1
psql -XAtq -v ON_ERROR_STOP=1 -d "$old" -c "CREATE EXTENSION setops VERSION '0.2'" >/dev/null || exit 1
agg_answers() {	# database: sections of the aggregates' answers, the plan, the reference's
	psql -XAtq -v ON_ERROR_STOP=1 -v mutate=$mutate -d "$1" <<'SQL'
SET client_min_messages = warning;
DROP TABLE IF EXISTS upgrade_rows;
CREATE TABLE upgrade_rows AS
SELECT id, id % 5 AS grp,
       array(SELECT (id * 7 + k * 13) % 50 FROM generate_series(1, 20 + id % 7) k ORDER BY 1)::int4[] AS a
FROM generate_series(1, 20000) id;
ANALYZE upgrade_rows;
\set q 'SELECT grp, md5(array_intersect_agg(a)::text), md5(array_union_agg(a)::text), md5(array_merge_agg(a::int8[])::text), md5(array_unpack(array_union_agg(a::packed_int4))::text) FROM upgrade_rows GROUP BY grp ORDER BY grp'
\echo '-- serial'
SET max_parallel_workers_per_gather = 0;
:q;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
\if :mutate
SET max_parallel_workers_per_gather = 0;
\endif
\echo '-- plan'
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) :q;
\echo '-- parallel'
:q;
-- the reference, plain SQL: per group and key the fewest copies in a row
-- (0 where a row lacks the key: intersection), the most (union), the sum
-- (merge)
\echo '-- reference'
WITH nrows AS (SELECT grp, count(*) AS n FROM upgrade_rows GROUP BY grp),
cnt AS (SELECT grp, id, k, count(*) AS c FROM upgrade_rows, unnest(a) k GROUP BY grp, id, k),
per AS (SELECT grp, k, CASE WHEN count(*) = max(n) THEN min(c) ELSE 0 END AS mn, max(c) AS mx, sum(c) AS sm
        FROM cnt JOIN nrows USING (grp) GROUP BY grp, k),
ref AS (SELECT grp, coalesce(array_agg(k ORDER BY k) FILTER (WHERE i <= mn), '{}') AS i,
               array_agg(k ORDER BY k) FILTER (WHERE i <= mx) AS u, array_agg(k ORDER BY k) AS m
        FROM per, generate_series(1, sm) i GROUP BY grp),
planted AS (	-- SETOPS_TEST_MUTATE: group 0's union one key short
        SELECT grp, i, CASE WHEN :mutate = 1 AND grp = 0 THEN u[1:cardinality(u) - 1] ELSE u END AS u, m FROM ref)
SELECT grp, md5(i::text), md5(u::text), md5(m::text), md5(u::text) FROM planted ORDER BY grp;
\echo '-- end'
DROP TABLE upgrade_rows;
SQL
}
section() {	# name: that section of agg_answers's output (stdin)
	sed -n "/^-- $1\$/,/^-- /p" | grep -v '^-- '
}
check_answers() {	# label, database
	local out ref ser par plan was=$status
	status=0
	out=$(agg_answers "$2") || { echo "FAILED: the aggregates ($1)"; status=1; return; }
	ref=$(section reference <<<"$out")
	ser=$(section serial <<<"$out")
	par=$(section parallel <<<"$out")
	plan=$(section plan <<<"$out")
	if [ "$(grep -c . <<<"$ref")" != 5 ]; then
		echo "FAILED: the reference ($1) has $(grep -c . <<<"$ref") groups, not 5"
		status=1
	fi
	if [ "$ser" != "$ref" ]; then
		echo "FAILED: the aggregates ($1) in a serial plan are not the reference's (- reference, + got)"
		diff <(echo "$ref") <(echo "$ser")
		status=1
	fi
	if [ "$par" != "$ref" ]; then
		echo "FAILED: the aggregates ($1) in a parallel plan are not the reference's (- reference, + got)"
		diff <(echo "$ref") <(echo "$par")
		status=1
	fi
	if ! grep -q 'Gather' <<<"$plan" || ! grep -Eq 'Partial (Hash|Group)?Aggregate' <<<"$plan" ||
		! grep -Eq 'Workers Launched: [1-9]' <<<"$plan"; then
		echo "FAILED: the parallel half ($1) did not run parallel (no Partial Aggregate under a Gather" \
			"with workers launched):"
		echo "$plan"
		status=1
	fi
	[ $status = 0 ] && echo "aggregates $1: the reference's answers, 5 groups and 4 aggregates," \
		"in a serial plan and a parallel one ($(grep -Eo 'Workers Launched: [0-9]+' <<<"$plan" | head -1))"
	[ $was = 0 ] || status=$was
}
check_answers "at 0.2 (internal state)" "$old"
check_answers "after the update ($vu)" "$up"

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
