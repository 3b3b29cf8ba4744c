# test/bench/service_ticks.sh: sourced by the benchmarks that report the GPU
# service's CPU time (load_bench.sh, auto_reasons.sh).
#
# service_ticks: the CPU ticks (user + system, every thread) of the running
# cluster's GPU service process, or "-" where it cannot be read.  A worker
# without a database connection is not in pg_stat_activity: it is the
# newest process of that title among the children of this cluster's
# postmaster.
service_ticks() {
	local pid pm
	pm=$(head -n 1 "$(psql -XAtq -c 'SHOW data_directory' 2>/dev/null)/postmaster.pid" 2>/dev/null)
	pid=$(pgrep -n -P "${pm:-0}" -f 'setops GPU service' 2>/dev/null)
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
	pm=$(head -n 1 "$(psql -XAtq -c 'SHOW data_directory' 2>/dev/null)/postmaster.pid" 2>/dev/null)
	[ -n "$pm" ] && [ -r "/proc/$pm/stat" ] || { echo -; return; }
	sed 's/.*) //' "/proc/$pm/stat" | awk '{ print $14 + $15 }'
}
