#!/usr/bin/env bash
# test/bench/service_abandon.sh [rows]: how long the GPU service stays busy
# with a reduction whose backend gave up.
#
# array_union_agg over rows x 10,000 int4 (default 10,000 rows) in gpu
# mode is cancelled by statement_timeout at several points; the same
# session then asks the service for a tiny union and times it.  The service
# serves one request at a time, so that time is how long the abandoned
# work went on.  Run against a server that preloads setops (with
# setops.service_emulate = on where there is no GPU); PGHOST etc. name it.
set -euo pipefail
rows=${1:-10000}
psql -Xq -v ON_ERROR_STOP=1 -v rows="$rows" <<'SQL'
CREATE EXTENSION IF NOT EXISTS setops;
CREATE SCHEMA IF NOT EXISTS setops_abandon;
DROP TABLE IF EXISTS setops_abandon.a;
CREATE TABLE setops_abandon.a AS
SELECT r, (SELECT array_agg(j * 100000 + (random() * 99999)::int + 0 * r)
           FROM generate_series(0, 9999) j) AS a
FROM generate_series(1, :rows) r;
SQL
full=$(psql -XAtq -c "SET setops.device = gpu" -c "SET max_parallel_workers_per_gather = 0" \
	-c '\timing on' -c "SELECT cardinality(array_union_agg(a)) FROM setops_abandon.a" |
	sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
echo "whole aggregate: $full ms"
for frac in 30 50 70 90; do
	t=$(awk -v f="$full" -v p="$frac" 'BEGIN { printf "%d", f * p / 100 }')
	after=$(psql -XAtq 2>/dev/null <<SQL | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1
SET setops.device = gpu;
SET max_parallel_workers_per_gather = 0;
SET statement_timeout = '${t}ms';
\timing on
SELECT cardinality(array_union_agg(a)) FROM setops_abandon.a;
RESET statement_timeout;
SELECT array_union_gpu('{1,2,3}'::int4[], '{2,5}'::int4[]);
SQL
)
	echo "cancelled at ${t} ms (${frac}%): the next request answered in ${after} ms"
done
psql -Xq -c "DROP SCHEMA setops_abandon CASCADE"
