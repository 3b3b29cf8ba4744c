/*
 * copy_test.c: setops_copy_split (engine/cpu/copy_threads.c) against memcpy.
 *
 * Sizes around the part threshold and its multiples, unaligned source and
 * destination, every thread count up to the maximum and beyond: each copy
 * must equal its source byte for byte and leave the guard bytes around it
 * untouched.  Then, while copies run over and over, a timer signals the
 * process: the helpers block every signal, so the handler must only ever
 * run on the calling thread.  Then work in chunks runs each chunk once
 * whatever the threads.  Last, the automatic thread count follows
 * the affinity mask: half its CPUs, 1 on a single CPU.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../engine/cpu/copy_threads.h"

#define GUARD 64
#define MB ((size_t) 1024 * 1024)

static int	failures = 0;

static void
check(int ok, const char *what, size_t bytes, int threads, size_t shift)
{
	if (!ok)
	{
		fprintf(stderr, "FAIL: %s (bytes %zu, threads %d, shift %zu)\n", what, bytes, threads, shift);
		failures++;
	}
}

static void
one_copy(unsigned char *src, unsigned char *dst_buf, size_t bytes, int threads, size_t shift)
{
	unsigned char *dst = dst_buf + GUARD + shift;
	size_t		i;

	memset(dst_buf, 0xA5, GUARD + shift);
	memset(dst + bytes, 0x5A, GUARD);
	setops_copy_split(dst, src + shift, bytes, threads);
	check(memcmp(dst, src + shift, bytes) == 0, "copy equals its source", bytes, threads, shift);
	for (i = 0; i < GUARD + shift; i++)
		if (dst_buf[i] != 0xA5)
			break;
	check(i == GUARD + shift, "bytes before the copy untouched", bytes, threads, shift);
	for (i = 0; i < GUARD; i++)
		if (dst[bytes + i] != 0x5A)
			break;
	check(i == GUARD, "bytes after the copy untouched", bytes, threads, shift);
}

static pthread_t main_thread;
static volatile sig_atomic_t signals_seen = 0;
static volatile sig_atomic_t signals_elsewhere = 0;

static void
on_alarm(int sig)
{
	(void) sig;
	signals_seen++;
	if (!pthread_equal(pthread_self(), main_thread))
		signals_elsewhere++;
}

/* setops_run_chunks: every chunk once, whatever the threads */
static void
count_run(void *arg, int chunk)
{
	__atomic_fetch_add((int *) arg + chunk, 1, __ATOMIC_RELAXED);
}

static void
check_chunks(void)
{
	int			chunks[] = {1, 2, 5, 64, 1000};
	int			threads[] = {0, 1, 2, 4, 16, 100};
	static int	runs[1000];
	size_t		c,
				t;
	int			i;

	for (c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++)
		for (t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
		{
			memset(runs, 0, sizeof(runs));
			setops_run_chunks(count_run, runs, chunks[c], threads[t]);
			for (i = 0; i < chunks[c]; i++)
				if (runs[i] != 1)
					break;
			check(i == chunks[c], "every chunk run once", (size_t) chunks[c], threads[t], 0);
		}
}

/* the automatic count: 1 in a child pinned to one CPU, else half the CPUs */
static void
check_auto_threads(void)
{
	long		online = sysconf(_SC_NPROCESSORS_ONLN);
	int			t = setops_auto_threads();
	pid_t		child;
	int			status = 0;

	check(t >= 1 && t <= SETOPS_COPY_THREADS_MAX && t <= (online > 1 ? online / 2 : 1) &&
		  t == setops_auto_threads(), "automatic threads: half the CPUs, 1 to the maximum", 0, t, 0);
	fflush(NULL);
	child = fork();
	if (child == 0)
	{
		cpu_set_t	one;

		CPU_ZERO(&one);
		CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
		if (sched_setaffinity(0, sizeof(one), &one) != 0)
			_exit(0);			/* cannot pin: nothing to check */
		_exit(setops_auto_threads() == 1 ? 0 : 1);
	}
	check(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
		  WEXITSTATUS(status) == 0, "automatic threads on one pinned CPU: 1", 0, 1, 0);
}

int
main(void)
{
	size_t		max_bytes = 64 * MB + 4096;
	unsigned char *src = malloc(max_bytes + 64);
	unsigned char *dst_buf = malloc(max_bytes + 2 * GUARD + 64);
	size_t		sizes[] = {0, 1, 7, 4096, SETOPS_COPY_PART_MIN_BYTES - 1, SETOPS_COPY_PART_MIN_BYTES,
		2 * SETOPS_COPY_PART_MIN_BYTES - 1, 2 * SETOPS_COPY_PART_MIN_BYTES + 1, 24 * MB + 13,
	64 * MB + 3};
	int			threads[] = {0, 1, 2, 3, 4, 7, 16, 100};
	size_t		shifts[] = {0, 1, 13, 4095};
	size_t		i,
				t,
				s;
	struct sigaction sa;
	struct itimerval every_ms = {{0, 1000}, {0, 1000}};
	struct itimerval off = {{0, 0}, {0, 0}};
	int			rounds = 0;

	if (src == NULL || dst_buf == NULL)
		return 2;
	for (i = 0; i < max_bytes + 64; i++)
		src[i] = (unsigned char) (i * 2654435761u >> 13);

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
			for (s = 0; s < sizeof(shifts) / sizeof(shifts[0]); s++)
				one_copy(src, dst_buf, sizes[i], threads[t], shifts[s]);

	/* signals while helpers run reach the calling thread only */
	main_thread = pthread_self();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every_ms, NULL);
	while (signals_seen < 200 && rounds < 2000)
	{
		one_copy(src, dst_buf, 64 * MB, 8, (size_t) rounds % 64);
		rounds++;
	}
	setitimer(ITIMER_REAL, &off, NULL);
	check(signals_seen > 0, "the timer fired during the copies", 64 * MB, 8, 0);
	check(signals_elsewhere == 0, "no signal handled on a helper thread", 64 * MB, 8, 0);
	check_chunks();
	check_auto_threads();

	printf("copy_test: %zu copies checked, %d signals during %d threaded copies, %d on helpers: %s\n",
		   sizeof(sizes) / sizeof(sizes[0]) * sizeof(threads) / sizeof(threads[0]) *
		   sizeof(shifts) / sizeof(shifts[0]), (int) signals_seen, rounds, (int) signals_elsewhere,
		   failures ? "FAILED" : "ok");
	free(src);
	free(dst_buf);
	return failures ? 1 : 0;
}
