/*
 * testclock.h
 *	  The monotonic millisecond clock of the test runners and benchmarks:
 *	  the one the extension and the GPU host time themselves with.
 */
#ifndef SETOPS_TESTCLOCK_H
#define SETOPS_TESTCLOCK_H

#include "../../engine/common/clock_ms.h"

static inline double
now_ms(void)
{
	return setops_clock_ms();
}

#endif							/* SETOPS_TESTCLOCK_H */
