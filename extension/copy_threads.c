/*
 * copy_threads.c
 *	  Large copies into and out of the GPU service's shared memory, split
 *	  over helper threads.
 *
 * Around a large GPU operation the backend copies the arguments into its
 * slot and the result out of it into fresh pages, which the kernel zeroes
 * as they fault in.  One core does that at 3 to 4 GB/s on the lent GPU
 * hosts; the work splits cleanly over cores (measured there: 380 MB into
 * fresh pages in 105 to 135 ms on one, 30 to 32 ms on four).
 *
 * The helpers are POSIX threads that run memcpy and nothing else: no
 * PostgreSQL call, no allocation, every signal blocked (so that SIGINT and
 * the latch's signals reach the backend's own thread), and all joined
 * before the copy returns.  The backend stays single-threaded as far as
 * PostgreSQL can tell.  A thread that cannot be started leaves its part to
 * the caller.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "copy_threads.h"

#define COPY_PAGE_BYTES ((uintptr_t) 4096)
#define COPY_STACK_BYTES ((size_t) 256 * 1024)

typedef struct CopyPart
{
	char	   *dst;
	const char *src;
	size_t		bytes;
	bool		started;
	pthread_t	thread;
} CopyPart;

static void *
copy_part(void *arg)
{
	CopyPart   *part = (CopyPart *) arg;

	memcpy(part->dst, part->src, part->bytes);
	return NULL;
}

void
setops_copy_split(void *dst, const void *src, size_t bytes, int threads)
{
	CopyPart	parts[SETOPS_COPY_THREADS_MAX];
	size_t		ways = bytes / SETOPS_COPY_PART_MIN_BYTES;
	size_t		per;
	size_t		off = 0;
	sigset_t	all,
				old;
	pthread_attr_t attr;
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
		parts[i].started = false;
		off = end;
	}

	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, COPY_STACK_BYTES);
	pthread_sigmask(SIG_SETMASK, &all, &old);	/* the threads inherit it */
	for (i = 1; i < ways; i++)
		if (parts[i].bytes > 0)
			parts[i].started = pthread_create(&parts[i].thread, &attr, copy_part, &parts[i]) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);

	for (i = 0; i < ways; i++)
		if (!parts[i].started)
			memcpy(parts[i].dst, parts[i].src, parts[i].bytes);
	for (i = 1; i < ways; i++)
		if (parts[i].started)
			pthread_join(parts[i].thread, NULL);
}
