#!/usr/bin/env bash
# test/bench/smoke.sh host | DEVICE
#
# Every committed benchmark, tiny and run once, so that none of them rots
# unseen: scripts/test.sh (and so CI) runs this in each setops.device mode.
# Timings are printed, never checked; what must hold is that each
# benchmark completes and that the answers it compares (devices, forms,
# intarray) agree: each one fails on a difference.
#
#   host     the benchmarks outside PostgreSQL: engine_bench (CPU engine
#            paths against each other) and fault_probe; where nvcc is, the
#            GPU benchmark runners are built (they run on a GPU machine:
#            test/gpu/device_run.sh).
#   DEVICE   cpu, auto or gpu: the SQL benchmarks against the running
#            cluster (PGHOST etc. set), their measured side on DEVICE
#            (SETOPS_BENCH_DEVICE): cache_bench.sh, count_bench.sh,
#            batch_bench.sh (window
#            and agg), agg_stream_ab.sh, service_abandon.sh,
#            service_pgbench.sh, auto_reasons.sh, similarity_bench.sh and the four
#            functions of sql_bench.sql.
#            Aggregates stream from their first row
#            (setops.agg_stream_min_size = 0), auto goes to the GPU from any
#            size (setops.gpu_min_elements = 0), so that tiny inputs take
#            the paths large ones take.
#
# Each benchmark's output goes to a log (kept in SETOPS_BENCH_LOGS when
# that names a directory); a failing one's tail is printed.
# Exit status: the number of benchmarks that failed (0: all completed).
set -uo pipefail
cd "$(dirname "$0")/../.."
what=${1:?usage: test/bench/smoke.sh host | cpu | auto | gpu}
PG_CONFIG=${PG_CONFIG:-pg_config}
export PATH="$($PG_CONFIG --bindir):$PATH"	# pgbench
if [ -n "${SETOPS_BENCH_LOGS:-}" ]; then
	logs=$SETOPS_BENCH_LOGS
	mkdir -p "$logs"
	keep=1
else
	logs=$(mktemp -d /tmp/setops-bench-smoke.XXXXXX)
	keep=0
fi
chmod 755 "$logs"
failed=0

bench() {	# name, command...
	local name=$1 t0=$SECONDS
	shift
	if "$@" >"$logs/$name.log" 2>&1; then
		echo "   $name: completed ($((SECONDS - t0)) s)"
	else
		echo "   $name: FAILED ($((SECONDS - t0)) s); the end of its log:"
		tail -n 30 "$logs/$name.log" | sed 's/^/      /'
		failed=$((failed + 1))
	fi
}

if [ "$what" = host ]; then
	bench engine_bench sh -c "make -s test/bench/engine_bench PG_CONFIG='$PG_CONFIG' && test/bench/engine_bench 20000 1"
	bench fault_probe sh -c "make -s test/bench/fault_probe PG_CONFIG='$PG_CONFIG' && test/bench/fault_probe 100"
	if [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; then
		bench gpu_bench_build make -s gpu-tests PG_CONFIG="$PG_CONFIG"
	fi
	[ $keep = 1 ] || rm -rf "$logs"
	exit $failed
fi

case $what in cpu | auto | gpu) ;; *) echo "smoke.sh: unknown device $what" >&2; exit 2 ;; esac
export SETOPS_BENCH_DEVICE=$what
export PGOPTIONS="${PGOPTIONS:-} -c setops.device=$what -c setops.agg_stream_min_size=0 -c setops.gpu_min_elements=0"
# a database of their own, dropped afterwards
export PGDATABASE=setops_bench_smoke
psql -XAtq -d postgres -c 'SET client_min_messages = warning' -c "DROP DATABASE IF EXISTS $PGDATABASE" \
	-c "CREATE DATABASE $PGDATABASE" >/dev/null ||
	{ echo "smoke.sh: cannot create the database $PGDATABASE"; exit 1; }
psql -XAtq -c 'CREATE EXTENSION setops' -c 'CREATE EXTENSION intarray' >/dev/null ||
	{ echo "smoke.sh: cannot install setops and intarray"; exit 1; }

if [ "$what" = cpu ]; then devices="{cpu}"; else devices="{cpu,$what}"; fi
bench cache_bench bash test/bench/cache_bench.sh 1 20000 3
bench count_bench bash test/bench/count_bench.sh 1 20000 3 2000
bench batch_bench env BATCH_BENCH_AGG_SHAPES="20 500;200 10;3 5000" \
	bash test/bench/batch_bench.sh 1 2000 1
bench agg_stream_ab bash test/bench/agg_stream_ab.sh 1 50 2000
bench service_abandon bash test/bench/service_abandon.sh 200 2000
bench service_pgbench bash test/bench/service_pgbench.sh 4 5 20000
bench auto_reasons env AUTO_REASONS_CLIENTS=2 AUTO_REASONS_SIZES=20000 bash test/bench/auto_reasons.sh 1
bench similarity_bench env ROWS=200 MINK=100 MAXK=1000 QUERY_KEYS=2000 RUNS=1 INTARRAY_ROWS=50 SIM_JOBS=2 \
	bash test/bench/similarity_bench.sh
bench sql_bench psql -X -v ON_ERROR_STOP=1 -c '\i test/bench/sql_bench.sql' \
	-c "SELECT * FROM pg_temp.setops_bench_intersect('$devices', 1, 0.001)" \
	-c "SELECT * FROM pg_temp.setops_bench_stored('$devices', 1, 20000)" \
	-c "SELECT * FROM pg_temp.setops_bench_crossover(1, 65536, '$what')" \
	-c "SELECT * FROM pg_temp.setops_bench_packed('$devices', 1, 20000)"

psql -XAtq -d postgres -c "DROP DATABASE IF EXISTS $PGDATABASE" >/dev/null
[ $keep = 1 ] || rm -rf "$logs"
exit $failed
