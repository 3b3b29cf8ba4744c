#!/usr/bin/env bash
# test/bench/auto_reasons.sh [seconds]
#
# Where auto sends calls, and why, against what cpu and gpu mode give:
# pgbench on stored int4[] rows picked at random (EXTERNAL storage, so the
# device cache answers from their identities), array_intersect_count and
# array_overlaps of 20k-key rows at 1, 4 and 16 clients in cpu, gpu and
# auto mode, then 1M-key counts at 1 and 4 clients, gpu and auto in turn
# twice (the host's spread between two runs of one routing).  Each
# transaction logs its call's setops_last_timing() (device, reason,
# total_ms), so the summary shows, per point, the calls of each reason and
# their median time; each point line gives tps, the service process's CPU
# per request (its threads, polling included: /proc) and the service's own
# measure (setops_service_stats().request_cpu_ms, its polling for work left
# out).  In auto mode one transaction in 200 also logs what its backend
# learnt (setops_auto_estimates(), the call's kind), summed up last: the
# averages each engine's calls had, per point.
#
# Needs a running cluster with setops preloaded (PGHOST etc. set), as
# test/gpu/device_run.sh autoreasons starts it; AUTO_REASONS_CLIENTS
# (default "1 4 16") and AUTO_REASONS_SIZES (default "20000 1000000").
set -euo pipefail
seconds=${1:-3}
clients=${AUTO_REASONS_CLIENTS:-1 4 16}
sizes=${AUTO_REASONS_SIZES:-20000 1000000}
q() { psql -XAtq -v ON_ERROR_STOP=1 "$@"; }
# shellcheck source=test/bench/service_ticks.sh
. "$(dirname "$0")/service_ticks.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rows_of() { echo $(($1 >= 1000000 ? 16 : 32)); }	# rows of n keys

q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS setops" \
  -c "DROP SCHEMA IF EXISTS setops_auto_reasons CASCADE" -c "CREATE SCHEMA setops_auto_reasons" \
  -c "CREATE UNLOGGED TABLE setops_auto_reasons.calls (point text, mode text, reason text, total_ms float8, device text)" \
  -c "CREATE UNLOGGED TABLE setops_auto_reasons.estimates (point text, device text, calls int8, ms float8, cpu_ms float8,
                                                       service_cpu_ms float8)"
# without a GPU service gpu mode cannot run: cpu and auto only
modes="cpu gpu auto"
[ "$(q -c 'SET client_min_messages = warning' -c 'SELECT count(*) FROM setops_devices()')" -gt 0 ] || { modes="cpu auto"; echo "(no GPU service: cpu and auto mode only)"; }
for n in $sizes; do
	rows=$(rows_of "$n")
	q -c "CREATE TABLE setops_auto_reasons.t$n (id int PRIMARY KEY, a int4[] NOT NULL)" \
	  -c "ALTER TABLE setops_auto_reasons.t$n ALTER a SET STORAGE EXTERNAL"
	# row r: key g is (g * s + [0, s)) / 4, s = 5, 6 or 7: sorted, some keys twice
	seq 1 $rows | xargs -P 8 -I{} psql -XAtq -v ON_ERROR_STOP=1 -c "INSERT INTO setops_auto_reasons.t$n
		SELECT {}, ARRAY(SELECT ((g * p.s + floor(random() * p.s)::int8) / 4)::int4
		                 FROM generate_series(1::int8, $n) g) FROM (SELECT 5 + {} % 3 AS s) p"
	for m in ${modes#cpu }; do
		q -c "SET setops.device = $m" -c "SELECT sum(array_intersect_count(x.a, y.a))
			FROM setops_auto_reasons.t$n x JOIN setops_auto_reasons.t$n y ON y.id = x.id % $rows + 1" >/dev/null
	done
done

point() {	# n f clients mode
	local n=$1 f=$2 c=$3 m=$4 rows s0 s1 r0 r1 out tps own kind=count
	rows=$(rows_of "$n")
	[ "$f" = array_overlaps ] && kind=overlaps
	cat >"$work/p.sql" <<Q
\\set i random(1, $rows)
\\set j random(1, $rows)
SELECT $f(x.a, y.a) FROM setops_auto_reasons.t$n x, setops_auto_reasons.t$n y WHERE x.id = :i AND y.id = :j;
INSERT INTO setops_auto_reasons.calls SELECT '$f $n c=$c', '$m', reason, total_ms, device FROM setops_last_timing();
Q
	[ "$m" = auto ] && cat >>"$work/p.sql" <<Q
\\set e random(1, 200)
\\if :e = 1
INSERT INTO setops_auto_reasons.estimates
SELECT '$f $n c=$c', e.device, e.calls, e.ms, e.cpu_ms, (SELECT max(request_cpu_ms) FROM setops_service)
FROM setops_auto_estimates() e WHERE e.kind = '$kind' AND e.stored;
\\endif
Q
	s0=$(service_ticks)
	r0=$(q -c "SELECT coalesce(sum(requests), 0) FROM setops_service")
	out=$(PGOPTIONS="${PGOPTIONS:-} -c setops.device=$m" pgbench -n -T "$seconds" -c "$c" -j "$c" \
		-f "$work/p.sql" 2>&1) || { printf '%s\n' "$out" | tail -n 20; echo "auto_reasons: pgbench failed ($f $n, $c clients, $m)"; return 1; }
	tps=$(printf '%s\n' "$out" | awk '/^tps/ {printf "%.0f", $3}')
	s1=$(service_ticks)
	r1=$(q -c "SELECT coalesce(sum(requests), 0) FROM setops_service")
	own=-
	[ "$r1" -gt "$r0" ] && own=$(q -c "SELECT coalesce(round((max(request_cpu_ms) * 1000)::numeric, 1)::text, '-') FROM setops_service")
	printf '%-30s %-4s tps %8s  service cpu/request %8s us (its own measure %s us)\n' "$f $n c=$c" "$m" "$tps" \
		"$(awk -v s0="$s0" -v s1="$s1" -v r=$((r1 - r0)) -v hz="$(getconf CLK_TCK)" \
			'BEGIN { if (r > 0 && s0 != "-" && s1 != "-") printf "%.1f", (s1 - s0) * 1e6 / hz / r; else print "-" }')" "$own"
}

echo "== tps per point (pgbench -T $seconds, each transaction one call and its log row)"
for n in $sizes; do
	if [ "$n" -lt 1000000 ]; then
		for f in array_intersect_count array_overlaps; do
			for c in $clients; do for m in $modes; do point "$n" $f "$c" $m; done; done
		done
	else
		for k in 1 2; do for c in 1 4; do for m in ${modes#cpu }; do point "$n" array_intersect_count "$c" $m; done; done; done
	fi
done
echo "== auto: calls by device and reason, median total_ms (setops_last_timing)"
psql -X -c "SELECT point, device, reason, count(*) AS calls,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY total_ms)::numeric, 4) AS p50_total_ms
FROM setops_auto_reasons.calls WHERE mode = 'auto' GROUP BY 1, 2, 3 ORDER BY 1, 2, 4 DESC"
echo "== auto: what its backends had learnt, medians of the samples (setops_auto_estimates(), stored rows)"
psql -X -c "SELECT point, device, count(*) AS samples, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY calls)) AS calls,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 4) AS ms,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu_ms)::numeric, 4) AS cpu_ms,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY service_cpu_ms)::numeric, 4) AS service_cpu_ms
FROM setops_auto_reasons.estimates GROUP BY 1, 2 ORDER BY 1, 2"
echo "== cpu and gpu mode: median total_ms"
psql -X -c "SELECT point, mode, count(*) AS calls,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY total_ms)::numeric, 4) AS p50_total_ms
FROM setops_auto_reasons.calls WHERE mode <> 'auto' GROUP BY 1, 2 ORDER BY 1, 2"
q -c "SET client_min_messages = warning" -c "DROP SCHEMA setops_auto_reasons CASCADE"
