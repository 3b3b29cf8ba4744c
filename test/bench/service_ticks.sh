# test/bench/service_ticks.sh: sourced by the benchmarks that report the GPU
# service's CPU time (load_bench.sh, auto_reasons.sh).
#
# cluster_postmaster: the running cluster's postmaster's PID (its data
# directory's postmaster.pid), empty where it cannot be read.
cluster_postmaster() {
	head -n 1 "$(psql -XAtq -c 'SHOW data_directory' 2>/dev/null)/postmaster.pid" 2>/dev/null || true
}

# service_process PM: the GPU service's PID among PM's children, empty if
# none.  A worker without a database connection is not in pg_stat_activity:
# it is the newest process of that title among the postmaster's children.
service_process() {
	pgrep -n -P "${1:-0}" -f 'setops GPU service' 2>/dev/null || true
}

# service_ticks: the CPU ticks (user + system, every thread) of the running
# cluster's GPU service process, or "-" where it cannot be read.
service_ticks() {
	local pid
	pid=$(service_process "$(cluster_postmaster)")
	[ -n "$pid" ] && [ -r "/proc/$pid/stat" ] || { echo -; return; }
	# (fields after the command's closing parenthesis: utime and stime are the 12th and 13th)
	sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $12 + $13 }'
}

# reaped_ticks: the CPU ticks (user + system) of the running cluster's
# processes that have exited and been reaped by its postmaster (its cutime
# and cstime): a pgbench run's backends, once pgbench has disconnected and
# the postmaster has waited for them; "-" where it cannot be read.
reaped_ticks() {
	local pm
	pm=$(cluster_postmaster)
	[ -n "$pm" ] && [ -r "/proc/$pm/stat" ] || { echo -; return; }
	sed 's/.*) //' "/proc/$pm/stat" | awk '{ print $14 + $15 }'
}

# sched_sample [pgbench-pid]: the run-queue delay (ns waiting for a CPU
# while runnable: /proc/PID/task/TID/schedstat, second field) and CPU time
# (first field) of the running cluster's threads, a word "kind/tid/delay/cpu"
# each, kinds:
#   backends: every child of the postmaster but the GPU service (the
#     auxiliary processes too: idle next to the sessions)
#   main, run, exec, other: the GPU service's threads by their names (its
#     main thread; "setops runD.K" count runners; "setops execD.S"
#     executors; any other)
#   pgbench: the given process's threads
# Two samples apart (sched_delta) give where a transaction waited for a
# core; "-" where nothing can be read.  sched_pm and sched_svc, when set,
# name the postmaster and the service (saves a query and a pgrep).
sched_sample() {	# [pgbench pid]
	local pm svc p t kind name a b c out=
	pm=${sched_pm:-$(cluster_postmaster)}
	[ -n "$pm" ] && [ -r "/proc/$pm/schedstat" ] || { echo -; return; }
	svc=${sched_svc-$(service_process "$pm")}
	# (builtins only past here: on a busy host each fork is slow)
	for p in $(pgrep -P "$pm"); do
		[ "$p" = "$svc" ] && continue
		read -r a b c 2>/dev/null <"/proc/$p/schedstat" && out+=" backends/$p/$b/$a"
	done
	if [ -n "$svc" ]; then
		for t in /proc/"$svc"/task/*; do
			kind=other
			read -r name 2>/dev/null <"$t/comm" || continue
			case $name in
				"setops run"*) kind=run ;;
				"setops exec"*) kind=exec ;;
			esac
			[ "${t##*/}" = "$svc" ] && kind=main
			read -r a b c 2>/dev/null <"$t/schedstat" && out+=" $kind/${t##*/}/$b/$a"
		done
	fi
	if [ -n "${1:-}" ]; then
		for t in /proc/"$1"/task/*; do
			read -r a b c 2>/dev/null <"$t/schedstat" && out+=" pgbench/${t##*/}/$b/$a"
		done
	fi
	echo "${out# }"
}

# sched_delta "before" "after" seconds transactions: from two sched_samples
# (threads in both only), "rq_us/cpu_us" for the backends (a transaction's
# wait for a core, and its backend's CPU time), and for each of main, run,
# exec, pgbench the share of its threads' time spent waiting for a core
# (delay / (threads x wall)), "main:run:exec:pgbench"; "-" where missing.
sched_delta() {	# before after seconds transactions
	[ "$1" != - ] && [ "$2" != - ] || { echo "- -"; return; }
	awk -v a="$1" -v b="$2" -v s="$3" -v x="$4" 'BEGIN {
		na = split(a, p, " ")
		for (i = 1; i <= na; i++) { split(p[i], f, "/"); d0[f[1] "/" f[2]] = f[3]; c0[f[1] "/" f[2]] = f[4] }
		nb = split(b, q, " ")
		for (i = 1; i <= nb; i++) {
			split(q[i], f, "/"); k = f[1] "/" f[2]
			if (!(k in d0)) continue
			dd[f[1]] += f[3] - d0[k]; dc[f[1]] += f[4] - c0[k]; nt[f[1]]++
		}
		if (x > 0 && nt["backends"] > 0) printf "%.1f/%.1f ", dd["backends"] / x / 1000, dc["backends"] / x / 1000
		else printf "-/- "
		out = ""
		split("main run exec pgbench", k4, " ")
		for (i = 1; i <= 4; i++)
			out = out (i > 1 ? ":" : "") (nt[k4[i]] > 0 && s > 0 ? sprintf("%.2f", dd[k4[i]] / (nt[k4[i]] * s * 1e9)) : "-")
		print out }'
}
