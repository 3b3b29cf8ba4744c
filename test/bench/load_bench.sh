#!/usr/bin/env bash
# test/bench/load_bench.sh [quick | full | smoke]
#
# The GPU at load: pgbench clients, each transaction one query on two
# stored rows picked at random (\set i random(1, N)), through the GPU
# service, on the CPU engine and under auto, with one GPU and with all of
# them.  Every point is one (size, form, setops.device, GPUs, clients):
#
#   sizes    stored int4[] rows of 20k, 1M and 16M keys (32, 16 and 4 rows:
#            a table each; sorted, about 1.25 copies a key, never all zero;
#            stored out of line and uncompressed, STORAGE EXTERNAL, so that
#            the device cache keys them by their TOAST identity)
#   forms    count      array_intersect_count(a, b)
#            predicate  array_overlaps(a, b)
#            build      cardinality(array_intersect_gpu(a, b)) and two of
#                       its elements
#            floor      the same transaction without a setops call (x.id +
#                       y.id): the latency spread of the host itself, beside
#                       p99/p50 (quick: 20k, 64 clients, once)
#            sleep      the floor with a sleep on the backend's latch
#                       (pg_sleep: 1 ms, its shortest): what a sleep and a
#                       wake cost a backend, beside a GPU call's wait (full
#                       and smoke only, when LOAD_BENCH_FORMS names it)
#   modes    setops.device = cpu, gpu, auto (PGOPTIONS)
#   GPUs     the server restarted with CUDA_VISIBLE_DEVICES=0 ("1 GPU") and
#            without it (all GPUs); cpu points run once
#   clients  1, 4, 16, 64, 128 (pgbench -j: up to the CPU count)
#
# Each point: a warm-up run (the device cache filled: every row is also
# read once in each mode after each restart), then a timed run (-T) with a
# per-transaction log, from which p50 and p99 latency come; tps is
# pgbench's (without the connection time).
#
# Answers: before the load, with setops.device = cpu, a table of expected
# answers for every (i, j) pair of each size (count, overlaps, cardinality
# of the intersection and two sampled elements).  Every transaction
# compares its answer with that row in the same query; a mismatch casts
# the message to int4, an ERROR that aborts the pgbench client.  Failures
# (failed transactions, aborted clients, a pgbench that exits non-zero or
# runs no transaction) are counted per point; the script exits non-zero at
# the end, after printing everything, when any point had one.
#
# Output: a line per point (size, form, mode, gpus, clients, tps, p50 ms,
# p99 ms, failures, the GPU's share of the calls, the host's CPUs busy during
# the timed run (0 to 1, /proc/stat), the cores the GPU service's threads
# kept busy (its worker process) and the share of the run its main thread
# spent handing requests on (setops_service's dispatch_ms), and the requests
# that shared each launch on each device (per_launch, "device 0/device 1"),
# the cores pgbench itself kept busy, and each device's mean wait of a request
# in its queue and mean time of a launch from start to answer, in us
# (queue_us:trip_us, "device 0/device 1"); in the table also the cores the
# run's backends kept busy (their CPU time once they exited), the cores in
# interrupts (/proc/stat irq + softirq) and the context switches a
# transaction: with host_busy, where a transaction's time goes; and from two
# schedstat samples in the middle half of the run (service_ticks.sh's
# sched_sample), a transaction's wait for a core in its backend and that
# backend's CPU time (backend_rq_us/cpu_us), and the share of their time the
# service's main thread, count runners, executors and pgbench's threads
# waited for a core (rq_main:run:exec:pgbench); then ratios from the same run: gpu/cpu and
# auto/max(cpu, gpu) tps per (size, form, gpus, clients); all GPUs / 1 GPU
# tps in gpu mode; p99/p50 in gpu mode at 64 clients; the single request
# (1 client, count of stored 16M rows, gpu mode): median latency with all
# GPUs against one.  The table goes to $OUT/load_bench.tsv (and the ratios
# to $OUT/load_bench_summary.txt) when OUT is set, else to a temporary
# directory, whose name is printed.
#
#   quick (default)  the points for those ratios: count and build of 1M +
#         1M and count of 20k + 20k at 64 clients, count of 16M + 16M at 1
#         client; cpu, gpu, auto; 1 GPU and all; the floor (21 points,
#         two restarts).
#         At -T 4 about 3 minutes on a 16-core host, data included (the
#         rows are generated and checked a row a session, up to 16 at once;
#         on 2 cores against the emulated service, one device, no restart:
#         data 20 s, of which 16M 13.5 s, and 96 s in all).
#   full  every size x form x mode x clients (225 points, about 30 minutes
#         at -T 4: split it over runs with LOAD_BENCH_SIZES or _FORMS).
#   smoke tiny, for CI: 20k and 50k keys (32 and 16 rows), every form and
#         mode, clients 1 and 8, -T 2.
#
# Environment:
#   LOAD_BENCH_SECONDS   timed run per point (default 4; smoke 2)
#   LOAD_BENCH_WARMUP    warm-up per point, seconds (default 1; smoke 0:
#                        two transactions a client)
#   LOAD_BENCH_CLIENTS, LOAD_BENCH_SIZES, LOAD_BENCH_FORMS, LOAD_BENCH_MODES
#                        lists (spaces); in full and smoke the grid, in quick
#                        a filter on its points.  A size is 20k, 1M, 16M
#                        (k = 1,000, M = 1,000,000), optionally :ROWS
#                        ("50k:16"); default rows 32 up to 100k keys, 16 up
#                        to 2M, else 4.
#   LOAD_BENCH_RESTART   a command that restarts the server with the GPUs
#                        given as its last argument, "0" or "all", and
#                        returns once it is up (e.g. "bash my_restart.sh").
#                        Default: where /tmp/pgb-data exists and PGRUN is set
#                        (test/gpu/device_run.sh's server, .pgb/pg-start.sh):
#                          $PGRUN env CUDA_VISIBLE_DEVICES=0 pg_ctl -D /tmp/pgb-data \
#                              -w -l /tmp/pgb-server.log restart
#                        and for "all" the same with CUDA_VISIBLE_DEVICES
#                        unset (env -u).  pg_ctl restart keeps the options
#                        of postmaster.opts.  After each restart the script
#                        waits for setops_devices() to answer and checks
#                        the postmaster's environment (/proc/PID/environ,
#                        where readable) and the number of devices.  Without
#                        a restart method, or with one device listed, the
#                        1-GPU dimension is skipped (a note says so).  The
#                        server is left with all GPUs.
#   LOAD_BENCH_GPUS      auto (default) | off (no restarts) | force (restart
#                        to "0" even with one device listed: tests the
#                        restart path on a machine with one device)
#   LOAD_BENCH_PGDATA    the data directory, for the environment check
#                        (default: SHOW data_directory)
#   LOAD_BENCH_KEEP      1: keep the schema load_bench (tables and expected
#                        answers); a later run reuses the sizes it finds
#                        complete there.  Default: dropped at the end.
#
# Needs a running cluster with setops preloaded (PGHOST etc. set, a
# superuser: ALTER SYSTEM raises max_connections, with a restart, when the
# clients need it and a restart method exists; else those clients are
# skipped) and pgbench ($PG_CONFIG --bindir is put first on PATH).  On the
# GPU machine, from the checkout root, as root:
#   PGB_SERVER_OPTS="-c shared_preload_libraries=setops" source .pgb/pg-start.sh
#   OUT=$OUT bash test/bench/load_bench.sh quick
set -euo pipefail
what=${1:-quick}
case $what in quick | full | smoke) ;; *) echo "usage: $0 [quick | full | smoke]" >&2; exit 2 ;; esac
PG_CONFIG=${PG_CONFIG:-pg_config}
bindir=$($PG_CONFIG --bindir)
export PATH="$bindir:$PATH"
ncpu=$(nproc)
base_pgoptions=${PGOPTIONS:-}
unset PGOPTIONS

case $what in
	quick)
		seconds=${LOAD_BENCH_SECONDS:-4}
		sizes=${LOAD_BENCH_SIZES:-20k 1M 16M}
		forms=${LOAD_BENCH_FORMS:-count build floor}
		modes=${LOAD_BENCH_MODES:-cpu gpu auto}
		clients=${LOAD_BENCH_CLIENTS:-1 64}
		;;
	full)
		seconds=${LOAD_BENCH_SECONDS:-4}
		sizes=${LOAD_BENCH_SIZES:-20k 1M 16M}
		forms=${LOAD_BENCH_FORMS:-count predicate build}
		modes=${LOAD_BENCH_MODES:-cpu gpu auto}
		clients=${LOAD_BENCH_CLIENTS:-1 4 16 64 128}
		;;
	smoke)
		seconds=${LOAD_BENCH_SECONDS:-2}
		sizes=${LOAD_BENCH_SIZES:-20k 50k:16}
		forms=${LOAD_BENCH_FORMS:-count predicate build}
		modes=${LOAD_BENCH_MODES:-cpu gpu auto}
		clients=${LOAD_BENCH_CLIENTS:-1 8}
		;;
esac
warmup=${LOAD_BENCH_WARMUP:-1}
[ "$what" = smoke ] && warmup=${LOAD_BENCH_WARMUP:-0}
gpu_dim=${LOAD_BENCH_GPUS:-auto}

if [ -n "${OUT:-}" ]; then
	outdir=$OUT
	mkdir -p "$outdir"
else
	outdir=$(mktemp -d /tmp/load_bench.XXXXXX)
fi
work=$(mktemp -d /tmp/load_bench_work.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

note() { printf 'load_bench: %s\n' "$*"; }
die() { printf 'load_bench: %s\n' "$*" >&2; exit 1; }
in_list() {	# word, list
	case " $2 " in *" $1 "*) return 0 ;; esac
	return 1
}
q() { psql -XAtq -v ON_ERROR_STOP=1 "$@"; }

# --- sizes: name -> keys, rows; table names
declare -A size_n size_rows size_tab
size_list=()
for s in $sizes; do
	name=${s%%:*}
	case $name in
		*k) n=$(( ${name%k} * 1000 )) ;;
		*M) n=$(( ${name%M} * 1000000 )) ;;
		*[0-9]) n=$name ;;
		*) die "size $s: expected 20k, 1M, 16M, a number, optionally :ROWS" ;;
	esac
	if [ "$s" != "$name" ]; then
		rows=${s#*:}
	elif [ "$n" -le 100000 ]; then
		rows=32
	elif [ "$n" -le 2000000 ]; then
		rows=16
	else
		rows=4
	fi
	size_n[$name]=$n
	size_rows[$name]=$rows
	size_tab[$name]=$(echo "$name" | tr '[:upper:]' '[:lower:]')
	size_list+=("$name")
done

# --- points: "size form mode clients" (the GPUs are applied when run)
points=()
add_point() {	# size form mode clients: only what the lists allow
	in_list "$1" "${size_list[*]}" && in_list "$2" "$forms" && in_list "$3" "$modes" &&
		in_list "$4" "$clients" && points+=("$1 $2 $3 $4")
	return 0
}
if [ "$what" = quick ]; then
	for m in cpu gpu auto; do
		add_point 1M count "$m" 64
		add_point 1M build "$m" 64
		add_point 20k count "$m" 64
		add_point 16M count "$m" 1
	done
	add_point 20k floor cpu 64
else
	for sz in "${size_list[@]}"; do
		for f in $forms; do
			for m in $modes; do
				# (the floor calls no setops: once, as cpu)
				[ "$f" = floor ] || [ "$f" = sleep ] && [ "$m" != cpu ] && continue
				for c in $clients; do add_point "$sz" "$f" "$m" "$c"; done
			done
		done
	done
fi
[ ${#points[@]} -gt 0 ] || die "no point to run (sizes: ${size_list[*]}, forms: $forms, modes: $modes, clients: $clients)"
needed_sizes=()
for sz in "${size_list[@]}"; do
	for p in "${points[@]}"; do
		if [ "${p%% *}" = "$sz" ]; then needed_sizes+=("$sz"); break; fi
	done
done
max_clients=0
gpu_points=0	# points in gpu or auto mode (1 GPU against all)
gpu_mode=0		# points in gpu mode (they need a device)
for p in "${points[@]}"; do
	read -r _ _ m c <<<"$p"
	[ "$c" -gt "$max_clients" ] && max_clients=$c
	[ "$m" = cpu ] || gpu_points=1
	[ "$m" = gpu ] && gpu_mode=1
done

# --- the server: restarts, devices
restart_cmd=
if [ -n "${LOAD_BENCH_RESTART:-}" ]; then
	restart_cmd=custom
elif [ -d /tmp/pgb-data ] && [ -n "${PGRUN:-}" ]; then
	restart_cmd=default
fi

devices() {	# number of devices setops_devices() lists
	psql -XAtq -c 'SELECT count(*) FROM setops_devices()' 2>/dev/null
}

# restart_server GPUS ("0" or "all"): restarts, waits for the service,
# checks the postmaster's environment; sets ndev
restart_server() {
	local gpus=$1 t0=$SECONDS i env_file pm_pid want got
	note "restarting the server with GPUs: $gpus"
	if [ $restart_cmd = custom ]; then
		eval "$LOAD_BENCH_RESTART \"\$gpus\"" || die "LOAD_BENCH_RESTART failed ($LOAD_BENCH_RESTART $gpus)"
	elif [ "$gpus" = all ]; then
		# shellcheck disable=SC2086
		$PGRUN env -u CUDA_VISIBLE_DEVICES pg_ctl -D /tmp/pgb-data -w -l /tmp/pgb-server.log restart >/dev/null ||
			{ tail -n 30 /tmp/pgb-server.log; die "pg_ctl restart failed"; }
	else
		# shellcheck disable=SC2086
		$PGRUN env CUDA_VISIBLE_DEVICES="$gpus" pg_ctl -D /tmp/pgb-data -w -l /tmp/pgb-server.log restart >/dev/null ||
			{ tail -n 30 /tmp/pgb-server.log; die "pg_ctl restart failed"; }
	fi
	# the server accepts connections and the service answers
	for ((i = 0; i < 240; i++)); do
		ndev=$(devices) && [ -n "$ndev" ] && break
		ndev=
		sleep 0.5
	done
	[ -n "$ndev" ] || die "the server did not come back within 120 s of the restart"
	# the postmaster's environment (the service worker inherits it)
	if [ -r "$datadir/postmaster.pid" ]; then
		pm_pid=$(head -n 1 "$datadir/postmaster.pid")
		env_file=/proc/$pm_pid/environ
		if [ -r "$env_file" ]; then
			got=$(tr '\0' '\n' <"$env_file" | sed -n 's/^CUDA_VISIBLE_DEVICES=/=/p')
			if [ "$gpus" = all ]; then want=; else want="=$gpus"; fi
			[ "$got" = "$want" ] ||
				die "the postmaster (pid $pm_pid) has CUDA_VISIBLE_DEVICES${got:- unset}, not ${want:-unset}: check the restart command"
		else
			note "cannot read $env_file: the postmaster's CUDA_VISIBLE_DEVICES is not checked"
		fi
	else
		note "cannot read $datadir/postmaster.pid: the postmaster's CUDA_VISIBLE_DEVICES is not checked"
	fi
	note "server up with $ndev device(s) after $((SECONDS - t0)) s"
}

q -c 'SET client_min_messages = warning' -c 'CREATE EXTENSION IF NOT EXISTS setops' >/dev/null
ndev=$(devices)
ndev_all=$ndev
datadir=${LOAD_BENCH_PGDATA:-$(q -c 'SHOW data_directory' 2>/dev/null || true)}
if [ $gpu_mode = 1 ] && [ "$ndev" -eq 0 ]; then
	die "setops_devices() lists no device: gpu mode cannot run (preload setops, or LOAD_BENCH_MODES=\"cpu auto\")"
fi
restarted=0
raised_conn=0

# one GPU against all
gpu_configs=(all)
if [ $gpu_points = 0 ]; then
	:
elif [ "$gpu_dim" = off ]; then
	note "LOAD_BENCH_GPUS=off: one GPU against all skipped"
elif [ -z "$restart_cmd" ]; then
	note "no way to restart the server (LOAD_BENCH_RESTART unset, no /tmp/pgb-data with PGRUN): one GPU against all skipped"
elif [ "$ndev" -eq 0 ]; then
	note "setops_devices() lists no device: one GPU against all skipped"
elif [ "$ndev" -lt 2 ] && [ "$gpu_dim" != force ]; then
	note "setops_devices() lists $ndev device: one GPU against all skipped"
else
	gpu_configs=(all 0)
fi

# connections: the clients, and a few for psql
max_conn=$(q -c 'SHOW max_connections')
if [ $((max_clients + 3)) -gt "$max_conn" ]; then
	if [ -n "$restart_cmd" ] && [ "$gpu_dim" != off ]; then
		note "max_connections $max_conn < $max_clients clients: ALTER SYSTEM SET max_connections = $((max_clients + 20)), restart"
		q -c "ALTER SYSTEM SET max_connections = $((max_clients + 20))" >/dev/null
		raised_conn=1
		restart_server all
		ndev_all=$ndev
		restarted=1
	else
		note "max_connections is $max_conn and the server cannot be restarted: points over $((max_conn - 3)) clients skipped"
		keep=()
		for p in "${points[@]}"; do
			read -r _ _ _ c <<<"$p"
			[ "$c" -le $((max_conn - 3)) ] && keep+=("$p")
		done
		points=("${keep[@]}")
	fi
fi

# --- data: tables of stored rows and their expected answers
gen_t0=$SECONDS
q <<'SQL' >/dev/null
SET client_min_messages = warning;
CREATE SCHEMA IF NOT EXISTS load_bench;
CREATE TABLE IF NOT EXISTS load_bench.sizes (name text PRIMARY KEY, n int8, nrows int, gen_s float8);
SQL
par=$ncpu
[ "$par" -gt 16 ] && par=16
gen_report=()
for sz in "${needed_sizes[@]}"; do
	n=${size_n[$sz]}
	rows=${size_rows[$sz]}
	tab=${size_tab[$sz]}
	if [ "$(q -c "SELECT count(*) FROM load_bench.sizes WHERE name = '$tab' AND n = $n AND nrows = $rows")" = 1 ]; then
		gen_report+=("$sz: reused")
		continue
	fi
	t0=$(date +%s.%N)
	q <<SQL >/dev/null
SET client_min_messages = warning;
DELETE FROM load_bench.sizes WHERE name = '$tab';
DROP TABLE IF EXISTS load_bench.t_$tab, load_bench.e_$tab;
CREATE TABLE load_bench.t_$tab (id int PRIMARY KEY, a int4[] NOT NULL);
ALTER TABLE load_bench.t_$tab ALTER a SET STORAGE EXTERNAL;
CREATE TABLE load_bench.e_$tab (i int, j int, cnt int8, ovl bool, card int8,
                                p1 int, s1 int4, p2 int, s2 int4, PRIMARY KEY (i, j));
SQL
	# row r: key g is (g * s + [0, s)) / 4 with s = 5, 6 or 7: sorted, about
	# 4/s keys a slot, some keys twice; a row a session
	seq 1 "$rows" | xargs -P "$par" -I{} psql -XAtq -v ON_ERROR_STOP=1 -c "
		INSERT INTO load_bench.t_$tab
		SELECT {}, ARRAY(SELECT ((g * p.s + floor(random() * p.s)::int8) / 4)::int4
		                 FROM generate_series(1::int8, $n) g)
		FROM (SELECT 5 + {} % 3 AS s) p" >/dev/null ||
		die "generating the rows of $sz failed"
	t1=$(date +%s.%N)
	# the CPU engine's answers, every (i, j): a row i a session
	seq 1 "$rows" | xargs -P "$par" -I{} psql -XAtq -v ON_ERROR_STOP=1 -c 'SET setops.device = cpu' -c "
		INSERT INTO load_bench.e_$tab
		SELECT i, j, cnt, ovl, cardinality(r), p1, r[p1], cardinality(r), r[cardinality(r)]
		FROM (SELECT x.id AS i, y.id AS j, array_intersect_count(x.a, y.a) AS cnt,
		             array_overlaps(x.a, y.a) AS ovl, array_intersect_gpu(x.a, y.a) AS r
		      FROM load_bench.t_$tab x, load_bench.t_$tab y WHERE x.id = {} OFFSET 0) s,
		     LATERAL (SELECT 1 + (i * 7919 + j * 31) % greatest(cardinality(r), 1) AS p1) p" >/dev/null ||
		die "computing the expected answers of $sz failed"
	t2=$(date +%s.%N)
	got=$(q -c "SELECT (SELECT count(*) FROM load_bench.t_$tab) || ' ' || (SELECT count(*) FROM load_bench.e_$tab)")
	[ "$got" = "$rows $((rows * rows))" ] || die "$sz: $got rows and expected answers, not $rows $((rows * rows))"
	gen_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	exp_s=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", b - a }')
	q -c "INSERT INTO load_bench.sizes VALUES ('$tab', $n, $rows, $gen_s + $exp_s)" >/dev/null
	gen_report+=("$sz ($rows rows): rows $(printf %.1f "$gen_s") s, expected answers $(printf %.1f "$exp_s") s")
done
q -c 'ANALYZE load_bench.sizes' >/dev/null
note "data ready in $((SECONDS - gen_t0)) s: $(IFS=';'; echo "${gen_report[*]}")"

# --- the pgbench scripts: one query a transaction, checked in that query
for sz in "${needed_sizes[@]}"; do
	tab=${size_tab[$sz]}
	rows=${size_rows[$sz]}
	for f in count predicate build floor sleep; do
		case $f in
			count)
				expr='array_intersect_count(x.a, y.a)'
				ok='g.r = e.cnt'
				got="coalesce(g.r::text, 'NULL') || ', expected ' || e.cnt"
				;;
			predicate)
				expr='array_overlaps(x.a, y.a)'
				ok='g.r = e.ovl'
				got="coalesce(g.r::text, 'NULL') || ', expected ' || e.ovl"
				;;
			build)
				expr='array_intersect_gpu(x.a, y.a)'
				ok='cardinality(g.r) = e.card AND g.r[e.p1] IS NOT DISTINCT FROM e.s1 AND g.r[e.p2] IS NOT DISTINCT FROM e.s2'
				got="coalesce(cardinality(g.r) || ' elements, [' || e.p1 || '] ' || coalesce(g.r[e.p1]::text, 'NULL') || ', [' || e.p2 || '] ' || coalesce(g.r[e.p2]::text, 'NULL'), 'NULL') || ', expected ' || e.card || ', ' || coalesce(e.s1::text, 'NULL') || ', ' || coalesce(e.s2::text, 'NULL')"
				;;
			floor)
				# the same transaction without a setops call: the host's own latency
				expr='x.id + y.id'
				ok='g.r = e.i + e.j'
				got="coalesce(g.r::text, 'NULL') || ', expected ' || (e.i + e.j)"
				;;
			sleep)
				# the floor with a sleep on the backend's latch, woken by a timer
				expr='(SELECT x.id + y.id FROM pg_sleep(0.0001))'
				ok='g.r = e.i + e.j'
				got="coalesce(g.r::text, 'NULL') || ', expected ' || (e.i + e.j)"
				;;
		esac
		cat >"$work/$sz.$f.sql" <<EOF
\\set i random(1, $rows)
\\set j random(1, $rows)
SELECT CASE WHEN $ok THEN 1
            ELSE ('load_bench: $f of rows ' || e.i || ', ' || e.j || ' of t_$tab gave ' || $got)::int END
FROM load_bench.e_$tab e
     LEFT JOIN LATERAL (SELECT $expr AS r FROM load_bench.t_$tab x, load_bench.t_$tab y
                        WHERE x.id = e.i AND y.id = e.j OFFSET 0) g ON true
WHERE e.i = :i AND e.j = :j;
EOF
	done
done

# every row read once in each mode that uses the GPU (the device cache)
touch_rows() {
	local sz m
	for sz in "${needed_sizes[@]}"; do
		for m in gpu auto; do
			in_list "$m" "$modes" || continue
			PGOPTIONS="$base_pgoptions -c setops.device=$m" q -c "
				SELECT sum(array_intersect_count(x.a, y.a)) FROM load_bench.t_${size_tab[$sz]} x
				JOIN load_bench.t_${size_tab[$sz]} y ON y.id = x.id % ${size_rows[$sz]} + 1" >/dev/null ||
				note "reading the rows of $sz in $m mode failed"
		done
	done
}

# --- the points
tsv=$outdir/load_bench.tsv
printf 'size\tform\tmode\tgpus\tclients\ttps\tp50_ms\tp99_ms\tfailures\ttransactions\tgpu_share\thost_busy\tservice_cores\tdispatch_busy\treqs_per_launch\tpgbench_cores\tqueue_us:trip_us\tbackend_cores\tirq_cores\tcs_per_tx\tbackend_rq_us/cpu_us\trq_main:run:exec:pgbench\n' >"$tsv"
header=$(printf '%-5s %-9s %-4s %4s %7s %10s %9s %9s %8s %9s %9s %9s %8s %9s %7s %s' size form mode gpus clients tps p50_ms p99_ms failures gpu_share host_busy svc_cores dispatch per_launch pgbench queue_us:trip_us)
total_failures=0
pid_n=0

# failures of one pgbench output (and its exit status)
pgbench_failures() {	# log rc
	local failed aborted
	failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$1")
	aborted=$(grep -cE 'client [0-9]+ (script [0-9]+ )?aborted' "$1" || true)
	failed=$(( ${failed:-0} + aborted ))
	[ "$2" -ne 0 ] && [ $failed -eq 0 ] && failed=1
	grep -q 'number of transactions actually processed: [1-9]' "$1" || [ $failed -gt 0 ] || failed=1
	echo $failed
}

# the GPU service's counters, one line: requests taken (all devices), its
# main thread's summed time handing requests on (ms), then each device's
# requests, launches, summed queue waits and launch times (ms)
# "r:l:w:t r:l:w:t ..." (empty without the service)
service_counters() {
	psql -XAtq -F ' ' -c "SELECT sum(requests), max(dispatch_ms),
		string_agg(requests || ':' || launches || ':' || wait_ms || ':' || run_ms, ' ' ORDER BY device)
		FROM setops_service_stats() HAVING count(*) > 0" 2>/dev/null
}

# the CPU seconds (user + system) of this shell's finished children: bash's
# times (run in this shell, not a subshell, whose children are its own),
# second line
children_cpu_s() {	# file
	times >"$1"
	sed -n 2p "$1" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, p, /m|s/); s += p[1] * 60 + p[2] } printf "%.3f", s }'
	rm -f "$1"
}

# busy and total CPU ticks of the host (/proc/stat), and the GPU service's own
# (its worker process, every thread): where a point's CPU time went
host_ticks() {	# busy, all, irq + softirq, context switches
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; b = t - $5 - $6; a = t; q = $7 + $8 }
		$1 == "ctxt" { print b, a, q, $2; exit }' /proc/stat
}
# shellcheck source=test/bench/service_ticks.sh
. "$(dirname "$0")/service_ticks.sh"

run_point() {	# size form mode clients gpus-label
	local sz=$1 f=$2 m=$3 c=$4 gl=$5 j rc fails tps xacts lat p50 p99
	j=$(( ncpu < c ? ncpu : c ))
	pid_n=$((pid_n + 1))
	local pre=$work/log$pid_n
	export PGOPTIONS="$base_pgoptions -c setops.device=$m"
	rc=0
	if [ "$warmup" -gt 0 ]; then
		pgbench -n -M prepared -c "$c" -j "$j" -T "$warmup" -f "$work/$sz.$f.sql" >"$pre.warm" 2>&1 || rc=$?
	else
		pgbench -n -M prepared -c "$c" -j "$j" -t 2 -f "$work/$sz.$f.sql" >"$pre.warm" 2>&1 || rc=$?
	fi
	fails=$(pgbench_failures "$pre.warm" $rc)
	rc=0
	svc0=$(service_ticks)
	read -r req0 disp0 launch0 <<<"$(service_counters)"
	# (the warm-up's backends reaped first: their time is not the run's)
	sleep 0.3
	reaped0=$(reaped_ticks)
	t0=$(date +%s.%N)
	read -r busy0 all0 irq0 cs0 < <(host_ticks)
	children_cpu_s "$pre.times" >"$pre.cpu0"
	sched_pm=$(head -n 1 "$datadir/postmaster.pid" 2>/dev/null) || sched_pm=
	sched_svc=$(service_process "$sched_pm")
	pgbench -n -M prepared -c "$c" -j "$j" -T "$seconds" -f "$work/$sz.$f.sql" \
		-l --log-prefix="$pre.xact" >"$pre.out" 2>&1 &
	pgb_pid=$!
	# where the middle half of the run waited for cores (schedstat, two samples)
	sleep "$(awk -v s="$seconds" 'BEGIN { print s / 4 }')"
	sched0=$(sched_sample "$pgb_pid"); ts0=$(date +%s.%N)
	sleep "$(awk -v s="$seconds" 'BEGIN { print s / 2 }')"
	sched1=$(sched_sample "$pgb_pid"); ts1=$(date +%s.%N)
	# (a sample that ended after the run is not the run's)
	kill -0 "$pgb_pid" 2>/dev/null || sched1=-
	wait "$pgb_pid" || rc=$?
	children_cpu_s "$pre.times" >"$pre.cpu1"
	cpu0=$(cat "$pre.cpu0"); cpu1=$(cat "$pre.cpu1"); rm -f "$pre.cpu0" "$pre.cpu1"
	read -r busy1 all1 irq1 cs1 < <(host_ticks)
	t1=$(date +%s.%N)
	read -r req1 disp1 launch1 <<<"$(service_counters)"
	svc1=$(service_ticks)
	sleep 0.3
	reaped1=$(reaped_ticks)
	# requests a launch on each device during the run ("-" where none ran):
	# how many requests shared each trip to the GPU
	per_launch=$(awk -v a="$launch0" -v b="$launch1" 'BEGIN {
		n = split(a, x, " "); split(b, y, " "); out = ""
		for (i = 1; i <= n; i++) {
			split(x[i], p, ":"); split(y[i], q, ":")
			l = q[2] - p[2]; r = q[1] - p[1]
			out = out (i > 1 ? "/" : "") (l > 0 ? sprintf("%.1f", r / l) : "-")
		}
		print (n > 0 ? out : "-") }')
	# each device's mean queue wait a request and time a launch (us)
	gpu_path=$(awk -v a="$launch0" -v b="$launch1" 'BEGIN {
		n = split(a, x, " "); split(b, y, " "); out = ""
		for (i = 1; i <= n; i++) {
			split(x[i], p, ":"); split(y[i], q, ":")
			r = q[1] - p[1]; l = q[2] - p[2]
			out = out (i > 1 ? "/" : "") (r > 0 ? sprintf("%.0f", (q[3] - p[3]) * 1000 / r) : "-") ":" \
				(l > 0 ? sprintf("%.0f", (q[4] - p[4]) * 1000 / l) : "-")
		}
		print (n > 0 ? out : "-") }')
	# the cores pgbench kept busy (its threads: clients' work, not the server's)
	pgb_cores=$(awk -v c0="$cpu0" -v c1="$cpu1" -v t0="$t0" -v t1="$t1" \
		'BEGIN { printf "%.2f", (t1 > t0 ? (c1 - c0) / (t1 - t0) : 0) }')
	# the host's CPUs busy (share), and the cores the service's threads kept busy
	host_busy=$(awk -v b=$((busy1 - busy0)) -v a=$((all1 - all0)) 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')
	backend_cores=-
	[ "$reaped0" != - ] && [ "$reaped1" != - ] &&
		backend_cores=$(awk -v s=$((reaped1 - reaped0)) -v a=$((all1 - all0)) -v n="$ncpu" \
			'BEGIN { printf "%.2f", (a > 0 ? s * n / a : 0) }')
	irq_cores=$(awk -v s=$((irq1 - irq0)) -v a=$((all1 - all0)) -v n="$ncpu" \
		'BEGIN { printf "%.2f", (a > 0 ? s * n / a : 0) }')
	svc_cores=-
	[ "$svc0" != - ] && [ "$svc1" != - ] &&
		svc_cores=$(awk -v s=$((svc1 - svc0)) -v a=$((all1 - all0)) -v n="$ncpu" \
			'BEGIN { printf "%.2f", (a > 0 ? s * n / a : 0) }')
	# the share of the run the main thread spent handing requests on
	dispatch=-
	[ -n "$disp0" ] && [ -n "$disp1" ] &&
		dispatch=$(awk -v d0="$disp0" -v d1="$disp1" -v t0="$t0" -v t1="$t1" \
			'BEGIN { printf "%.2f", (t1 > t0 ? (d1 - d0) / ((t1 - t0) * 1000) : 0) }')
	unset PGOPTIONS
	fails=$(( fails + $(pgbench_failures "$pre.out" $rc) ))
	tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time).*/\1/p' "$pre.out")
	tps=$(printf '%.1f' "${tps:-0}")
	# latencies (us, third field) of the transactions that completed
	lat=$(cat "$pre.xact".* 2>/dev/null | awk '$3 ~ /^[0-9]+$/ { print $3 }' | sort -n |
		awk '{ v[NR] = $1 } END {
			if (NR == 0) { print 0, "-", "-"; exit }
			i50 = int((NR * 50 + 99) / 100); i99 = int((NR * 99 + 99) / 100)
			printf "%d %.3f %.3f\n", NR, v[i50] / 1000, v[i99] / 1000 }')
	read -r xacts p50 p99 <<<"$lat"
	cs_tx=$(awk -v c=$((cs1 - cs0)) -v x="$xacts" 'BEGIN { printf "%.1f", (x > 0 ? c / x : 0) }')
	read -r backend_rq svc_rq <<<"$(sched_delta "$sched0" "$sched1" \
		"$(awk -v a="$ts0" -v b="$ts1" 'BEGIN { print b - a }')" \
		"$(awk -v a="$ts0" -v b="$ts1" -v t="${tps:-0}" 'BEGIN { print (b - a) * t }')")"
	rm -f "$pre.xact".*
	# the GPU's share of the calls: the service's requests over transactions
	# (one call a transaction; a split request counts once a device)
	share=-
	[ "$xacts" -gt 0 ] && [ -n "$req0" ] && [ -n "$req1" ] &&
		share=$(awk -v r=$((req1 - req0)) -v x="$xacts" 'BEGIN { printf "%.3f", r / x }')
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$sz" "$f" "$m" "$gl" "$c" "$tps" "$p50" "$p99" "$fails" "$xacts" "$share" "$host_busy" "$svc_cores" "$dispatch" "$per_launch" "$pgb_cores" "$gpu_path" "$backend_cores" "$irq_cores" "$cs_tx" "$backend_rq" "$svc_rq" >>"$tsv"
	printf '%-5s %-9s %-4s %4s %7s %10s %9s %9s %8s %9s %9s %9s %8s %9s %7s %s\n' "$sz" "$f" "$m" "$gl" "$c" "$tps" "$p50" "$p99" "$fails" "$share" "$host_busy" "$svc_cores" "$dispatch" "$per_launch" "$pgb_cores" "$gpu_path"
	if [ "$fails" -gt 0 ]; then
		total_failures=$((total_failures + fails))
		grep -hE 'error|ERROR|FATAL' "$pre.warm" "$pre.out" | head -n 5 | sed 's/^/      /'
	fi
	rm -f "$pre.warm" "$pre.out"
}

note "$what: ${#points[@]} points x GPU configurations (${gpu_configs[*]}), -T $seconds, warm-up $warmup s, $ncpu CPUs"
echo "$header"
for cfg in "${gpu_configs[@]}"; do
	if [ "$cfg" != all ]; then
		restart_server "$cfg"
		restarted=1
		[ "$ndev" -eq 1 ] || die "with CUDA_VISIBLE_DEVICES=$cfg setops_devices() lists $ndev devices, not 1"
		echo "$header"
	fi
	gl=$ndev
	if [ "$cfg" = all ]; then
		gl=$ndev_all
		# (LOAD_BENCH_GPUS=force with one device: both would read 1)
		[ ${#gpu_configs[@]} -gt 1 ] && [ "$ndev_all" -lt 2 ] && gl=all
	fi
	touch_rows
	for p in "${points[@]}"; do
		read -r sz f m c <<<"$p"
		if [ "$m" = cpu ]; then
			[ "$cfg" = all ] || continue
			run_point "$sz" "$f" "$m" "$c" -
		else
			run_point "$sz" "$f" "$m" "$c" "$gl"
		fi
	done
done
if [ $restarted = 1 ]; then
	# back to all GPUs (and max_connections as found)
	[ $raised_conn = 1 ] && q -c 'ALTER SYSTEM RESET max_connections' >/dev/null
	restart_server all
fi
[ "${LOAD_BENCH_KEEP:-0}" = 1 ] || q -c 'SET client_min_messages = warning' -c 'DROP SCHEMA load_bench CASCADE' >/dev/null

# --- ratios, from the table
summary=$outdir/load_bench_summary.txt
awk -F'\t' -v big="${size_list[${#size_list[@]}-1]}" '
NR == 1 { next }
{
	k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4 SUBSEP $5
	tps[k] = $6; p50[k] = $7; p99[k] = $8
	if ($3 != "cpu") { g[$4] = 1; sz_form_clients[$1 SUBSEP $2 SUBSEP $5] = 1 }
	if ($3 == "gpu" && $5 + 0 > maxc) maxc = $5 + 0
	if ($3 == "gpu" && $5 == 64) c64 = 1
	order[++n] = k
}
function r(a, b) { return (a == "" || b == "" || b + 0 == 0 || a == "-" || b == "-") ? "-" : sprintf("%.2f", a / b) }
function num(x) { return x == "all" ? 1e9 : x + 0 }
function max(a, b) { return (a + 0 > b + 0) ? a : b }
END {
	ngpu = 0; for (x in g) gl[++ngpu] = x
	# GPU labels ascending
	for (i = 1; i <= ngpu; i++) for (j = i + 1; j <= ngpu; j++) if (num(gl[j]) < num(gl[i])) { t = gl[i]; gl[i] = gl[j]; gl[j] = t }
	print "== gpu/cpu and auto/max(cpu, gpu) tps"
	printf "%-5s %-9s %4s %7s %10s %10s %10s %8s %14s\n", "size", "form", "gpus", "clients", "cpu_tps", "gpu_tps", "auto_tps", "gpu/cpu", "auto/max"
	for (i = 1; i <= n; i++) {
		split(order[i], f, SUBSEP)
		if (f[3] != "gpu" && !(f[3] == "auto" && !((f[1] SUBSEP f[2] SUBSEP "gpu" SUBSEP f[4] SUBSEP f[5]) in tps))) continue
		c = tps[f[1] SUBSEP f[2] SUBSEP "cpu" SUBSEP "-" SUBSEP f[5]]
		gk = f[1] SUBSEP f[2] SUBSEP "gpu" SUBSEP f[4] SUBSEP f[5]
		ak = f[1] SUBSEP f[2] SUBSEP "auto" SUBSEP f[4] SUBSEP f[5]
		gt = (gk in tps) ? tps[gk] : ""; at = (ak in tps) ? tps[ak] : ""
		printf "%-5s %-9s %4s %7s %10s %10s %10s %8s %14s\n", f[1], f[2], f[4], f[5], c == "" ? "-" : c,
			gt == "" ? "-" : gt, at == "" ? "-" : at, r(gt, c), (c == "" || gt == "") ? "-" : r(at, max(c, gt))
	}
	print "== all GPUs / 1 GPU tps, gpu mode"
	if (ngpu < 2) print "   (one GPU configuration only: not measured)"
	else {
		printf "%-5s %-9s %7s %10s %10s %8s\n", "size", "form", "clients", "tps_" gl[1], "tps_" gl[ngpu], "ratio"
		for (i = 1; i <= n; i++) {
			split(order[i], f, SUBSEP)
			if (f[3] != "gpu" || f[4] != gl[ngpu]) continue
			one = tps[f[1] SUBSEP f[2] SUBSEP "gpu" SUBSEP gl[1] SUBSEP f[5]]
			printf "%-5s %-9s %7s %10s %10s %8s\n", f[1], f[2], f[5], one == "" ? "-" : one, tps[order[i]], r(tps[order[i]], one)
		}
	}
	at_c = c64 ? 64 : maxc
	print "== p99/p50 latency, gpu mode, " (at_c ? at_c : "64") " clients"
	if (!at_c) print "   (no gpu-mode point)"
	else printf "%-5s %-9s %4s %9s %9s %8s\n", "size", "form", "gpus", "p50_ms", "p99_ms", "p99/p50"
	for (i = 1; i <= n; i++) {
		split(order[i], f, SUBSEP)
		if (f[3] != "gpu" || f[5] != at_c || f[2] == "floor" || f[2] == "sleep") continue
		printf "%-5s %-9s %4s %9s %9s %8s\n", f[1], f[2], f[4], p50[order[i]], p99[order[i]], r(p99[order[i]], p50[order[i]])
	}
	for (i = 1; i <= n; i++) {
		split(order[i], f, SUBSEP)
		if (f[2] == "floor" && f[5] == at_c)
			printf "%-5s %-9s %4s %9s %9s %8s   (the same query without a setops call: the host'"'"'s own spread)\n", f[1], f[2], "-", p50[order[i]], p99[order[i]], r(p99[order[i]], p50[order[i]])
	}
	print "== single request: count of stored " big " rows, 1 client, gpu mode: median latency (ms)"
	found = 0
	for (i = 1; i <= ngpu; i++) {
		k = big SUBSEP "count" SUBSEP "gpu" SUBSEP gl[i] SUBSEP 1
		if (k in p50) { printf "   %s GPU(s): %s ms\n", gl[i], p50[k]; lat[i] = p50[k]; found++ }
	}
	ck = big SUBSEP "count" SUBSEP "cpu" SUBSEP "-" SUBSEP 1
	if (ck in p50) printf "   cpu: %s ms\n", p50[ck]
	if (found == 0) print "   (gpu mode not measured)"
	else if (ngpu >= 2 && lat[1] != "" && lat[ngpu] != "")
		printf "   %s GPUs / 1 GPU latency: %s\n", gl[ngpu], r(lat[ngpu], lat[1])
}' "$tsv" >"$summary"
echo
cat "$summary"
echo
echo "== table ($tsv)"
column -t -s "$(printf '\t')" "$tsv" 2>/dev/null || cat "$tsv"
if [ $total_failures -gt 0 ]; then
	echo "load_bench: FAILED: $total_failures failures (wrong answers, errors or aborted clients)"
	exit 1
fi
echo "load_bench: $what passed (${#points[@]} points, no failure)"
