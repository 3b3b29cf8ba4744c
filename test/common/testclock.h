/*
 * testclock.h
 *	  The monotonic millisecond clock of the test runners and benchmarks.
 */
#ifndef SETOPS_TESTCLOCK_H
#define SETOPS_TESTCLOCK_H

#include <time.h>

static inline double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#endif							/* SETOPS_TESTCLOCK_H */
