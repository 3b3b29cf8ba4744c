#!/usr/bin/env bash
# test/gpu/device_run.sh STEP...: the GPU-machine runs, logs under $OUT.
#
# Build here first (nvcc is here):
#   make SETOPS_TEST_HOOKS=yes && make gpu-tests &&
#   make install SETOPS_TEST_HOOKS=yes DESTDIR=$PWD/.pgb/ext   (the suites need the test hooks)
# then on the GPU machine, from the checkout root (carry .pgb and
# test/gpu/kernel_test, test/gpu/kernel_bench, test/gpu/packed_decode_test,
# test/gpu/packed_encode_test, test/gpu/packed_bench):
#   bash test/gpu/device_run.sh kernel memcheck racecheck bench pg sqlbench
#   bash test/gpu/device_run.sh packed packedcheck packedenc packedenccheck packedbench
#
# Steps:
#   kernel     GPU kernel tests against the CPU engine and, through the API,
#              the independent reference (test/common/keyrank_ref.h)
#              (test/gpu/kernel_test; prints answers and partition
#              boundaries checked apart)
#   kernellarge  its large cases alone: inputs across the GPU's chunk
#              (2^25 elements) with duplicate runs across every chunk
#              boundary, 40M to 300M elements (kernel_test large)
#   large      inside PostgreSQL: int4 and int8 arrays of 35M keys each,
#              duplicate runs across 2^25 and every CPU chunk, the four
#              operations, counts and pairs, gpu and cpu, against answers
#              written in plain SQL (test/gpu/pg_large_checks.sh)
#   mutate     the reference's checks shown failing: kernel_test large,
#              batch_test test quick, multi_device_test test and
#              pg_large_checks.sh (small cuts, gpu) with SETOPS_TEST_MUTATE=1
#              (a defect planted in each answer checked); the step fails
#              unless every one of them fails
#   memcheck   the quick kernel tests under compute-sanitizer memcheck
#   racecheck  the quick kernel tests under compute-sanitizer racecheck
#   bench      kernels against Thrust (test/gpu/kernel_bench)
#   packed     the packed decoder against the CPU codec (test/gpu/packed_decode_test)
#   packedcheck  the quick packed decoder tests under compute-sanitizer memcheck
#   packedenc  the packed encoder against the CPU codec, byte for byte
#              (test/gpu/packed_encode_test)
#   packedenccheck  the quick packed encoder tests under compute-sanitizer
#              memcheck, then racecheck
#   packedbench  packed decoder throughput against a device copy, and the
#              encoder's (test/gpu/packed_bench)
#   pg         every suite inside PostgreSQL with setops.device = gpu, auto
#              (PG_MODES="gpu" or "auto": one of them)
#   pgchecks   10,000 calls, each answer checked and run on a GPU, device
#              memory flat; a cancel in flight (not after completion) within
#              100 ms (test/gpu/pg_gpu_checks.sh)
#   service    GPU service: first answer on a fresh connection; the service
#              stopped mid-request gives a clean error and comes back, its
#              next requests on a GPU (test/gpu/pg_service_checks.sh)
#   load       the GPU at load (test/bench/load_bench.sh, LOAD_BENCH_RUN=quick
#              or full): pgbench at many clients, cpu / gpu / auto, one GPU
#              and all, answers checked
#   batchedmem device memory flat across 12,800 counts of cached rows from
#              64 clients, many sharing launches, every answer checked
#              (after load with LOAD_BENCH_KEEP=1: test/gpu/pg_batched_memory.sh)
#
# Every PostgreSQL step fails when the GPU service lists fewer devices than
# nvidia-smi (checked before each step).  SETOPS_TEST_MUTATE (1, or status,
# cancel, recovery) passes to pgchecks, service and batchedmem: it plants a
# defect each of their checks must catch, so those steps must then fail.
#   servicebench  pgbench, 64 clients for 5 minutes through the service, every
#              answer checked against the CPU engine, device memory flat
#   batch      segmented batches and reductions against the CPU engine,
#              every pair's answer against the independent reference, the
#              whole range past each output's count guarded, a batch with
#              pairs across 2^25 elements (test/gpu/batch_test)
#   batchcheck the quick batch tests under compute-sanitizer memcheck, then
#              racecheck
#   countmany  the service's shared trips: many counts of device keys in
#              segmented launches against a per-key count merge and each
#              count alone (test/gpu/count_many_test full), then quick under
#              memcheck and racecheck, and once --mutate (must fail)
#   batchkernelbench  batch kernels: skewed against uniform batches, the
#              shared-B probe, a reduction on the device against the CPU
#   autoreasons  where auto sends calls and why, at 1, 4 and 16 clients,
#              against cpu and gpu mode (test/bench/auto_reasons.sh: 20k
#              counts and predicates, 1M counts; about 90 s)
#   batchwindow  inside PostgreSQL: the window functions against per-row
#              calls (1M rows of ~1,000 against a 100,000-key constant;
#              the CPU forms once each, so the step fits one device call:
#              240 s on an H200 host)
#   batchagg   inside PostgreSQL: array_union_agg on the GPU against the
#              CPU engine (10k x 10k, 100k x 100, 100 x 1M)
#   streamab   inside PostgreSQL: how a streamed array_union_agg takes its
#              rows (from TOAST chunks straight into the slot, against
#              detoasted first), with the copy threads and without
#   streamchecks  inside PostgreSQL: streamed aggregates answer as the CPU
#              engine does; device memory flat across them and after ERRORs
#   multi      one operation split over several GPUs against the CPU engine
#              and the independent reference, duplicate runs across the
#              split points (test/gpu/multi_device_test; with one GPU the
#              parts share it)
#   multibench 200M + 200M keys on one GPU and split over all of them
#   split      inside PostgreSQL: operations the service splits over every
#              GPU, against the CPU engine; the cache's devices
#   cachebench a repeated query over stored 16M-key arrays: the device cache
#              cold and warm against intarray, the CPU engine, no cache
#   countbench the 0.2 counts: 16M + 16M int4 count against building the
#              array and intarray, in variables and stored (device cache),
#              overlaps stopping early, GIN @> lookups on 1M rows against
#              intarray's gin__int_ops (test/bench/count_bench.sh)
#   countvars  the same, its vars part only (16M + 16M in PL/pgSQL variables)
#   countsuites  the 0.2 suites alone, in gpu and auto mode: pg_regress, pgTAP
#              13_counts and 14_packed_index, the upgrade from 0.1
#   aggsuites  the aggregates' suites (0.3's state type), in gpu and auto
#              mode: pg_regress setops_agg, pgTAP 03, 06, 10, 11, 12; the
#              upgrade from 0.1 and a database left at 0.2
#   shardgpu   the sharded cluster (test/shard/run.sh), each of its three
#              servers with its own GPU service on the one GPU, in gpu and
#              auto mode
#   oversub    the three servers find the GPU full (test/shard/oversubscribe.sh:
#              device_hog takes its memory): clean ERRORs in gpu mode, the
#              CPU engine's answers in auto mode
#   shardbench array_union_agg over a 10M-key sharded table: one server
#              against coordinator + 2 shards, two-level and global, cpu
#              and gpu (test/bench/shard_bench.sh)
#   benchsmoke every SQL benchmark tiny, once, in gpu and auto mode
#              (test/bench/smoke.sh, as CI runs it on the emulated service)
#   simsuites  issue 34's suites alone, in gpu and auto mode: pg_regress
#              setops_similarity_batch, setops_similarity_cache (stored rows
#              answered from the device cache by identity),
#              setops_jaccard_distance; pgTAP 15 and 16; the upgrade check
#   similarity issue 34's similarity search: Jaccard of every row of 100,000
#              (1,000 to 10,000 keys) against a 100,000-key constant, and the
#              top 10, per-row cpu and gpu, intarray (on a sample), the
#              batch on the GPU (first run, rows cached; int4[] and packed)
#              and on the CPU, every answer compared
#              (test/bench/similarity_bench.sh; ROWS, RUNS, SLOW_RUNS,
#              INTARRAY_ROWS etc. pass through)
#   sqlbench   SQL end to end: cpu, gpu, auto against intarray
#   sqlpacked  SQL end to end from a table: packed_int4 against int4[]
set -uo pipefail
OUT=${OUT:-/tmp/setops-out}
mkdir -p "$OUT"
status=0
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"

step() {	# name, command...
	local name=$1
	shift
	echo "== $name"
	local t0=$SECONDS
	"$@" >"$OUT/$name.log" 2>&1
	local rc=$?
	tail -n 40 "$OUT/$name.log"
	echo "== $name: rc=$rc, $((SECONDS - t0)) s"
	[ $rc -eq 0 ] || status=1
}

pg_up=0
# the bundled PostgreSQL's programs and libraries, for scripts that start
# servers of their own (its own cluster runs without the GPU service)
pg_env() {
	[ -n "${PG_CONFIG:-}" ] && [ -x "$PG_CONFIG" ] && return 0
	# shellcheck disable=SC1091
	PGB_SERVER_OPTS="" source .pgb/pg-start.sh
}
# every server of the sharded cluster with a GPU service of its own
shard_gpu_opts="-c shared_preload_libraries=setops -c setops.service_memory=1GB -c setops.gpu_cache_size=8GB"

# step NAME: pg_regress (REGRESS, all when empty) and the pgTAP files, in
# gpu and auto mode; then the upgrade check
suites() {	# name regress tap-files
	step "$1" env SUITE_REGRESS="$2" SUITE_TAP="$3" bash -c '
		psql -XqAt -c "DROP DATABASE IF EXISTS setops_tap" -c "CREATE DATABASE setops_tap" &&
		psql -XqAt -d setops_tap -c "CREATE EXTENSION pgtap" -c "CREATE EXTENSION setops" || exit 1
		rc=0
		for m in gpu auto; do
			export PGOPTIONS="-c setops.device=$m"
			echo "== setops.device=$m"
			$PGRUN make -s installcheck PG_CONFIG=$PG_CONFIG PGOPTIONS="$PGOPTIONS" \
				${SUITE_REGRESS:+REGRESS="$SUITE_REGRESS"} || { rc=1; head -c 20000 test/regress/regression.diffs; }
			# shellcheck disable=SC2086
			pg_prove -d setops_tap --failures $SUITE_TAP || rc=1
		done
		unset PGOPTIONS
		bash test/upgrade/check.sh || rc=1
		exit $rc'
}

pg_start() {
	if [ $pg_up = 0 ]; then
		# the GPU service owns the GPU: setops is preloaded
		# (connections for the load benchmark's 128 clients)
		export PGB_SERVER_OPTS="-c shared_preload_libraries=setops -c max_connections=300 ${PGB_SERVER_OPTS:-}"
		# shellcheck disable=SC1091
		source .pgb/pg-start.sh || return 1
		pg_up=1
	fi
	# before every PostgreSQL step (a GPU may go missing after the first):
	# wait for the service's CUDA context (setops_devices waits up to 30 s);
	# on a GPU machine a service without its GPUs is a failure, not a pass
	# (CUDA_VISIBLE_DEVICES=0 on a 2-GPU host: the figures of one GPU)
	local n want
	want=$(nvidia-smi -L | grep -c '^GPU')
	[ -n "${CUDA_VISIBLE_DEVICES:-}" ] && want=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
	n=$(psql -XAtq -c 'CREATE EXTENSION IF NOT EXISTS setops' -c 'SELECT count(*) FROM setops_devices()' | tail -1)
	echo "the GPU service lists ${n:-no} device(s); nvidia-smi lists $(nvidia-smi -L | grep -c '^GPU'), ${CUDA_VISIBLE_DEVICES:+CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES, }$want expected"
	[ "${n:-0}" -ge "$want" ]
}

for s in "$@"; do
	case $s in
		kernel) step kernel test/gpu/kernel_test full ;;
		kernellarge) step kernellarge test/gpu/kernel_test large ;;
		large)
			pg_start || { status=1; continue; }
			step large bash test/gpu/pg_large_checks.sh
			;;
		mutate)
			pg_start || { status=1; continue; }
			# each run must fail; its counts are in the log
			step mutate env SETOPS_TEST_MUTATE=1 bash -c '
				rc=0
				for run in "test/gpu/kernel_test large" "test/gpu/batch_test test quick" \
					"test/gpu/multi_device_test test" \
					"env LARGE_DEVICES=gpu LARGE_GPU_CHUNK=65536 LARGE_CPU_CHUNK=8192 bash test/gpu/pg_large_checks.sh"; do
					echo "== $run (planted defects: must fail)"
					if $run 2>&1 | tail -n 60; [ "${PIPESTATUS[0]}" = 0 ]; then
						echo "== $run: PASSED with planted defects"
						rc=1
					else
						echo "== $run: failed, as it must"
					fi
				done
				exit $rc'
			;;
		memcheck) step memcheck compute-sanitizer --tool memcheck --error-exitcode 3 test/gpu/kernel_test quick ;;
		racecheck) step racecheck compute-sanitizer --tool racecheck --error-exitcode 3 test/gpu/kernel_test quick ;;
		bench) step bench test/gpu/kernel_bench ;;
		packed) step packed test/gpu/packed_decode_test full ;;
		packedcheck) step packedcheck compute-sanitizer --tool memcheck --error-exitcode 3 test/gpu/packed_decode_test quick ;;
		packedenc) step packedenc test/gpu/packed_encode_test full ;;
		packedenccheck)
			step packedenccheck compute-sanitizer --tool memcheck --error-exitcode 3 test/gpu/packed_encode_test quick
			step packedencrace compute-sanitizer --tool racecheck --error-exitcode 3 test/gpu/packed_encode_test quick
			;;
		packedbench) step packedbench test/gpu/packed_bench ;;
		pg)
			pg_start || { status=1; continue; }
			step pg env SETOPS_TEST_EXISTING=1 SETOPS_TEST_MODES="${PG_MODES:-gpu auto}" SETOPS_TEST_BENCH=0 \
				SETOPS_TEST_RUN_AS="$PGRUN" bash scripts/test.sh
			;;
		pgchecks)
			pg_start || { status=1; continue; }
			step pgchecks bash test/gpu/pg_gpu_checks.sh
			;;
		service)
			pg_start || { status=1; continue; }
			step service bash test/gpu/pg_service_checks.sh
			;;
		load)
			pg_start || { status=1; continue; }
			step load bash test/bench/load_bench.sh "${LOAD_BENCH_RUN:-quick}"
			;;
		autoreasons)
			pg_start || { status=1; continue; }
			step autoreasons bash test/bench/auto_reasons.sh 3
			;;
		batchedmem)
			pg_start || { status=1; continue; }
			step batchedmem bash test/gpu/pg_batched_memory.sh
			;;
		servicebench)
			pg_start || { status=1; continue; }
			step servicebench bash test/bench/service_pgbench.sh 64 300 4000000
			;;
		batch) step batch test/gpu/batch_test test ;;
		batchcheck)
			step batchmem compute-sanitizer --tool memcheck --error-exitcode 3 test/gpu/batch_test test quick
			step batchrace compute-sanitizer --tool racecheck --error-exitcode 3 test/gpu/batch_test test race
			;;
		countmany)
			step countmany test/gpu/count_many_test full
			step countmanymem compute-sanitizer --tool memcheck --error-exitcode 3 test/gpu/count_many_test quick
			step countmanyrace compute-sanitizer --tool racecheck --error-exitcode 3 test/gpu/count_many_test quick
			step countmanymutate bash -c '! test/gpu/count_many_test quick --mutate'
			;;
		batchkernelbench) step batchkernelbench test/gpu/batch_test bench ;;
		batchwindow)
			pg_start || { status=1; continue; }
			step batchwindow env BATCH_BENCH_PARTS=window bash test/bench/batch_bench.sh 3 1000000 1
			;;
		batchagg)
			pg_start || { status=1; continue; }
			step batchagg env BATCH_BENCH_PARTS=agg bash test/bench/batch_bench.sh 5
			;;
		streamab)
			pg_start || { status=1; continue; }
			step streamab bash test/bench/agg_stream_ab.sh 9
			;;
		streamchecks)
			pg_start || { status=1; continue; }
			step streamchecks bash test/gpu/pg_stream_checks.sh
			;;
		multi) step multi test/gpu/multi_device_test test ;;
		multibench) step multibench test/gpu/multi_device_test bench 200000000 ;;
		split)
			pg_start || { status=1; continue; }
			step split bash test/gpu/pg_split_checks.sh
			;;
		cachebench)
			pg_start || { status=1; continue; }
			step cachebench bash test/bench/cache_bench.sh 7 16000000 4
			;;
		countbench)
			pg_start || { status=1; continue; }
			step countbench bash test/bench/count_bench.sh 7 16000000 4 1000000
			;;
		countvars)
			pg_start || { status=1; continue; }
			step countvars env COUNT_BENCH_PARTS=vars bash test/bench/count_bench.sh 7 16000000
			;;
		aggsuites)
			pg_start || { status=1; continue; }
			suites aggsuites "setops_basic setops_agg" "test/pgtap/03_aggregates.sql \
				test/pgtap/06_parallel_aggregates.sql test/pgtap/10_agg_batches.sql \
				test/pgtap/11_agg_mapped.sql test/pgtap/12_agg_stream.sql"
			;;
		shardgpu)
			pg_env || { status=1; continue; }
			step shardgpu env SETOPS_SHARD_SERVER_OPTS="$shard_gpu_opts" bash -c \
				'bash test/shard/run.sh gpu auto; rc=$?; nvidia-smi; exit $rc'
			;;
		oversub)
			pg_env || { status=1; continue; }
			step oversub env SETOPS_SHARD_SERVER_OPTS="$shard_gpu_opts" bash test/shard/oversubscribe.sh
			;;
		shardbench)
			pg_env || { status=1; continue; }
			step shardbench env SETOPS_SHARD_SERVER_OPTS="$shard_gpu_opts" bash test/bench/shard_bench.sh 5
			;;
		countsuites)
			pg_start || { status=1; continue; }
			suites countsuites "" "test/pgtap/13_counts.sql test/pgtap/14_packed_index.sql"
			;;
		benchsmoke)
			pg_start || { status=1; continue; }
			# each benchmark's log, in one archive ($OUT brings back 8 files)
			step benchsmoke_gpu env SETOPS_BENCH_LOGS=/tmp/benchsmoke/gpu bash test/bench/smoke.sh gpu
			step benchsmoke_auto env SETOPS_BENCH_LOGS=/tmp/benchsmoke/auto bash test/bench/smoke.sh auto
			tar czf "$OUT/benchsmoke_logs.tgz" -C /tmp benchsmoke
			;;
		simsuites)
			pg_start || { status=1; continue; }
			suites simsuites "setops_basic setops_similarity_batch setops_similarity_cache setops_jaccard_distance" \
				"test/pgtap/15_similarity_batch.sql test/pgtap/16_jaccard_distance.sql"
			;;
		similarity)
			pg_start || { status=1; continue; }
			step similarity bash test/bench/similarity_bench.sh
			;;
		sqlbench)
			pg_start || { status=1; continue; }
			psql -Xq -c 'CREATE EXTENSION IF NOT EXISTS setops' -c 'CREATE EXTENSION IF NOT EXISTS intarray'
			step sqlbench psql -X -c '\i test/bench/sql_bench.sql' \
				-c "SELECT * FROM pg_temp.setops_bench_intersect('{cpu,gpu,auto}', 3)" -c "SELECT * FROM pg_temp.setops_bench_stored('{cpu,gpu}', 3)" -c "SELECT * FROM pg_temp.setops_bench_crossover(5)"
			;;
		sqlpacked)
			pg_start || { status=1; continue; }
			psql -Xq -c 'CREATE EXTENSION IF NOT EXISTS setops'
			step sqlpacked psql -X -c '\i test/bench/sql_bench.sql' \
				-c "SELECT * FROM pg_temp.setops_bench_packed('{cpu,gpu}', 5)"
			;;
		*) echo "unknown step $s"; status=1 ;;
	esac
done
exit $status
