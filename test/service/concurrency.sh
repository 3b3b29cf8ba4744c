#!/usr/bin/env bash
# test/service/concurrency.sh [clients] [transactions]
#
# Many sessions at once through the GPU service, every answer compared:
# pgbench runs `clients` (default 48, more than the service's slots)
# clients of `transactions` (default 40) each in setops.device = gpu, each
# transaction one operation and its check in one query.  It mixes:
#
#   - int4[] and int8[] rows with duplicates (and an empty row, the types'
#     limits, a sub-multiset, a disjoint row), stored in tables and passed
#     straight to setops: small rows inline, larger ones TOASTed (int4
#     uncompressed, int8 as it comes), those of 20k to 75k keys
#     together larger than setops.gpu_cache_size (CI: 2MB), so the device
#     cache both hits and evicts, and rows of 2.2 and 2.4MB, larger than that
#     cache, so the uncached path (and chunks through the slots) runs;
#   - the same arrays sent as literals (\gset, uncached), and one stored
#     argument beside a computed one;
#   - array_intersect_count, array_overlaps, array_contains and the four
#     builds, array_intersect_gpu, array_union_gpu, array_difference_gpu,
#     array_symdiff_gpu.
#
# The reference uses no setops function: before the load, plain SQL counts
# each row's copies of each key (unnest, GROUP BY) and builds, for every
# pair of rows used, the expected answers with key-rank multiset semantics
# (intersection min(ca, cb) copies of each key, union max, difference
# max(ca - cb, 0), symmetric difference |ca - cb|; count, overlaps,
# contains from the same counts).  A wrong answer casts its message to
# int4: an ERROR that aborts the pgbench client.
#
# Meanwhile, in psql sessions of their own, looping until pgbench is done:
#   - three sessions cancel their own statement mid-flight
#     (SET LOCAL statement_timeout = '1ms' on 2,000 large operations in
#     a row): each must
#     get "canceling statement due to statement timeout" (or "... user
#     request", see below), and the same session's next operation must be
#     right;
#   - two sessions send unsorted input (a stored row, a literal): each must
#     fail with its own "is not sorted ascending" error, and their next
#     operation must be right.
#
# Exits non-zero on any wrong answer or unexpected failure or success;
# the last line says "service_concurrency: N passed, M failed".  Needs a
# running cluster with setops preloaded (PGHOST etc. set; the GPU service,
# emulated without a GPU: setops.service_emulate) and pgbench
# ($PG_CONFIG --bindir).  scripts/test.sh runs it on its emulated-service
# cluster.  About 20 s on 2 cores.
set -euo pipefail
clients=${1:-48}
xacts=${2:-40}
# shellcheck source=test/service/lib.sh
source "$(dirname "$0")/lib.sh"
service_test_begin setops_service_conc setops-service-conc

[ "$(psql -XAtq -d postgres -c "SELECT current_setting('shared_preload_libraries') ~ '\msetops\M'")" = t ] ||
	{ echo "service_concurrency: setops is not preloaded (no GPU service)"; exit 1; }
service_test_database
psql -XAtq -c 'CREATE EXTENSION setops' >/dev/null
slots=$(psql -XAtq -c 'SHOW setops.service_slots')
if [ "$slots" -lt 0 ]; then
	# -1: one slot for every 16 MB of setops.service_memory, 8 to 64
	mem=$(psql -XAtq -c "SELECT setting::int8 * CASE unit WHEN 'MB' THEN 1 WHEN 'kB' THEN 1.0 / 1024 ELSE 1 END
		FROM pg_settings WHERE name = 'setops.service_memory'")
	mem=${mem%.*}
	slots=$(( mem / 16 < 8 ? 8 : (mem / 16 > 64 ? 64 : mem / 16) ))
fi
cache=$(psql -XAtq -c 'SHOW setops.gpu_cache_size')
echo "service_concurrency: $clients clients x $xacts transactions, service slots $slots, device cache $cache"
[ "$clients" -gt "$slots" ] || echo "   (note: no more clients than slots)"

t0=$SECONDS
# --- rows and the reference, in plain SQL (no setops function)
psql -Xq -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
CREATE SCHEMA conc;
SELECT setseed(0.25) \gset
-- int4: 1 empty; 2-4 small (50, 400: inline; 2000 keys); 5 the limits
-- with copies; 6 disjoint from the rest (negative); 7 a sub-multiset of
-- 10; 8-19 20k to 75k keys; 20, 21 560k keys (2.2MB); 22 unsorted
CREATE TABLE conc.t4 (id int PRIMARY KEY, a int4[] NOT NULL);
ALTER TABLE conc.t4 ALTER a SET STORAGE EXTERNAL;
INSERT INTO conc.t4 VALUES (1, '{}'),
    (5, '{-2147483648,-2147483648,-5,0,0,0,7,7,2147483647,2147483647}');
INSERT INTO conc.t4
SELECT id, ARRAY(SELECT floor(random() * n * 0.6)::int4 FROM generate_series(1, n) ORDER BY 1)
FROM (VALUES (2, 50), (3, 400), (4, 2000), (20, 560000), (21, 560000)) s(id, n);
INSERT INTO conc.t4
SELECT id, ARRAY(SELECT floor(random() * n * 0.6)::int4 FROM generate_series(1, n) ORDER BY 1)
FROM (SELECT id, 20000 + (id - 8) * 5000 AS n FROM generate_series(8, 19) id) s;
INSERT INTO conc.t4
SELECT 6, ARRAY(SELECT -900000 + floor(random() * 800000)::int4 FROM generate_series(1, 3000) ORDER BY 1);
INSERT INTO conc.t4
SELECT 7, ARRAY(SELECT v FROM unnest(a) WITH ORDINALITY u(v, o) WHERE o % 3 = 0 ORDER BY o)
FROM conc.t4 WHERE id = 10;
-- row 9 (25k keys) out of order at 10001
INSERT INTO conc.t4
SELECT 22, a[1:9999] || ARRAY[a[10001] + 1, a[10000]] || a[10002:] FROM conc.t4 WHERE id = 9;

-- int8: 1 empty; 2 small; 3 the limits with copies; 4 a sub-multiset of 6;
-- 5-10 10k to 35k keys; 11 300k keys (2.4MB); beyond int4's range
CREATE TABLE conc.t8 (id int PRIMARY KEY, a int8[] NOT NULL);
INSERT INTO conc.t8 VALUES (1, '{}'),
    (3, '{-9223372036854775808,-9223372036854775808,-1,0,0,9223372036854775807}');
INSERT INTO conc.t8
SELECT id, ARRAY(SELECT floor(random() * n * 0.6)::int8 * 3000000007 - 4000000000000000
                 FROM generate_series(1, n) ORDER BY 1)
FROM (VALUES (2, 300), (11, 300000)) s(id, n)
UNION ALL
SELECT id, ARRAY(SELECT floor(random() * n * 0.6)::int8 * 3000000007 - 4000000000000000
                 FROM generate_series(1, n) ORDER BY 1)
FROM (SELECT id, 10000 + (id - 5) * 5000 AS n FROM generate_series(5, 10) id) s;
INSERT INTO conc.t8
SELECT 4, ARRAY(SELECT v FROM unnest(a) WITH ORDINALITY u(v, o) WHERE o % 2 = 1 ORDER BY o)
FROM conc.t8 WHERE id = 6;

-- pairs: literal-sized ones first (both rows up to 40k keys)
CREATE TABLE conc.pairs4 (pid int PRIMARY KEY, i int, j int, lit bool);
INSERT INTO conc.pairs4
SELECT row_number() OVER (ORDER BY NOT lit, r), i, j, lit
FROM (SELECT i, j, random() AS r,
             (SELECT cardinality(a) FROM conc.t4 WHERE id = i) <= 40000 AND
             (SELECT cardinality(a) FROM conc.t4 WHERE id = j) <= 40000 AS lit
      FROM (SELECT i, j FROM generate_series(1, 7) i, generate_series(1, 7) j
            UNION SELECT 8 + (random() * 11)::int, 8 + (random() * 11)::int FROM generate_series(1, 30)
            UNION SELECT 1 + (random() * 6)::int, 8 + (random() * 11)::int FROM generate_series(1, 8)
            UNION SELECT 8 + (random() * 11)::int, 1 + (random() * 6)::int FROM generate_series(1, 8)
            UNION VALUES (10, 7), (7, 10), (12, 12), (20, 21), (20, 20), (20, 9), (4, 21)) p) q;
CREATE TABLE conc.pairs8 (pid int PRIMARY KEY, i int, j int, lit bool);
INSERT INTO conc.pairs8
SELECT row_number() OVER (ORDER BY NOT lit, r), i, j, lit
FROM (SELECT i, j, random() AS r, i <> 11 AND j <> 11 AS lit
      FROM (SELECT i, j FROM generate_series(1, 4) i, generate_series(1, 4) j
            UNION SELECT 5 + (random() * 5)::int, 5 + (random() * 5)::int FROM generate_series(1, 12)
            UNION SELECT 1 + (random() * 3)::int, 5 + (random() * 5)::int FROM generate_series(1, 4)
            UNION VALUES (6, 4), (4, 6), (11, 11), (11, 7), (2, 11)) p) q;

-- the expected answers from each key's copies in a (ca) and in b (cb),
-- for int4[] and int8[] alike (an empty build: a[1:0], '{}' of a's type)
CREATE FUNCTION conc.ref(a anyarray, b anyarray, OUT cnt int8, OUT ovl bool, OUT cont bool,
                         OUT r_int anyarray, OUT r_uni anyarray, OUT r_dif anyarray, OUT r_sym anyarray)
LANGUAGE sql STABLE AS $$
WITH m AS (SELECT coalesce(x.k, y.k) AS k, coalesce(x.c, 0) AS ca, coalesce(y.c, 0) AS cb
           FROM (SELECT k, count(*) AS c FROM unnest(a) k GROUP BY k) x
                FULL JOIN (SELECT k, count(*) AS c FROM unnest(b) k GROUP BY k) y
                ON x.k = y.k)
SELECT coalesce((SELECT sum(least(ca, cb)) FROM m), 0)::int8,
       coalesce((SELECT bool_or(ca > 0 AND cb > 0) FROM m), false),
       coalesce((SELECT bool_and(ca >= cb) FROM m), true),
       coalesce((SELECT array_agg(k ORDER BY k) FROM m, generate_series(1, least(ca, cb))), a[1:0]),
       coalesce((SELECT array_agg(k ORDER BY k) FROM m, generate_series(1, greatest(ca, cb))), a[1:0]),
       coalesce((SELECT array_agg(k ORDER BY k) FROM m, generate_series(1, greatest(ca - cb, 0))), a[1:0]),
       coalesce((SELECT array_agg(k ORDER BY k) FROM m, generate_series(1, abs(ca - cb))), a[1:0])
$$;
CREATE TABLE conc.exp4 (pid int PRIMARY KEY, cnt int8, ovl bool, cont bool,
                        r_int int4[], r_uni int4[], r_dif int4[], r_sym int4[]);
CREATE TABLE conc.exp8 (pid int PRIMARY KEY, cnt int8, ovl bool, cont bool,
                        r_int int8[], r_uni int8[], r_dif int8[], r_sym int8[]);
SQL
# the expected answers, in three sessions
psql -XAtq -v ON_ERROR_STOP=1 -c 'INSERT INTO conc.exp4 SELECT p.pid, r.* FROM conc.pairs4 p JOIN conc.t4 x ON x.id = p.i JOIN conc.t4 y ON y.id = p.j,
	conc.ref(x.a, y.a) r WHERE p.pid % 2 = 0' &
p1=$!
psql -XAtq -v ON_ERROR_STOP=1 -c 'INSERT INTO conc.exp4 SELECT p.pid, r.* FROM conc.pairs4 p JOIN conc.t4 x ON x.id = p.i JOIN conc.t4 y ON y.id = p.j,
	conc.ref(x.a, y.a) r WHERE p.pid % 2 = 1' &
p2=$!
psql -XAtq -v ON_ERROR_STOP=1 -c 'INSERT INTO conc.exp8 SELECT p.pid, r.* FROM conc.pairs8 p JOIN conc.t8 x ON x.id = p.i JOIN conc.t8 y ON y.id = p.j,
	conc.ref(x.a, y.a) r' &
p3=$!
if ! { wait $p1 && wait $p2 && wait $p3; }; then
	echo "service_concurrency: computing the reference failed"
	exit 1
fi
read -r n4 l4 n8 l8 e4 e8 <<<"$(psql -XAtq -F ' ' -c "SELECT (SELECT count(*) FROM conc.pairs4), (SELECT count(*) FROM conc.pairs4 WHERE lit),
	(SELECT count(*) FROM conc.pairs8), (SELECT count(*) FROM conc.pairs8 WHERE lit),
	(SELECT count(*) FROM conc.exp4), (SELECT count(*) FROM conc.exp8)")"
if [ "$n4" != "$e4" ] || [ "$n8" != "$e8" ]; then
	echo "service_concurrency: $e4/$n4 and $e8/$n8 expected answers"
	exit 1
fi
echo "   data and reference: $n4 int4 pairs ($l4 sent as literals too), $n8 int8 pairs ($l8), $((SECONDS - t0)) s"
# an int4 pair of two 20k-75k rows, for the checks after the errors
good=$(psql -XAtq -c 'SELECT min(pid) FROM conc.pairs4 WHERE i BETWEEN 8 AND 19 AND j BETWEEN 8 AND 19')

# --- the pgbench scripts: one operation and its check a transaction
# check TYPE SOURCE-SQL MESSAGE: the query that runs operation :op on s.a,
# s.b and compares with the expected row e
check_sql() {
	cat <<EOF
SELECT CASE WHEN (SELECT CASE :op WHEN 0 THEN array_intersect_count(s.a, s.b) = e.cnt
                                  WHEN 1 THEN array_overlaps(s.a, s.b) = e.ovl
                                  WHEN 2 THEN array_contains(s.a, s.b) = e.cont
                                  WHEN 3 THEN array_intersect_gpu(s.a, s.b) = e.r_int
                                  WHEN 4 THEN array_union_gpu(s.a, s.b) = e.r_uni
                                  WHEN 5 THEN array_difference_gpu(s.a, s.b) = e.r_dif
                                  ELSE array_symdiff_gpu(s.a, s.b) = e.r_sym END
                  FROM $2, conc.exp$1 e WHERE e.pid = :k)
            THEN 1
            ELSE ('service_concurrency: wrong answer, $3, pair ' || :k || ', op ' || :op
                  || ' (backend ' || pg_backend_pid() || ')')::int END;
EOF
}
for t in 4 8; do
	if [ $t = 4 ]; then n=$n4 l=$l4; else n=$n8 l=$l8; fi
	# stored: both arguments straight from the table (device cache), or
	# the second one computed (in memory)
	{
		echo "\\set k random(1, $n)"
		echo "\\set op random(0, 6)"
		echo "\\set form random(0, 1)"
		check_sql $t "(SELECT x.a, CASE :form WHEN 0 THEN y.a ELSE y.a || '{}'::int${t}[] END AS b
                        FROM conc.pairs$t p, conc.t$t x, conc.t$t y
                        WHERE p.pid = :k AND x.id = p.i AND y.id = p.j) s" "int$t stored (form ' || :form || ')"
	} >"$work/stored$t.sql"
	# literals: the arrays read into pgbench variables, sent back as text
	{
		echo "\\set k random(1, $l)"
		echo "\\set op random(0, 6)"
		echo "SELECT quote_literal(x.a::text) AS va, quote_literal(y.a::text) AS vb FROM conc.pairs$t p, conc.t$t x, conc.t$t y WHERE p.pid = :k AND x.id = p.i AND y.id = p.j \\gset"
		check_sql $t "(SELECT CAST(:va AS int${t}[]) AS a, CAST(:vb AS int${t}[]) AS b) s" "int$t literals"
	} >"$work/literal$t.sql"
done

# --- sessions that fail on purpose, in loops until pgbench is done
iterations=4
{
	echo "SET setops.device = gpu;"
	for ((i = 0; i < iterations; i++)); do
		case $((i % 4)) in
			0) op="array_union_gpu(x.a, y.a) FROM conc.t4 x, conc.t4 y WHERE x.id = 20 AND y.id = 21" ;;
			1) op="array_symdiff_gpu(x.a, y.a) FROM conc.t4 x, conc.t4 y WHERE x.id = 21 AND y.id = 20" ;;
			2) op="array_intersect_gpu(array_union_gpu(x.a, y.a), y.a) FROM conc.t4 x, conc.t4 y WHERE x.id = 20 AND y.id = 21" ;;
			3) op="array_union_gpu(x.a, x.a) FROM conc.t8 x WHERE x.id = 11" ;;
		esac
		# the operation again and again (OFFSET 0 keeps the subquery apart,
		# so each row of g runs it): one operation of these, its rows
		# cached, sometimes ended within the 1 ms on a GPU (2x H200), and
		# then nothing was cancelled; 2,000 of them never all do
		echo "BEGIN;"
		echo "SET LOCAL statement_timeout = '1ms';"
		echo "SELECT 'cancel did not happen', count(s.v) FROM generate_series(1, 2000) g, LATERAL (SELECT $op AND g > 0 OFFSET 0) s (v);"
		echo "ROLLBACK;"
		echo "SELECT CASE WHEN array_union_gpu(x.a, y.a) = e.r_uni THEN 'ok' ELSE 'WRONG' END FROM conc.pairs4 p JOIN conc.exp4 e USING (pid), conc.t4 x, conc.t4 y WHERE p.pid = $good AND x.id = p.i AND y.id = p.j;"
	done
} >"$work/cancel.sql"
{
	echo "SET setops.device = gpu;"
	for ((i = 0; i < iterations; i++)); do
		case $((i % 2)) in
			0) op="array_union_gpu(x.a, y.a) IS NOT NULL FROM conc.t4 x, conc.t4 y WHERE x.id = 22 AND y.id = 9" ;;
			1) op="array_intersect_count('{5,3,9}'::int4[], x.a) FROM conc.t4 x WHERE x.id = 9" ;;
		esac
		echo "SELECT 'bad input accepted', $op;"
		echo "SELECT CASE WHEN array_intersect_gpu(x.a, y.a) = e.r_int THEN 'ok' ELSE 'WRONG' END FROM conc.pairs4 p JOIN conc.exp4 e USING (pid), conc.t4 x, conc.t4 y WHERE p.pid = $good AND x.id = p.i AND y.id = p.j;"
	done
} >"$work/bad.sql"

# run FILE again and again, a session each time, until pgbench is done (at
# least twice); NAME.N.out and NAME.N.err for each session
loop_sessions() {	# name file
	local n=0
	while :; do
		psql -XAtq -f "$2" >"$work/$1.$n.out" 2>"$work/$1.$n.err" || true
		n=$((n + 1))
		if [ -e "$work/pgbench.done" ] && [ $n -ge 2 ]; then break; fi
	done
}
loops=()
for s in cancel1 cancel2 cancel3; do
	loop_sessions "$s" "$work/cancel.sql" &
	loops+=($!)
done
for s in bad1 bad2; do
	loop_sessions "$s" "$work/bad.sql" &
	loops+=($!)
done

cache_stats() {
	psql -XAtq -F ' ' -c 'SELECT sum(capacity_bytes), sum(hits), sum(misses), sum(evictions) FROM setops_cache_stats()' 2>/dev/null || true
}
read -r _ hits0 misses0 evictions0 <<<"$(cache_stats)"
# the service's own counters (setops_service): requests answered, launches,
# and its main thread's time handing requests on
service_counters() {
	psql -XAtq -F ' ' -c 'SELECT sum(requests), sum(launches), sum(batched), max(dispatch_ms) FROM setops_service' 2>/dev/null || true
}
read -r req0 launch0 batched0 dispatch0 <<<"$(service_counters)"

# --- the load
rc=0
PGOPTIONS="-c setops.device=gpu" pgbench -n -c "$clients" -j "$(( $(nproc) < clients ? $(nproc) : clients ))" \
	-t "$xacts" -f "$work/stored4.sql@4" -f "$work/stored8.sql@2" -f "$work/literal4.sql@2" \
	-f "$work/literal8.sql@1" >"$work/pgbench.log" 2>&1 || rc=$?
touch "$work/pgbench.done"
for p in "${loops[@]}"; do wait "$p"; done
echo "   load: $((SECONDS - t0)) s in all"

# --- what pgbench says
done_x=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$work/pgbench.log")
failed_x=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$work/pgbench.log")
aborted=$(grep -cE 'client [0-9]+ (script [0-9]+ )?aborted' "$work/pgbench.log" || true)
grep -E '^(number of|latency average|tps)' "$work/pgbench.log" | sed 's/^/   pgbench: /'
passed=$((passed + ${done_x:-0}))
[ "$rc" -eq 0 ] || fail "pgbench exited with $rc"
[ "${failed_x:-0}" -eq 0 ] || fail "pgbench: $failed_x failed transactions"
[ "$aborted" -eq 0 ] || fail "pgbench: $aborted clients aborted"
[ "${done_x:-0}" -eq $((clients * xacts)) ] || fail "pgbench: ${done_x:-0} of $((clients * xacts)) transactions done"
if [ "$aborted" -gt 0 ] || [ "$rc" -ne 0 ]; then
	grep -E 'error|ERROR|FATAL' "$work/pgbench.log" | head -n 10 | sed 's/^/      /'
fi

# --- the sessions that failed on purpose: the expected ERROR each time,
# and right answers after it
check_sessions() {	# name pattern
	local f base errs good_errs oks bad_out sessions=0
	for f in "$work/$1".*.out; do
		base=${f%.out}
		sessions=$((sessions + 1))
		errs=$(grep -c 'ERROR:' "$base.err" || true)
		good_errs=$(grep 'ERROR:' "$base.err" | grep -cE "$2" || true)
		oks=$(grep -cx ok "$f" || true)
		bad_out=$(grep -vcx ok "$f" || true)
		if [ "$errs" -eq $iterations ] && [ "$good_errs" -eq $iterations ] && [ "$oks" -eq $iterations ] &&
			[ "$bad_out" -eq 0 ]; then
			passed=$((passed + 2 * iterations))
		else
			fail "$1 session $sessions: $good_errs of $iterations expected errors ($errs errors), $oks of $iterations right answers after them, $bad_out other lines"
			{ head -n 5 "$f"; grep -v -e DETAIL -e HINT "$base.err" | head -n 5; } | sed 's/^/      /'
		fi
	done
	echo "   $1: $sessions sessions of $iterations attempts"
}
# (a timeout that fires while the statement is parsed reads "user request":
# PostgreSQL 15's exec_simple_query re-arms the timer, clearing its
# indicator, after the parse; nothing else cancels these sessions)
check_sessions cancel1 'canceling statement due to (statement timeout|user request)'
check_sessions cancel2 'canceling statement due to (statement timeout|user request)'
check_sessions cancel3 'canceling statement due to (statement timeout|user request)'
check_sessions bad1 'is not sorted ascending'
check_sessions bad2 'is not sorted ascending'

# --- the service afterwards: still answering, right; the device cache hit
# and missed
after=$(PGOPTIONS="-c setops.device=gpu" psql -XAtq -c "SELECT bool_and(array_symdiff_gpu(x.a, y.a) = e.r_sym AND
	array_intersect_count(x.a, y.a) = e.cnt) FROM conc.pairs4 p JOIN conc.exp4 e USING (pid), conc.t4 x, conc.t4 y
	WHERE x.id = p.i AND y.id = p.j" 2>&1) || true
if [ "$after" = t ]; then passed=$((passed + 1)); else fail "after the load, every int4 pair again: $after"; fi
read -r cap hits misses evictions <<<"$(cache_stats)"
if [ -n "${cap:-}" ] && [ "$cap" -gt 0 ]; then
	hits=$((hits - ${hits0:-0})) misses=$((misses - ${misses0:-0})) evictions=$((evictions - ${evictions0:-0}))
	echo "   device cache during the run: $hits hits, $misses misses, $evictions evictions"
	if [ "$hits" -gt 0 ] && [ "$misses" -gt 0 ]; then
		passed=$((passed + 1))
	else
		fail "the device cache did not both hit and miss"
	fi
else
	echo "   device cache: off"
fi

# every transaction's operation was answered by the service (a stored row
# missed by the cache is asked again, a large one goes in chunks: at least
# one request each); launches and shared launches within the requests; the
# main thread's time grew
read -r req1 launch1 batched1 dispatch1 <<<"$(service_counters)"
if [ -n "${req1:-}" ]; then
	dreq=$((req1 - req0)) dlaunch=$((launch1 - launch0)) dbatched=$((batched1 - batched0))
	echo "   service during the run: $dreq requests, $dlaunch launches, $dbatched in shared launches, main thread $(awk -v a="$dispatch0" -v b="$dispatch1" 'BEGIN { printf "%.0f", b - a }') ms"
	if [ "$dreq" -ge "${done_x:-0}" ] && [ "$dlaunch" -ge 1 ] && [ "$dlaunch" -le "$dreq" ] &&
		[ "$dbatched" -le "$dreq" ] && awk -v a="$dispatch0" -v b="$dispatch1" 'BEGIN { exit !(b > a) }'; then
		passed=$((passed + 1))
	else
		fail "the service's counters: $dreq requests for ${done_x:-0} transactions, $dlaunch launches, $dbatched shared, dispatch_ms $dispatch0 -> $dispatch1"
	fi
else
	fail "setops_service has no rows"
fi

echo "service_concurrency: $passed passed, $failed failed"
[ $failed -eq 0 ]
