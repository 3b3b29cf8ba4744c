#!/usr/bin/env bash
# test/bench/shard_bench.sh [runs] [rows] [keys] [range]: array_union_agg over a
# sharded table, one server against a coordinator and two shards
# (test/shard/cluster.sh; postgres_fdw partitions), side by side in one
# run, medians of runs (default 5), every answer compared.
#
# rows (default 10,000) arrays of keys (default 1,000) random int4 in
# [0, range) (default 2,000,000: IDs of a service's users, so that rows
# share keys and a union is smaller than its rows), sorted: 10M keys,
# stored in one local table on the coordinator (the one server) and as a
# table partitioned over the shards by id, whose foreign servers run
# asynchronously (async_capable: both shards work at once).  Forms, for each setops.device mode in SHARD_BENCH_MODES (default
# "cpu gpu"; every server in that mode):
#   one server  array_union_agg(members) of the local table;
#   two-level   array_union_agg of each shard's array_union_agg (grouped
#               by the partition key, partitionwise: each shard aggregates
#               its rows, the coordinator unions two arrays);
#   global      array_union_agg(members) of the partitioned table: every
#               row travels to the coordinator, which aggregates them.
# Bytes to the coordinator: what postgres_fdw fetches, in its text format:
# the rows' members as text (global), the shards' unions as text
# (two-level).  Needs PL/Proxy and postgres_fdw as run.sh does;
# SETOPS_SHARD_SERVER_OPTS as for run.sh (the GPU service for gpu mode).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source scripts/lib.sh
source test/shard/cluster.sh
unset PGOPTIONS
runs=${1:-5}
rows=${2:-10000}
keys=${3:-1000}
range=${4:-2000000}
modes=${SHARD_BENCH_MODES:-cpu gpu}

SETOPS_SHARD_SHARED_BUFFERS=${SETOPS_SHARD_SHARED_BUFFERS:-1GB} shard_cluster_up

say "$rows rows x $keys keys in [0, $range) on the coordinator, and partitioned over the shards"
for s in 0 1; do
	d=SHARD$s
	p=${d}_PORT
	on "${!d}" "${!p}" \
		-c "CREATE TABLE bench_p (shard int NOT NULL CHECK (shard = $s), id int PRIMARY KEY, members int4[])" ||
		die "shard $s setup failed"
done
on "$COORD" $COORD_PORT -v rows="$rows" -v keys="$keys" -v range="$range" <<'SQL' || die "coordinator setup failed"
ALTER SERVER shard0 OPTIONS (ADD async_capable 'true');
ALTER SERVER shard1 OPTIONS (ADD async_capable 'true');
CREATE TABLE bench (shard int NOT NULL, id int NOT NULL, members int4[]) PARTITION BY LIST (shard);
CREATE FOREIGN TABLE bench_p0 PARTITION OF bench FOR VALUES IN (0)
	SERVER shard0 OPTIONS (table_name 'bench_p', batch_size '100', fetch_size '1000');
CREATE FOREIGN TABLE bench_p1 PARTITION OF bench FOR VALUES IN (1)
	SERVER shard1 OPTIONS (table_name 'bench_p', batch_size '100', fetch_size '1000');
CREATE TABLE bench_local (LIKE bench);
SELECT setseed(0.5);
INSERT INTO bench_local
SELECT id & 1, id, array(SELECT floor(random() * :range)::int4 FROM generate_series(1, :keys)
                         WHERE id IS NOT NULL ORDER BY 1)	-- (correlated: a new array per row)
FROM generate_series(1, :rows) id;
ANALYZE bench_local;
INSERT INTO bench SELECT * FROM bench_local;
SQL
for s in 0 1; do d=SHARD$s; p=${d}_PORT; on "${!d}" "${!p}" -c "ANALYZE bench_p"; done

say "bytes to the coordinator (postgres_fdw's text format)"
on "$COORD" $COORD_PORT -At -F ' ' <<'SQL'
SELECT 'keys', sum(cardinality(members)), 'rows', count(*) FROM bench_local;
SELECT 'global: every row''s members as text,', sum(octet_length(members::text)), 'bytes' FROM bench_local;
SELECT 'two-level: each shard''s union as text,', sum(octet_length(u::text)), 'bytes'
FROM (SELECT array_union_agg(members) AS u FROM bench_local GROUP BY shard) s;
SQL

# each form: runs timed in one session, the answer's size and md5
on "$COORD" $COORD_PORT -c "CREATE TABLE bench_results (mode text, form text, ms float8, answer text)"
for mode in $modes; do
	shard_set_device "$mode"
	say "setops.device=$mode"
	on "$COORD" $COORD_PORT -v runs="$runs" -v mode="$mode" <<'SQL' || die "the benchmark failed"
SET enable_partitionwise_aggregate = on;
SET max_parallel_workers_per_gather = 0;
SELECT set_config('bench.runs', :'runs', false), set_config('bench.mode', :'mode', false) \g /dev/null
DO $$
DECLARE
    q text;
    f text;
    t timestamptz;
    ans text;
BEGIN
    FOR i IN 0 .. current_setting('bench.runs')::int LOOP		-- run 0 warms up
        FOREACH f IN ARRAY ARRAY['one server', 'two-level', 'global'] LOOP
            q := CASE f
                WHEN 'one server' THEN 'SELECT array_union_agg(members) FROM bench_local'
                WHEN 'two-level' THEN 'SELECT array_union_agg(u) FROM (SELECT array_union_agg(members) AS u FROM bench GROUP BY shard) s'
                ELSE 'SELECT array_union_agg(members) FROM bench' END;
            t := clock_timestamp();
            EXECUTE format('SELECT cardinality(r) || '' '' || md5(r::text) FROM (%s) x(r)', q) INTO ans;
            IF i > 0 THEN
                INSERT INTO bench_results VALUES (current_setting('bench.mode'), f,
                    extract(epoch FROM clock_timestamp() - t) * 1000, ans);
            END IF;
        END LOOP;
    END LOOP;
END $$;
SQL
done

on "$COORD" $COORD_PORT <<'SQL'
CREATE FUNCTION median(v float8[]) RETURNS float8 LANGUAGE sql IMMUTABLE
AS $$ SELECT x FROM unnest(v) x ORDER BY x OFFSET (cardinality(v) - 1) / 2 LIMIT 1 $$;
\echo == medians (ms); every answer: cardinality and md5 of the union
SELECT mode, form, count(*) AS runs, round(median(array_agg(ms))::numeric, 1) AS median_ms,
       round(min(ms)::numeric, 1) AS min_ms, round(max(ms)::numeric, 1) AS max_ms,
       count(DISTINCT answer) AS answers, min(answer) AS answer
FROM bench_results GROUP BY mode, form ORDER BY mode, form;
\echo == ratios against one server (median against median)
SELECT mode, form, round((median(array_agg(ms)) /
       (SELECT median(array_agg(ms)) FROM bench_results o WHERE o.mode = r.mode AND o.form = 'one server'))::numeric, 2)
       AS time_vs_one_server
FROM bench_results r GROUP BY mode, form ORDER BY mode, form;
\echo == all answers equal
SELECT count(DISTINCT answer) = 1 AS all_equal FROM bench_results;
SQL
[ "$(on "$COORD" $COORD_PORT -At -c "SELECT count(DISTINCT answer) FROM bench_results")" = 1 ] ||
	die "the forms answered differently"
