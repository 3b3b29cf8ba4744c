#!/usr/bin/env bash
# Runs every test suite of setops and exits non-zero on any failure.
# First, before anything is installed from the tree, the Debian package
# (scripts/deb_check.sh): built CPU-only with dpkg-buildpackage, lintian
# clean of errors, installed, the pg_regress suites that need no test
# hooks passed against it, removed without a trace.  Then:
#   0. the layering of the sources (scripts/check_layers.sh: no #include
#      points up a layer), the kernels' tile shapes all taken from
#      engine/common/tile_geometry.h (scripts/check_tile_geometry.sh), and
#      META.json against the PGXN Meta Spec and setops.control
#      (scripts/check_meta.py);
#   1. C unit tests of the CPU engine (test/unit), and the benchmarks
#      outside PostgreSQL in their smoke mode;
#   2. inside PostgreSQL, once per setops.device mode (cpu and auto, and gpu
#      where a GPU is usable; without a GPU, once more in gpu mode through
#      the GPU service answering with the CPU engine, setops.service_emulate):
#      the pg_regress suites (test/regress/), the pgTAP property tests
#      (test/pgtap) and every committed benchmark in its smoke mode
#      (test/bench/smoke.sh: tiny sizes, one run, answers compared, timings
#      not checked);
#   3. the upgrade from 0.1 against a fresh install (test/upgrade/check.sh);
#      a plain role (no superuser) installs, updates and uses the trusted
#      extension, crafted binary input included (test/trusted/check.sh);
#   4. the distributed suite on a sharded cluster of its own, a coordinator
#      and two shards (test/shard/run.sh: postgres_fdw, PL/Proxy, a shard
#      stopped mid-query), in cpu and auto mode;
#   5. without a GPU, on the GPU service emulated by the CPU engine: the
#      suites of 2 in gpu mode, many sessions at once
#      (test/service/concurrency.sh), the GPU machine's pgchecks and
#      service steps (test/gpu/pg_gpu_checks.sh, pg_service_checks.sh) and
#      the sharded suite in gpu mode; then with two emulated devices
#      (setops.service_emulate_devices = 2): pg_regress, pgTAP 08, 09, 13
#      and 15 in gpu mode, and many sessions at once; and once more with a
#      cache that has room and setops.service_split_min_elements low:
#      pgTAP 17 (counts cut over both devices), pgTAP 18 (device faults
#      injected under cut counts), many sessions at once, and many sessions
#      with faults injected under their shared trips (test/service/faults.sh).
#
# Installs missing build dependencies, builds and installs setops, and runs
# the server suites on a throwaway cluster that is removed afterwards.
#
# Environment:
#   SETOPS_TEST_MODES     modes to run (default: "cpu auto", plus "gpu"
#                         when setops_devices() lists a GPU)
#   SETOPS_TEST_EXISTING  1: use the running server that PGHOST etc. name,
#                         skip installing, building and the cluster (and
#                         the sharded cluster's suite, which starts servers);
#                         its setops must be a build for the tests (make
#                         install SETOPS_TEST_HOOKS=yes)
#   SETOPS_TEST_RUN_AS    prefix for commands that write into the checkout
#                         (pg_regress), e.g. "$PGRUN" on the GPU machine
#   SETOPS_TEST_BENCH     0: skip the benchmarks' smoke runs
#   SETOPS_TEST_DEB       0: skip the Debian package's check (never run
#                         with SETOPS_TEST_EXISTING=1)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

failures=()
run_suite() {		# name, command...
	local name=$1
	shift
	say "$name"
	if "$@"; then
		echo "-- $name: passed"
	else
		echo "-- $name: FAILED"
		failures+=("$name")
	fi
}

if [ "${SETOPS_TEST_EXISTING:-0}" != 1 ]; then
	set -e
	install_deps
	set +e
	# before the tree's build is installed: the package's files are the
	# only setops there while it is checked, and it leaves none
	[ "${SETOPS_TEST_DEB:-1}" = 1 ] &&
		run_suite "Debian package (CPU-only build): dpkg-buildpackage, lintian, pg_regress installed, removal" \
			env SETOPS_DEB_REPLACE=1 bash scripts/deb_check.sh
	set -e
	build_install
	start_cluster
	set +e
fi

run_suite "layers (no include points up)" bash scripts/check_layers.sh
run_suite "the kernels' tiles are tile_geometry.h's (the SQL suites' tile sizes)" bash scripts/check_tile_geometry.sh
run_suite "PGXN metadata (META.json: the spec, setops.control's version)" python3 scripts/check_meta.py
run_suite "C unit tests (CPU engine)" make -s unittest PG_CONFIG="$PG_CONFIG"
[ "${SETOPS_TEST_BENCH:-1}" = 1 ] &&
	run_suite "benchmarks outside PostgreSQL (smoke)" bash test/bench/smoke.sh host

# Every suite once per setops.device mode, on the running cluster.
# A fresh database for pgTAP: setops_tap, with pgtap and setops.
tap_database() {	# label
	psql -XqAt -c 'DROP DATABASE IF EXISTS setops_tap' -c 'CREATE DATABASE setops_tap' >/dev/null &&
		psql -XqAt -d setops_tap -c 'CREATE EXTENSION pgtap' -c 'CREATE EXTENSION setops' >/dev/null ||
		failures+=("pgTAP database setup ($1)")
}

run_modes() {		# label, modes...
	local label=$1 mode
	shift
	tap_database "$label"
	for mode in "$@"; do
		export PGOPTIONS="-c setops.device=$mode"
		run_suite "pg_regress, setops.device=$mode$label" \
			${SETOPS_TEST_RUN_AS:-} make -s installcheck PG_CONFIG="$PG_CONFIG" PGOPTIONS="$PGOPTIONS"
		[ -f test/regress/regression.diffs ] && head -c 20000 test/regress/regression.diffs
		# shellcheck disable=SC2086
		run_suite "pgTAP, setops.device=$mode$label" pg_prove -d setops_tap --failures ${tap_files:-test/pgtap/*.sql}
		unset PGOPTIONS
		[ "${SETOPS_TEST_BENCH:-1}" = 1 ] && [ -z "${tap_files:-}" ] &&
			run_suite "benchmarks (smoke), setops.device=$mode$label" bash test/bench/smoke.sh "$mode"
	done
}

modes=${SETOPS_TEST_MODES:-}
if [ -z "$modes" ]; then
	modes="cpu auto"
	have_gpu && modes="$modes gpu"
fi
# shellcheck disable=SC2086
run_modes "" $modes
run_suite "upgrade 0.1 -> 0.2 -> 0.3 -> 0.4 against a fresh install; 0.2 and 0.3 databases" bash test/upgrade/check.sh
run_suite "trusted: a plain role installs, updates and uses setops; crafted binary input" bash test/trusted/check.sh
[ "${SETOPS_TEST_EXISTING:-0}" != 1 ] &&
	run_suite "sharded cluster (postgres_fdw, PL/Proxy, faults), setops.device=cpu, auto" \
		bash test/shard/run.sh cpu auto

# The GPU service (shared_preload_libraries) on a machine without a GPU:
# it answers with the CPU engine (setops.service_emulate), so gpu mode
# tests the whole transport: slots, chunks, waits, packed values, and the
# device cache (kept small, so that it evicts).
if [ "${SETOPS_TEST_EXISTING:-0}" != 1 ] && ! have_gpu; then
	stop_cluster
	# (the cache's size in the file: the cache benchmark turns it off and
	# on with ALTER SYSTEM)
	SETOPS_SERVER_OPTS="-c shared_preload_libraries=setops -c setops.service_emulate=on -c setops.service_memory=64MB" \
		SETOPS_SERVER_CONF="setops.gpu_cache_size = 2MB" start_cluster
	run_modes " (GPU service, emulated)" gpu
	run_suite "many sessions at once through the GPU service (emulated)" bash test/service/concurrency.sh
	# the GPU machine's pgchecks and service steps, their checks as there:
	# 10,000 calls each answer checked, a cancel in flight; the service
	# stopped mid-request and its recovery (it must answer as the "GPU")
	run_suite "10,000 calls checked; cancel in flight (GPU service, emulated)" \
		env OUT="$CLUSTER_DIR/gpu-checks" bash test/gpu/pg_gpu_checks.sh
	run_suite "the service stopped mid-request, and its recovery (GPU service, emulated)" \
		env OUT="$CLUSTER_DIR/gpu-checks" bash test/gpu/pg_service_checks.sh
	modes="$modes, gpu through the GPU service (emulated)"
	# two emulated devices: what the service does with several GPUs
	# (placement, copies between devices, a count batch on the device that
	# holds its rows, independent requests on both), the GPU host's paths
	stop_cluster
	SETOPS_SERVER_OPTS="-c shared_preload_libraries=setops -c setops.service_emulate=on -c setops.service_emulate_devices=2 -c setops.service_memory=64MB" \
		SETOPS_SERVER_CONF="setops.gpu_cache_size = 2MB" start_cluster
	# (08 first, on the empty cache: there one session's counts staying on
	# one device is checked, not skipped for want of room)
	tap_database " (GPU service, emulated, 2 devices, empty cache)"
	run_suite "pgTAP 08 on an empty device cache, setops.device=gpu (GPU service, emulated, 2 devices)" \
		env PGOPTIONS="-c setops.device=gpu -c setops_tests.empty_cache=on" pg_prove -d setops_tap --failures test/pgtap/08_service.sql
	tap_files="test/pgtap/08_service.sql test/pgtap/09_batch.sql test/pgtap/13_counts.sql test/pgtap/15_similarity_batch.sql" \
		run_modes " (GPU service, emulated, 2 devices)" gpu
	run_suite "many sessions at once through the GPU service (emulated, 2 devices)" bash test/service/concurrency.sh
	modes="$modes, and with 2 emulated devices"
	# two emulated devices with room in the cache and the split threshold
	# low enough for CI's sizes: counts of stored arrays cut over both
	# devices when both are idle (worker_split.c), answers checked; then
	# many sessions, where some counts find both devices idle and others not
	stop_cluster
	SETOPS_SERVER_OPTS="-c shared_preload_libraries=setops -c setops.service_emulate=on -c setops.service_emulate_devices=2 -c setops.service_memory=128MB" \
		SETOPS_SERVER_CONF="setops.gpu_cache_size = 64MB
setops.service_split_min_elements = 50000" start_cluster
	tap_database " (GPU service, emulated, 2 devices, counts split)"
	run_suite "pgTAP 17, counts cut over 2 devices, setops.device=gpu (GPU service, emulated)" \
		env PGOPTIONS="-c setops.device=gpu -c setops_tests.split_must_apply=on" pg_prove -d setops_tap --failures test/pgtap/17_split_counts.sql
	# device faults injected (a test hook of the emulated device): a cut
	# count's part failing once or twice, then many sessions whose shared
	# trips fail under them
	run_suite "pgTAP 18, device faults under cut and shared counts, setops.device=gpu (GPU service, emulated)" \
		env PGOPTIONS="-c setops.device=gpu -c setops_tests.split_must_apply=on" pg_prove -d setops_tap --failures test/pgtap/18_service_faults.sql
	run_suite "many sessions at once, counts cut over 2 devices (GPU service, emulated)" bash test/service/concurrency.sh
	run_suite "many sessions at once, device faults injected under shared trips (GPU service, emulated)" bash test/service/faults.sh
	modes="$modes, and counts cut over them"
	# each of the three servers with a GPU service of its own
	SETOPS_SHARD_SERVER_OPTS="-c shared_preload_libraries=setops -c setops.service_emulate=on -c setops.service_memory=64MB" \
		run_suite "sharded cluster, setops.device=gpu (each server's GPU service, emulated)" \
		bash test/shard/run.sh gpu
fi

if [ ${#failures[@]} -gt 0 ]; then
	say "FAILED: ${failures[*]}"
	exit 1
fi
say "all suites passed (modes: $modes)"
