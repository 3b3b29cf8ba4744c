/*
 * copy_threads.h
 *	  A large memcpy, or any work in parts, split over helper threads
 *	  (copy_threads.c).  No PostgreSQL headers: the unit tests build it
 *	  alone.
 */
#ifndef SETOPS_COPY_THREADS_H
#define SETOPS_COPY_THREADS_H

#include <stddef.h>

/* most threads one copy uses, the caller's own included */
#define SETOPS_COPY_THREADS_MAX 16
/* below this a part is not worth a thread */
#define SETOPS_COPY_PART_MIN_BYTES ((size_t) 8 * 1024 * 1024)

/* memcpy(dst, src, bytes) with up to threads threads (1: the caller alone) */
extern void setops_copy_split(void *dst, const void *src, size_t bytes, int threads);

/*
 * fn(arg, 0) .. fn(arg, parts - 1), part 0 on the caller, the others on
 * helper threads with every signal blocked (a part whose thread cannot be
 * started runs on the caller); all done when it returns.  fn must not call
 * PostgreSQL, allocate, or check for interrupts.
 */
extern void setops_run_parts(void (*fn) (void *arg, int part), void *arg, int parts);

/*
 * fn(arg, 0) .. fn(arg, chunks - 1) on up to threads threads (the caller's
 * included), each taking the next chunk not yet taken: a thread slowed by
 * a busy core takes fewer, instead of holding up the rest with a fixed
 * share.  The same rules for fn as setops_run_parts.
 */
extern void setops_run_chunks(void (*fn) (void *arg, int chunk), void *arg, int chunks,
							  int threads);

/*
 * Threads a CPU engine count uses when not told (setops.cpu_threads 0):
 * half the CPUs this process may run on (its affinity mask: taskset,
 * cgroup cpusets), at least 1, at most SETOPS_COPY_THREADS_MAX.
 */
extern int	setops_auto_threads(void);

#endif							/* SETOPS_COPY_THREADS_H */
