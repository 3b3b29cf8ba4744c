/*
 * copy_threads.c
 *	  Large copies into and out of the GPU service's shared memory, and
 *	  the CPU engine's large counts, split over helper threads.
 *
 * Around a large GPU operation the backend copies the arguments into its
 * slot and the result out of it into fresh pages, which the kernel zeroes
 * as they fault in.  One core does that at 3 to 4 GB/s on the lent GPU
 * hosts; the work splits cleanly over cores (measured there: 380 MB into
 * fresh pages in 105 to 135 ms on one, 30 to 32 ms on four).
 *
 * The helpers are POSIX threads that run memcpy, or the CPU engine's
 * count of one part, and nothing else: no PostgreSQL call, no allocation,
 * no interrupt check (the engine is told), every signal blocked (so that
 * SIGINT and the latch's signals reach the backend's own thread), and all
 * joined before the work returns.  The backend stays single-threaded as far as
 * PostgreSQL can tell.  A thread that cannot be started leaves its part to
 * the caller.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* sched_getaffinity, CPU_COUNT */
#endif
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "copy_threads.h"

#define COPY_PAGE_BYTES ((uintptr_t) 4096)
#define COPY_STACK_BYTES ((size_t) 256 * 1024)

typedef struct CopyPart
{
	char	   *dst;
	const char *src;
	size_t		bytes;
} CopyPart;

typedef struct RunPart
{
	void		(*fn) (void *arg, int part);
	void	   *arg;
	int			index;
	bool		started;
	pthread_t	thread;
} RunPart;

static void *
run_part(void *arg)
{
	RunPart    *r = (RunPart *) arg;

	r->fn(r->arg, r->index);
	return NULL;
}

void
setops_run_parts(void (*fn) (void *arg, int part), void *arg, int parts)
{
	RunPart		runs[SETOPS_COPY_THREADS_MAX];
	sigset_t	all,
				old;
	pthread_attr_t attr;
	int			i;

	if (parts > SETOPS_COPY_THREADS_MAX)
		parts = SETOPS_COPY_THREADS_MAX;
	for (i = 0; i < parts; i++)
	{
		runs[i].fn = fn;
		runs[i].arg = arg;
		runs[i].index = i;
		runs[i].started = false;
	}
	if (parts > 1)
	{
		sigfillset(&all);
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, COPY_STACK_BYTES);
		pthread_sigmask(SIG_SETMASK, &all, &old);	/* the threads inherit it */
		for (i = 1; i < parts; i++)
			runs[i].started = pthread_create(&runs[i].thread, &attr, run_part, &runs[i]) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		pthread_attr_destroy(&attr);
	}
	for (i = 0; i < parts; i++)
		if (!runs[i].started)
			fn(arg, i);
	for (i = 1; i < parts; i++)
		if (runs[i].started)
			pthread_join(runs[i].thread, NULL);
}

typedef struct ChunkQueue
{
	void		(*fn) (void *arg, int chunk);
	void	   *arg;
	int			chunks;
	int			next;			/* the next chunk to take, shared */
} ChunkQueue;

static void
take_chunks(void *arg, int part)
{
	ChunkQueue *q = (ChunkQueue *) arg;
	int			c;

	(void) part;
	while ((c = __atomic_fetch_add(&q->next, 1, __ATOMIC_RELAXED)) < q->chunks)
		q->fn(q->arg, c);
}

void
setops_run_chunks(void (*fn) (void *arg, int chunk), void *arg, int chunks, int threads)
{
	ChunkQueue	q;

	q.fn = fn;
	q.arg = arg;
	q.chunks = chunks;
	q.next = 0;
	if (threads > chunks)
		threads = chunks;
	setops_run_parts(take_chunks, &q, threads < 1 ? 1 : threads);
}

/*
 * Half the CPUs: a count reads memory at a core's bandwidth, which on the
 * lent GPU hosts is a fraction of the socket's, so threads pay off well
 * past 4 (16 vCPUs: 8.5 ms on 4, 5.8 on 8, 4.8 on 16; docs/performance.md),
 * while the other half stays with the other backends.
 */
int
setops_auto_threads(void)
{
	cpu_set_t	set;
	long		cpus = 0;

	/* asked each time (a syscall, only for large counts): taskset -p may
	 * move a running backend */
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		cpus = CPU_COUNT(&set);
	if (cpus <= 0)
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
	cpus /= 2;
	return cpus < 1 ? 1 : cpus > SETOPS_COPY_THREADS_MAX ? SETOPS_COPY_THREADS_MAX : (int) cpus;
}

static void
copy_part(void *arg, int part)
{
	CopyPart   *c = (CopyPart *) arg + part;

	memcpy(c->dst, c->src, c->bytes);
}

void
setops_copy_split(void *dst, const void *src, size_t bytes, int threads)
{
	CopyPart	parts[SETOPS_COPY_THREADS_MAX];
	size_t		ways = bytes / SETOPS_COPY_PART_MIN_BYTES;
	size_t		per;
	size_t		off = 0;
	size_t		i;

	if (threads > SETOPS_COPY_THREADS_MAX)
		threads = SETOPS_COPY_THREADS_MAX;
	if (threads < (int) ways)
		ways = threads < 1 ? 1 : (size_t) threads;
	if (ways <= 1)
	{
		memcpy(dst, src, bytes);
		return;
	}
	/* parts end on page boundaries of dst: no page faults in on two threads */
	per = bytes / ways;
	for (i = 0; i < ways; i++)
	{
		size_t		end = bytes;

		if (i < ways - 1)
		{
			uintptr_t	at = ((uintptr_t) dst + off + per + COPY_PAGE_BYTES - 1) & ~(COPY_PAGE_BYTES - 1);

			end = at - (uintptr_t) dst;
			if (end > bytes)
				end = bytes;
		}
		parts[i].dst = (char *) dst + off;
		parts[i].src = (const char *) src + off;
		parts[i].bytes = end - off;
		off = end;
	}
	setops_run_parts(copy_part, parts, (int) ways);
}
