/*
 * clock_ms.h
 *	  Milliseconds on the monotonic clock, for the timings both sides
 *	  report (setops_last_timing): the extension's and the GPU host's.
 */
#ifndef SETOPS_CLOCK_MS_H
#define SETOPS_CLOCK_MS_H

#include <time.h>

static inline double
setops_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The calling thread's CPU time, nanoseconds (a system call, not the vDSO). */
static inline unsigned long long
setops_thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (unsigned long long) ts.tv_sec * 1000000000ULL + (unsigned long long) ts.tv_nsec;
}

#endif							/* SETOPS_CLOCK_MS_H */
