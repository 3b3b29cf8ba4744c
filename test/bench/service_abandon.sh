#!/usr/bin/env bash
# test/bench/service_abandon.sh [rows] [keys]: how long the GPU service
# stays busy with a reduction whose backend gave up.
#
# array_union_agg over rows x keys int4 (default 10,000 x 10,000) in gpu
# mode is cancelled by statement_timeout at several points; the same
# session then asks the service for a tiny union, checks its answer and
# times it.  The service serves one request at a time, so that time is how
# long the abandoned work went on.  Run against a server that preloads
# setops (with setops.service_emulate = on where there is no GPU); PGHOST
# etc. name it.  SETOPS_BENCH_DEVICE (default gpu): the setops.device of
# the run (test/bench/smoke.sh sets cpu, auto or gpu).
set -euo pipefail
rows=${1:-10000}
keys=${2:-10000}
dev=${SETOPS_BENCH_DEVICE:-gpu}
psql -Xq -v ON_ERROR_STOP=1 -v rows="$rows" -v keys="$keys" <<'SQL'
CREATE EXTENSION IF NOT EXISTS setops;
CREATE SCHEMA IF NOT EXISTS setops_abandon;
DROP TABLE IF EXISTS setops_abandon.a;
CREATE TABLE setops_abandon.a AS
SELECT r, (SELECT array_agg(j * 100000 + (random() * 99999)::int + 0 * r)
           FROM generate_series(0, :keys - 1) j) AS a
FROM generate_series(1, :rows) r;
SQL
full=$(psql -XAtq -c "SET setops.device = $dev" -c "SET max_parallel_workers_per_gather = 0" \
	-c '\timing on' -c "SELECT cardinality(array_union_agg(a)) FROM setops_abandon.a" |
	sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
echo "whole aggregate: $full ms"
for frac in 30 50 70 90; do
	# at least 1 ms: a statement_timeout of 0 is none
	t=$(awk -v f="$full" -v p="$frac" 'BEGIN { t = int(f * p / 100); printf "%d", t < 1 ? 1 : t }')
	out=$(psql -XAtq 2>/dev/null <<SQL
SET setops.device = $dev;
SET max_parallel_workers_per_gather = 0;
SET statement_timeout = '${t}ms';
\\timing on
SELECT cardinality(array_union_agg(a)) FROM setops_abandon.a;
RESET statement_timeout;
SELECT array_union_gpu('{1,2,3}'::int4[], '{2,5}'::int4[]);
SQL
)
	after=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$out" | tail -1)
	# the request after the cancel must still answer, and right
	grep -qx '{1,2,3,5}' <<<"$out" || { echo "FAILED: after a cancel at ${t} ms the union answered:"; echo "$out"; exit 1; }
	echo "cancelled at ${t} ms (${frac}%): the next request answered in ${after} ms"
done
psql -Xq -c "DROP SCHEMA setops_abandon CASCADE"
